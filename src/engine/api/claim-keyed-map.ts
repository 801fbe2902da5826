// Values kept by claim, as the controller keys them by "namespace/name" (claimToClaimKey), but held by
// namespace and then by name. A lookup from a claim or a claimRef then needs no key string: building
// one, hashing it and comparing it with the stored key cost more than the rest of a pre-bound look-up
// at 100k claims. The two levels tell apart only what "/" inside a name would merge, which the
// controller's callers then reject by comparing namespace and name themselves (IsVolumeBoundToClaim).

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
