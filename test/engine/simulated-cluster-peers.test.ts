// The simulated cluster's peer hints: a claim's slot and its volume's slot remember each other, so that a
// sync follows a pointer instead of looking a key up. A hint is only ever a shortcut: each read below
// must give what a look-up by key gives, whatever the hint points at.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {SimulatedCluster} from '../../src/engine/simulation/simulated-cluster.js'
import {pv, pvc, state} from './builders.js'

function cluster(): SimulatedCluster {
  return new SimulatedCluster(
    state({
      volumes: [pv('pv-a', {claim: {name: 'a'}}), pv('pv-b'), pv('pv-x', {claim: {name: 'b/c', namespace: 'a'}})],
      claims: [
        pvc('a', 'uid-a'),
        pvc('b', 'uid-b'),
        pvc('c', 'uid-c', {namespace: 'a/b'}),
        pvc('c', 'uid-c2', {namespace: 'other'}),
      ],
    }),
    {replayQuietSyncs: true},
  )
}

type Read = ['claimOf', string, string, string | undefined] | ['volume', string, string | undefined]

describe('peer hints', () => {
  const cases: Array<{name: string; sync: ['pv/' | 'pvc/', string]; reads: Read[]}> = [
    {
      name: "a volume's sync reads its claim, another claim, then its claim again",
      sync: ['pv/', 'pv-a'],
      reads: [
        ['claimOf', 'default', 'a', 'uid-a'],
        ['claimOf', 'default', 'b', 'uid-b'],
        ['claimOf', 'default', 'a', 'uid-a'],
        ['claimOf', 'default', 'missing', undefined],
        ['claimOf', 'default', 'a', 'uid-a'],
      ],
    },
    {
      name: 'the same name in another namespace is another claim',
      sync: ['pv/', 'pv-a'],
      reads: [
        ['claimOf', 'other', 'c', 'uid-c2'],
        ['claimOf', 'a/b', 'c', 'uid-c'],
        ['claimOf', 'other', 'c', 'uid-c2'],
      ],
    },
    {
      // Go's claimrefToClaimKey gives "a/b/c" for both: the hint must agree with the key, not be stricter.
      name: 'a claimRef whose key collides with another reads what the key holds',
      sync: ['pv/', 'pv-x'],
      reads: [
        ['claimOf', 'a', 'b/c', 'uid-c'],
        ['claimOf', 'a/b', 'c', 'uid-c'],
      ],
    },
    {
      name: "a claim's sync reads its volume, another, a missing one, then its own again",
      sync: ['pvc/', 'default/a'],
      reads: [
        ['volume', 'pv-a', 'pv-a'],
        ['volume', 'pv-b', 'pv-b'],
        ['volume', 'pv-none', undefined],
        ['volume', 'pv-a', 'pv-a'],
      ],
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const sim = cluster()
      // Twice: the second time every slot already has a peer from the first.
      for (let pass = 0; pass < 2; pass++) {
        if (c.sync[0] === 'pv/') sim.beginSync('pv/', sim.volumes.slot(c.sync[1]))
        else sim.beginSync('pvc/', sim.claims.slot(c.sync[1]))
        for (const read of c.reads) {
          if (read[0] === 'claimOf') {
            assert.equal(
              sim.claimOf({namespace: read[1], name: read[2]})?.metadata.uid,
              read[3],
              `pass ${pass}: claimOf ${read[1]}/${read[2]}`,
            )
          } else {
            assert.equal(sim.volume(read[1])?.metadata.name, read[2], `pass ${pass}: volume ${read[1]}`)
          }
        }
        sim.endSync()
      }
    })
  }

  it('a claim deleted and created again under its name is found through the hint', () => {
    const sim = cluster()
    sim.beginSync('pv/', sim.volumes.slot('pv-a'))
    assert.equal(sim.claimOf({namespace: 'default', name: 'a'})?.metadata.uid, 'uid-a')
    sim.endSync()
    sim.claims.delete('default/a')
    sim.beginSync('pv/', sim.volumes.slot('pv-a'))
    assert.equal(sim.claimOf({namespace: 'default', name: 'a'}), undefined)
    sim.endSync()
    sim.claims.set('default/a', pvc('a', 'uid-a2'))
    sim.beginSync('pv/', sim.volumes.slot('pv-a'))
    assert.equal(sim.claimOf({namespace: 'default', name: 'a'})?.metadata.uid, 'uid-a2')
    sim.endSync()
  })
})
