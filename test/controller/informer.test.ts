// The informer's resync list beside its watch (listBesideWatch): the watch is not ended for it, and what
// the watch brought after the list's snapshot is not undone by the list.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {WatchEvent} from '../../src/cluster/live-api.js'
import type {Page} from '../../src/cluster/page.js'
import {createLogger} from '../../src/cli/log.js'
import {Informer, type WireObject} from '../../src/controller/informer.js'

const obj = (name: string, rv: number): WireObject => ({metadata: {name, resourceVersion: String(rv)}})
const rvs = (store: Map<string, WireObject>) => Object.fromEntries([...store].map(([k, o]) => [k, o.metadata.resourceVersion]))

test('a resync list beside the watch: the watch goes on; objects newer than the snapshot, or deleted after it, stay as the watch left them', async () => {
  const pages: Array<Page<WireObject> | Promise<Page<WireObject>>> = [{items: [obj('a', 1), obj('b', 2), obj('e', 1)], resourceVersion: '2'}]
  let emit: ((e: WatchEvent) => void) | undefined
  let watches = 0
  const calls: string[] = []
  const informer = new Informer<WireObject>({
    resource: 'persistentvolumes',
    list: async () => pages.shift()!,
    watchApi: {
      watch: (_r, opts, onEvent) => {
        watches++
        emit = onEvent
        return new Promise((resolve) => opts.signal?.addEventListener('abort', () => resolve()))
      },
    },
    handlers: {
      onAdd: (o) => calls.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
      onUpdate: (old, o) => calls.push(`update ${o.metadata.name}@${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
      onDelete: (o) => calls.push(`delete ${o.metadata.name}`),
    },
    log: createLogger({format: 'text', verbosity: 0, write: () => {}}),
  })
  await informer.start()
  while (emit === undefined) await new Promise((r) => setImmediate(r))
  calls.length = 0
  let answer!: (p: Page<WireObject>) => void
  pages.push(new Promise((resolve) => (answer = resolve)))
  const resync = informer.listBesideWatch('resync')
  // While the list is under way, the watch brings a, deletes b, creates c.
  emit({type: 'MODIFIED', object: obj('a', 5)} as never)
  emit({type: 'DELETED', object: obj('b', 6)} as never)
  emit({type: 'ADDED', object: obj('c', 7)} as never)
  // The snapshot at 4: a older than the watch's, b still there, d created at 4, e unchanged.
  answer({items: [obj('a', 3), obj('b', 2), obj('d', 4), obj('e', 1)], resourceVersion: '4'})
  await resync
  assert.deepEqual(rvs(informer.store), {a: '5', c: '7', d: '4', e: '1'})
  assert.deepEqual(calls, ['update a@1->5', 'delete b', 'add c@7', 'add d@4', 'update e@1->1'])
  assert.equal(watches, 1, 'the watch was not ended for the list')
  // A watch lagging behind the snapshot does not take an object back to an older version.
  emit({type: 'MODIFIED', object: obj('d', 3)} as never)
  assert.equal(informer.store.get('d')?.metadata.resourceVersion, '4')
  // After the merge, the watch's events apply as always.
  emit({type: 'DELETED', object: obj('d', 8)} as never)
  assert.deepEqual(rvs(informer.store), {a: '5', c: '7', e: '1'})
  await informer.stop()
})
