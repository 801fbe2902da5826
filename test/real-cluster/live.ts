// What the live suites against a real control plane share. `npm run test:real-cluster` starts one
// (control-plane.ts) and names its descriptor in PVCTL_REAL_CLUSTER; without it these suites skip, saying
// why. The control plane is the suite's own: a test may empty it (fresh()), so the files run one at a time.
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'

import * as k8s from '@kubernetes/client-node'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {type CliResult, runCli} from '../cli/run-cli.js'
import {tempDir} from '../temp-dir.js'
import {attachControlPlane, type ControlPlane} from './control-plane.js'
import {type ApiClients, clients, seed, stateAsList, wipe} from './seed.js'
export {standInKubelet} from './stand-in-kubelet.js'

const descriptor = process.env.PVCTL_REAL_CLUSTER

/** The skip reason of every live test when no real control plane is there, or false. */
export const noRealCluster: string | false =
  descriptor === undefined || descriptor === ''
    ? 'PVCTL_REAL_CLUSTER is not set: the real kube-apiserver suites did not run (`npm run test:real-cluster` starts one; it needs Go)'
    : false

export interface RealCluster {
  plane: ControlPlane
  api: ApiClients
  /** The admin's kubeconfig. */
  kubeconfig: string
  dir: string
  /** pvctl (the built CLI) as the user PVCTL (in system:masters), or with another kubeconfig given first. */
  pvctl(...args: string[]): Promise<CliResult>
  pvctlAs(kubeconfig: string, ...args: string[]): Promise<CliResult>
  /** An empty API server, then these objects in it as they are (status included). */
  fresh(state?: Partial<ClusterState>): Promise<void>
  volume(name: string): Promise<PersistentVolume | undefined>
  claim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>
  /**
   * The writes (create, update, patch, delete) a user made and the server took, from its audit log, as "verb
   * resource[/subresource] [namespace/]name": what pvctl wrote, whatever the cluster's controllers wrote.
   * SelfSubjectAccessReviews (creates that change nothing) are left out.
   */
  writesBy(user: string): string[]
}

/** The user pvctl runs as in these suites (RealCluster.pvctl). */
export const PVCTL = 'pvctl-cli'

interface AuditEvent {
  stage: string
  verb: string
  user: {username: string}
  objectRef?: {resource?: string; subresource?: string; namespace?: string; name?: string}
  responseStatus?: {code?: number}
}
const WRITES = ['create', 'update', 'patch', 'delete', 'deletecollection']

/** client-node's model instance as the JSON it came as (timestamps as strings, plain objects). */
const plain = <T>(o: unknown): T => JSON.parse(JSON.stringify(o)) as T

export function realCluster(): RealCluster {
  const plane = attachControlPlane(descriptor as string)
  const api = clients(plane.kubeconfig)
  const dir = tempDir('real-cluster')
  const pvctlAs = (kubeconfig: string, ...args: string[]) =>
    runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})
  let asPvctl: Promise<string> | undefined
  const notFound = (e: unknown) => {
    if (e instanceof k8s.ApiException && e.code === 404) return undefined
    throw e
  }
  return {
    plane,
    api,
    kubeconfig: plane.kubeconfig,
    dir,
    pvctl: async (...args) => pvctlAs(await (asPvctl ??= plane.userKubeconfig(PVCTL, ['system:masters'])), ...args),
    pvctlAs,
    fresh: async (state = {}) => {
      await wipe(api)
      const {refused} = await seed(api, state)
      if (refused.length > 0)
        throw new Error(`the API server refused: ${refused.map((r) => `${r.object}: ${r.message}`).join('; ')}`)
    },
    volume: (name) => api.core.readPersistentVolume({name}).then((v) => plain<PersistentVolume>(v), notFound),
    claim: (namespace, name) =>
      api.core
        .readNamespacedPersistentVolumeClaim({namespace, name})
        .then((c) => plain<PersistentVolumeClaim>(c), notFound),
    writesBy: (user) =>
      readFileSync(path.join(plane.dir, 'audit.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"username":"${user}"`))
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter(
          (e) =>
            e.stage === 'ResponseComplete' &&
            WRITES.includes(e.verb) &&
            (e.responseStatus?.code ?? 0) < 300 &&
            e.objectRef?.resource !== 'selfsubjectaccessreviews',
        )
        .map(
          (e) =>
            `${e.verb} ${e.objectRef?.resource}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''} ${e.objectRef?.namespace ? `${e.objectRef.namespace}/` : ''}${e.objectRef?.name ?? ''}`,
        ),
  }
}

/** A bundled example's objects (examples/NAME.yaml). */
export async function example(name: string): Promise<ClusterState> {
  return (await loadSnapshot(`examples/${name}.yaml`)).state
}

/** The cluster as pvctl reads it, written as a List file: `pvctl ... -f FILE` answers on the same state. */
export async function snapshotFile(cluster: RealCluster, name: string): Promise<string> {
  const {openLiveSession} = await import('../../src/app/live-session.js')
  const {loadLiveState} = await import('../../src/cluster/live-loader.js')
  const state = await loadLiveState(openLiveSession({kubeconfig: cluster.kubeconfig, qps: 1000, burst: 1000}).api, {})
  const file = path.join(cluster.dir, name)
  writeFileSync(file, JSON.stringify(stateAsList(state)))
  return file
}
