// The informer's resync list beside its watch (listBesideWatch): the watch is not ended for it, and what
// the watch brought after the list's snapshot is not undone by the list.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {WatchEvent} from '../../../src/cluster/live-api.js'
import type {Page} from '../../../src/cluster/page.js'
import {createLogger} from '../../../src/log.js'
import {Informer, MERGE_SLICE, type WireObject} from '../../../src/loop/client-go/informer.js'

const obj = (name: string, rv: number): WireObject => ({metadata: {name, resourceVersion: String(rv)}})
const rvs = (store: Map<string, WireObject>) =>
  Object.fromEntries([...store].map(([k, o]) => [k, o.metadata.resourceVersion]))

test('a resync list beside the watch: the watch goes on; objects newer than the snapshot, or deleted after it, stay as the watch left them', async () => {
  const pages: Array<Page<WireObject> | Promise<Page<WireObject>>> = [
    {items: [obj('a', 1), obj('b', 2), obj('e', 1)], resourceVersion: '2'},
  ]
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
      onUpdate: (old, o) =>
        calls.push(`update ${o.metadata.name}@${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
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

/** An informer over `first` (its first list), its watch's events sent by emit(), and its handlers' calls recorded. */
async function informerOver(first: WireObject[], firstRv: number, afterUpdate?: (o: WireObject) => void) {
  const pages: Array<Page<WireObject> | Promise<Page<WireObject>>> = [{items: first, resourceVersion: String(firstRv)}]
  let emit: ((e: WatchEvent) => void) | undefined
  const calls: string[] = []
  const updates: Array<{old: WireObject; obj: WireObject}> = []
  const informer = new Informer<WireObject>({
    resource: 'persistentvolumes',
    list: async () => pages.shift()!,
    watchApi: {
      watch: (_r, opts, onEvent) => {
        emit = onEvent
        return new Promise((resolve) => opts.signal?.addEventListener('abort', () => resolve()))
      },
    },
    handlers: {
      onAdd: (o) => calls.push(`add ${o.metadata.name}`),
      onUpdate: (old, o) => {
        calls.push(`update ${o.metadata.name}`)
        updates.push({old, obj: o})
        afterUpdate?.(o)
      },
      onDelete: (o) => calls.push(`delete ${o.metadata.name}`),
    },
    log: createLogger({format: 'text', verbosity: 0, write: () => {}}),
  })
  await informer.start()
  while (emit === undefined) await new Promise((r) => setImmediate(r))
  calls.length = 0
  updates.length = 0
  return {
    informer,
    calls,
    updates,
    emit: (e: WatchEvent) => emit!(e),
    nextList: (p: Page<WireObject> | Promise<Page<WireObject>>) => pages.push(p),
  }
}

const named = (prefix: string, n: number, rv: number) =>
  Array.from({length: n}, (_, i) => obj(`${prefix}-${String(i).padStart(5, '0')}`, rv))

test('a resync list is merged in slices: watch events between them are applied at once, and the merge does not undo them', async () => {
  // Three slices of listed objects, all at resourceVersion 1; the list's snapshot is at 10.
  const listed = named('pv', 2 * MERGE_SLICE + 10, 1)
  const last = listed.at(-1)!.metadata.name!
  const lastOfFirst = listed[MERGE_SLICE - 1].metadata.name!
  const firstOfSecond = listed[MERGE_SLICE].metadata.name!
  const inThird = listed[2 * MERGE_SLICE + 1].metadata.name!
  const inFirst = listed[0].metadata.name!
  // When the first slice's last object is merged, the watch's events are due: they run before the next slice.
  let storeAtEvents: string | undefined
  const {informer, calls, emit, nextList} = await informerOver(
    listed.map((o) => structuredClone(o)),
    1,
    (o) => {
      if (o.metadata.name !== lastOfFirst || o.metadata.resourceVersion !== '10') return
      setImmediate(() => {
        storeAtEvents = informer.store.get(firstOfSecond)?.metadata.resourceVersion
        emit({type: 'MODIFIED', object: obj(last, 11)} as never)
        emit({type: 'DELETED', object: obj(inThird, 12)} as never)
        emit({type: 'DELETED', object: obj(inFirst, 13)} as never)
        emit({type: 'ADDED', object: obj('pv-created', 14)} as never)
      })
    },
  )
  const page = {items: listed.map((o) => ({metadata: {...o.metadata, resourceVersion: '10'}})), resourceVersion: '10'}
  nextList(page)
  await informer.listBesideWatch('resync')
  assert.equal(storeAtEvents, '1', 'the events came while the second slice was still to be merged')
  const at = (c: string) => calls.indexOf(c)
  assert.ok(
    at(`update ${lastOfFirst}`) < at(`update ${last}`) && at(`update ${last}`) < at(`update ${firstOfSecond}`),
    'the watch event was handled between the slices',
  )
  const table: Array<[string, string | undefined, string]> = [
    [last, '11', 'modified by the watch after the snapshot, before its slice: the watch version stays'],
    [inThird, undefined, 'deleted by the watch after the snapshot, before its slice: not listed back in'],
    [inFirst, undefined, 'deleted by the watch after its slice was merged'],
    ['pv-created', '14', 'created after the snapshot: kept by the deletion pass'],
    [firstOfSecond, '10', 'merged from the list'],
  ]
  for (const [name, rv, why] of table)
    assert.equal(informer.store.get(name)?.metadata.resourceVersion, rv, `${name}: ${why}`)
  assert.equal(
    calls.filter((c) => c === `update ${last}`).length,
    1,
    'the listed copy of the modified object was not merged',
  )
  assert.equal(calls.filter((c) => c.startsWith('delete ')).length, 2, 'only the watch deleted')
  await informer.stop()
})

test('a relist keeps the object held when its resourceVersion is unchanged: the same object, given to the handlers as old and new', async () => {
  const cases: Array<[string, (i: Informer<WireObject>) => Promise<void>]> = [
    ['a resync list beside the watch', (i) => i.listBesideWatch('resync')],
    ['a relist after the watch ends', (i) => i.relist('expired')],
  ]
  for (const [what, relist] of cases) {
    const {informer, updates, nextList} = await informerOver([obj('same', 3), obj('moved', 3)], 3)
    const held = informer.store.get('same')!
    const listedMoved = obj('moved', 4)
    nextList({items: [obj('same', 3), listedMoved], resourceVersion: '4'})
    await relist(informer)
    assert.equal(informer.store.get('same'), held, `${what}: the held object stays`)
    const same = updates.find((u) => u.obj.metadata.name === 'same')!
    assert.ok(same.old === held && same.obj === held, `${what}: the handlers see no change`)
    assert.equal(informer.store.get('moved'), listedMoved, `${what}: a changed object is replaced by the listed one`)
    await informer.stop()
  }
})

test('a resync list is merged page by page: each page as it comes, the watch between pages deciding as within one', async () => {
  const {informer, calls, emit, nextList} = await informerOver([obj('a', 1), obj('b', 1), obj('c', 1), obj('d', 1)], 1)
  nextList({items: [obj('a', 1), obj('b', 1)], resourceVersion: '10', continueToken: 'page-2'})
  let answer!: (p: Page<WireObject>) => void
  nextList(new Promise((resolve) => (answer = resolve)))
  const resync = informer.listBesideWatch('resync')
  while (!calls.includes('update b')) await new Promise((r) => setImmediate(r))
  assert.deepEqual(calls, ['update a', 'update b'], 'the first page was merged before the second came')
  // Between the pages the watch deletes a (merged) and c (not yet listed), and changes d.
  emit({type: 'DELETED', object: obj('a', 11)} as never)
  emit({type: 'DELETED', object: obj('c', 12)} as never)
  emit({type: 'MODIFIED', object: obj('d', 13)} as never)
  // The second page, of the snapshot at 10 (its resourceVersion on a continue page is the first's).
  answer({items: [obj('c', 1), obj('d', 1)], resourceVersion: '10'})
  await resync
  assert.deepEqual(rvs(informer.store), {b: '1', d: '13'})
  assert.deepEqual(calls, ['update a', 'update b', 'delete a', 'delete c', 'update d'])
  await informer.stop()
})

test('a list that replaces the store during a merge (the watch expired) stops the merge: its older snapshot does not bring back what the newer one deleted', async () => {
  const listed = named('pv', 2 * MERGE_SLICE + 10, 1)
  const lastOfFirst = listed[MERGE_SLICE - 1].metadata.name!
  const gone = listed.at(-1)!.metadata.name!
  let relisting: Promise<void> | undefined
  const {informer, calls, nextList} = await informerOver(
    listed.map((o) => structuredClone(o)),
    1,
    (o) => {
      if (o.metadata.name === lastOfFirst && relisting === undefined) relisting = informer.relist('expired')
    },
  )
  // The resync's snapshot at 10 holds every object; the relist's at 20 no longer holds the last one.
  nextList({items: listed.map((o) => obj(o.metadata.name!, 10)), resourceVersion: '10'})
  nextList({items: listed.slice(0, -1).map((o) => obj(o.metadata.name!, 10)), resourceVersion: '20'})
  await informer.listBesideWatch('resync')
  await relisting
  assert.equal(informer.store.get(gone), undefined, 'deleted by the newer list, not merged back')
  assert.equal(informer.store.size, listed.length - 1)
  assert.equal(informer.resourceVersion, '20')
  assert.equal(calls.filter((c) => c === `update ${gone}`).length, 0, 'the merge stopped before the last slice')
  await informer.stop()
})
