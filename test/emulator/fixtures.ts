// Object builders and a small HTTP client for the emulator's own tests (and anyone else's).
import type {K8sObject} from './types.js'

export const pv = (
  name: string,
  opts: {storage?: string; labels?: Record<string, string>; finalizers?: string[]; phase?: string; claim?: string} = {},
): K8sObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {
    name,
    ...(opts.labels ? {labels: opts.labels} : {}),
    ...(opts.finalizers ? {finalizers: opts.finalizers} : {}),
  },
  spec: {
    capacity: {storage: opts.storage ?? '10Gi'},
    accessModes: ['ReadWriteOnce'],
    hostPath: {path: `/mnt/${name}`},
    storageClassName: 'standard',
    ...(opts.claim ? {claimRef: {namespace: opts.claim.split('/')[0], name: opts.claim.split('/')[1]}} : {}),
  },
  status: {phase: opts.phase ?? 'Available'},
})

export const pvc = (
  namespace: string,
  name: string,
  opts: {storage?: string; labels?: Record<string, string>; volumeName?: string; phase?: string} = {},
): K8sObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {name, namespace, ...(opts.labels ? {labels: opts.labels} : {})},
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: {requests: {storage: opts.storage ?? '1Gi'}},
    storageClassName: 'standard',
    ...(opts.volumeName ? {volumeName: opts.volumeName} : {}),
  },
  status: {phase: opts.phase ?? 'Pending'},
})

export const pod = (namespace: string, name: string, nodeName?: string, claim?: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {name, namespace},
  spec: {
    ...(nodeName ? {nodeName} : {}),
    containers: [{name: 'app', image: 'busybox'}],
    ...(claim ? {volumes: [{name: 'data', persistentVolumeClaim: {claimName: claim}}]} : {}),
  },
  status: {phase: 'Running'},
})

export const node = (name: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, labels: {'kubernetes.io/hostname': name}},
  status: {conditions: [{type: 'Ready', status: 'True'}]},
})

export const event = (namespace: string, name: string, involved: {kind: string; name: string}): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: {name, namespace},
  involvedObject: {apiVersion: 'v1', kind: involved.kind, name: involved.name, namespace},
  reason: 'ProvisioningFailed',
  message: 'no volume plugin matched',
  type: 'Warning',
  source: {component: 'persistentvolume-controller'},
})

export const storageClass = (name: string, isDefault = false): K8sObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {name, ...(isDefault ? {annotations: {'storageclass.kubernetes.io/is-default-class': 'true'}} : {})},
  provisioner: 'example.com/csi',
})

export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
}

export interface CallOptions {
  body?: unknown
  contentType?: string
  token?: string
  accept?: string
}

/** One request with fetch; JSON bodies are parsed, anything else is returned as text. */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = {}
  if (opts.body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json'
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`
  if (opts.accept) headers.Accept = opts.accept
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  })
  const text = await res.text()
  let body: unknown = text
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(text)
  return {status: res.status, headers: res.headers, body: body as T}
}

export interface WatchEvent {
  type: string
  object: any
}

/** An open watch: events arrive in `events`; `next(n)` waits for that many more. */
export interface WatchStream {
  readonly events: WatchEvent[]
  /** Resolves once `count` events have arrived in total (rejects after `timeoutMs`). */
  until(count: number, timeoutMs?: number): Promise<WatchEvent[]>
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>
  close(): void
}

export async function openWatch(
  base: string,
  path: string,
  opts: {token?: string; accept?: string} = {},
): Promise<WatchStream> {
  const controller = new AbortController()
  const headers: Record<string, string> = {}
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`
  if (opts.accept) headers.Accept = opts.accept
  const res = await fetch(`${base}${path}`, {headers, signal: controller.signal})
  if (res.status !== 200 || !res.body) throw new Error(`watch ${path}: HTTP ${res.status} ${await res.text()}`)
  const events: WatchEvent[] = []
  const waiters: Array<() => void> = []
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  const ended = (async () => {
    let buffer = ''
    try {
      for (;;) {
        const {done, value} = await reader.read()
        if (done) break
        buffer += decoder.decode(value, {stream: true})
        let nl: number
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim()
          buffer = buffer.slice(nl + 1)
          if (line) events.push(JSON.parse(line) as WatchEvent)
        }
        waiters.splice(0).forEach((w) => w())
      }
    } catch {
      // aborted by close()
    }
    waiters.splice(0).forEach((w) => w())
  })()
  let finished = false
  void ended.then(() => (finished = true))
  return {
    events,
    ended,
    async until(count, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs
      while (events.length < count) {
        if (finished)
          throw new Error(
            `watch ended after ${events.length} events, wanted ${count}: ${JSON.stringify(events.map((e) => e.type))}`,
          )
        const left = deadline - Date.now()
        if (left <= 0)
          throw new Error(
            `watch: ${events.length} events after ${timeoutMs} ms, wanted ${count}: ${JSON.stringify(events.map((e) => e.type))}`,
          )
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left)
          waiters.push(() => {
            clearTimeout(t)
            resolve()
          })
        })
      }
      return events.slice(0, count)
    },
    close: () => controller.abort(),
  }
}
