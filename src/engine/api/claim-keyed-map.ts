// Values kept by claim, as the controller keys them by "namespace/name" (claimToClaimKey), but held by
// namespace and then by name. A lookup from a claim or a claimRef then needs no key string: building
// one, hashing it and comparing it with the stored key cost more than the rest of a pre-bound look-up
// at 100k claims. The two levels tell apart only what "/" inside a name would merge, which the
// controller's callers then reject by comparing namespace and name themselves (IsVolumeBoundToClaim).
import {present} from './invariant.js'

export class ClaimKeyedMap<V> {
  private readonly namespaces = new Map<string, Map<string, V>>()

  get(namespace: string | undefined, name: string | undefined): V | undefined {
    return this.namespaces.get(namespace ?? '')?.get(name ?? '')
  }

  set(namespace: string | undefined, name: string | undefined, value: V): void {
    const ns = namespace ?? ''
    let names = this.namespaces.get(ns)
    if (names === undefined) {
      names = new Map()
      this.namespaces.set(ns, names)
    } else {
      // A namespace seen before.
    }
    names.set(name ?? '', value)
  }

  delete(namespace: string | undefined, name: string | undefined): void {
    // An emptied namespace keeps its (empty) map: namespaces are few, and their claims come back.
    this.namespaces.get(namespace ?? '')?.delete(name ?? '')
  }
}

/**
 * Values by claim key ("namespace/name", claimKey), answering exactly as a Map of the key strings would,
 * looked up by namespace and name without building the key: a lookup of a built key hashes a new string
 * each time, most of its cost at 100k claims. The two levels part from the one string only where a "/"
 * inside a namespace or name merges two keys ("a/b" + "c", "a" + "b/c"): while no stored namespace or name
 * holds one, no asked key reaches a stored one through a "/" either, and the answers are the same. The
 * first one stored with a "/" (no valid claim has one) turns this into the Map of key strings.
 */
export class ClaimKeyIndex<V> {
  private byNamespace: Map<string, Map<string, V>> | undefined = new Map()
  /** The values by key string, once a namespace or name with a "/" is stored. */
  private byKey: Map<string, V> | undefined

  get(namespace: string, name: string): V | undefined {
    return this.byNamespace !== undefined
      ? this.byNamespace.get(namespace)?.get(name)
      : this.keyed().get(`${namespace}/${name}`)
  }

  set(namespace: string, name: string, value: V): void {
    if (this.byNamespace !== undefined && !namespace.includes('/') && !name.includes('/')) {
      let names = this.byNamespace.get(namespace)
      if (names === undefined) this.byNamespace.set(namespace, (names = new Map<string, V>()))
      names.set(name, value)
      return
    } else if (this.byNamespace !== undefined) {
      // The first key with a "/" inside: the key strings from now on, whatever they merge.
      this.byKey = new Map()
      for (const [ns, names] of this.byNamespace) for (const [n, stored] of names) this.byKey.set(`${ns}/${n}`, stored)
      this.byNamespace = undefined
    } else {
      // Kept by key string already.
    }
    this.keyed().set(`${namespace}/${name}`, value)
  }

  /** The map by key string, which exists once byNamespace is gone. */
  private keyed(): Map<string, V> {
    return present(this.byKey, 'a claim-keyed map holds its values by namespace or by key string')
  }
}
