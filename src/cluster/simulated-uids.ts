// Claims of a snapshot without metadata.uid (a manifest written by hand, a snapshot plus the claim one is
// about to create) are given the uid the API server would give them when created: the controller tells
// a claim from the one a volume's claimRef names by uid, so without one a binding flips back and forth
// where a cluster would settle. The uid is derived from the claim's namespace and name (the same every run,
// so a plan is reproducible), shaped as the API server's (a UUID).
//
// Volumes keep what they have: a volume's uid names its reclaim operations and nothing the controller
// decides on, and the Kubernetes unit tests (test/conformance) build volumes without one.
import {createHash} from 'node:crypto'

import {claimKey, type ClusterState} from '../engine/api/model.js'

/** A UUID (version 5 layout) derived from what names the object. */
export function simulatedUid(kind: string, namespace: string, name: string): string {
  const h = createHash('sha1').update(`${kind}/${namespace}/${name}`).digest('hex')
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** The state with a uid for every claim that had none, and the claims ("NS/NAME") given one. */
export function withSimulatedClaimUids(state: ClusterState): {state: ClusterState; assigned: string[]} {
  const assigned: string[] = []
  const claims = state.claims.map((c) => {
    if ((c.metadata.uid ?? '') !== '') return c
    assigned.push(claimKey(c))
    return {
      ...c,
      metadata: {
        ...c.metadata,
        uid: simulatedUid('PersistentVolumeClaim', c.metadata.namespace ?? '', c.metadata.name ?? ''),
      },
    }
  })
  return assigned.length === 0 ? {state, assigned} : {state: {...state, claims}, assigned}
}
