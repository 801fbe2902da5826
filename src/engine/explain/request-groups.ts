// The nearest candidates of many claims, judging each volume once per distinct request, not once per claim.
//
// A volume's reasons depend on the claim only through what it asks for (the request key below), except for
// the few volumes tied to the claim itself: those whose claimRef names the claim (isVolumeBoundToClaim,
// claimRefReason's "earlier claim", heldByAnotherClaim) and those it names (the chosen volume,
// decision.volume, spec.volumeName). candidateOrder, isRelevant and the near-miss tests read the same. So the claims of a `pvctl explain` List that ask for the same thing share one ranking of
// every volume, judged for a stand-in claim that no claimRef names; each claim then takes that ranking out of
// its own special volumes and merges them back judged for itself. A claim that names its volume
// (spec.volumeName) refuses every other one alike, in words naming its own: those claims share a ranking
// by size alone, and each words the few it lists. rankCandidates, one claim at a time, stays the reference
// (ExplainOptions.ranking 'per-claim') and a property test holds the two to the same output.
import type {Candidate} from './model.js'
import {
  type CandidateOrder,
  type CandidateRanking,
  candidateOrder,
  judgeCandidate,
  type MatchingPath,
  type NearestPassing,
  rankCandidates,
  type RankingOptions,
} from './candidates.js'
import {type ClusterLookup, groupBy, type VolumeFacts} from './lookup.js'
import {VolumeClasses} from './volume-classes.js'
import type {FeatureGates} from '../api/feature-gates.js'
import {claimKey, type PersistentVolumeClaim} from '../api/model.js'

/**
 * How many more candidates a group keeps than its claims list: a claim whose own volumes (claimRefs to it,
 * the volume it names) take more places than this among the group's nearest is ranked alone instead.
 */
const GROUP_SLACK = 4

/** What a claim's ranking asks for; the near-miss tests are made per claim (nearestPassingOf). */
export interface GroupRankingOptions extends Omit<RankingOptions, 'nearestPassing'> {
  /** Keep the nearest that pass each of nearestPassingOf's tests. */
  nearestPassing: boolean
}

/** The near-miss tests of a claim (nearMissTests), each with how many of the nearest passing it to keep. */
export type NearestPassingOf = (claim: PersistentVolumeClaim) => NearestPassing[]

/** One distinct request: every volume judged for its stand-in claim, the nearest kept. */
interface RequestGroup {
  /** Judged in place of each claim of the group: its request, an identity no claimRef names. */
  standIn: PersistentVolumeClaim
  /** How the stand-in is matched: the claims' path, or one naming a volume that does not exist. */
  path: MatchingPath
  /** The claims name other volumes than the stand-in does: what they list is judged again, for each. */
  reworded: boolean
  /** The nearest GROUP_SLACK more than asked of each kind, nearest first, with total and eligible counts. */
  ranking: CandidateRanking
  /** The nearest of each near-miss test, as many as `ranking` holds (GROUP_SLACK more than asked). */
  passing: Candidate[][]
  keep: number
}

export class RequestGroups {
  private readonly groups = new Map<string, RequestGroup>()
  private byName: Map<string, VolumeFacts[]> | undefined
  private duplicated: string[] | undefined
  /** null: not made yet. */
  private classes: VolumeClasses | undefined | null = null

  constructor(
    private readonly cluster: ClusterLookup,
    private readonly gates: FeatureGates,
    private readonly nearestPassingOf: NearestPassingOf,
  ) {}

  /**
   * The same ranking rankCandidates gives `claim` (as the deciding sync sees it) with the near-miss tests of
   * nearestPassingOf(claim) when opts.nearestPassing.
   */
  rank(
    claim: PersistentVolumeClaim,
    path: MatchingPath,
    order: CandidateOrder,
    opts: GroupRankingOptions,
  ): CandidateRanking {
    const tests = opts.nearestPassing ? this.nearestPassingOf(claim) : []
    const group = this.groupOf(claim, path, opts)
    const own = this.ownVolumes(claim, opts.named)
    const ownNames = new Set(own.map((f) => f.volume.metadata.name ?? ''))
    const shared = (c: Candidate) => !ownNames.has(c.volume)
    // Volume names outside ownNames are unique (ownVolumes), so the name finds the volume again.
    const asClaimSees = group.reworded
      ? (c: Candidate) =>
          judgeCandidate(this.cluster, this.volumesNamed(c.volume)[0], claim, path, this.gates).candidate
      : (c: Candidate) => c
    const kept = group.ranking.nearest.slice(0, group.keep)
    if (
      !covers(kept, group.keep, opts.keep, shared) ||
      tests.some((t, i) => !covers(group.passing[i], t.count + GROUP_SLACK, t.count, shared))
    ) {
      // The claim's own volumes take so many places among the group's nearest that fewer than the claim
      // keeps are left, and what the group did not keep is unknown: rank this claim alone. A safeguard: its
      // own volumes rank for a claim as high as for the stand-in (a claimRef naming it takes reasons away),
      // but for the one it names by spec.volumeName, so with GROUP_SLACK ≥ 1 the merge below is exact anyway.
      // It keeps the merge exact should a reason ever rank a claim's own volumes lower.
      return rankCandidates(this.cluster, claim, path, this.gates, order, {...opts, nearestPassing: tests})
    }
    let {total, eligible} = group.ranking
    const mine: Candidate[] = []
    for (const facts of own) {
      // Out of the group's counts as the stand-in saw it, into the claim's as the claim sees it.
      const asGroup = judgeCandidate(this.cluster, facts, group.standIn, group.path, this.gates)
      if (!opts.onlyRelevant || asGroup.relevant) {
        total--
        if (asGroup.candidate.eligible) eligible--
      }
      const judged = judgeCandidate(this.cluster, facts, claim, path, this.gates)
      if (opts.onlyRelevant && !judged.relevant) continue
      total++
      if (judged.candidate.eligible) eligible++
      mine.push(judged.candidate)
    }
    // The group's nearest are the claim's too once its own volumes are taken out and put back as judged.
    const nearestOf = (groupNearest: readonly Candidate[], test: (c: Candidate) => boolean, count: number) =>
      [...groupNearest.filter(shared).map(asClaimSees), ...mine.filter(test)].sort(order).slice(0, count)
    const passing = tests.flatMap((t, i) => nearestOf(group.passing[i], t.test, t.count))
    const extra = [...mine.filter((c) => opts.named.includes(c.volume)), ...passing]
    const nearest = [...new Set([...nearestOf(kept, () => true, opts.keep), ...extra])].sort(order)
    return {nearest, total, eligible}
  }

  /** The group of the claim's request, ranked when first asked for. */
  private groupOf(claim: PersistentVolumeClaim, path: MatchingPath, opts: GroupRankingOptions): RequestGroup {
    // Near misses only for the claims whose verdict names them: a group that keeps them judges every volume
    // in full until it has found them all (rankCandidates), so the claims that need none get a group of their own.
    const key = requestKeyText(claim, path, opts.keep, opts.onlyRelevant, opts.nearestPassing)
    let group = this.groups.get(key)
    if (group === undefined) {
      const {standIn, path: standInPath} = this.standInFor(claim, path)
      const keep = opts.keep + GROUP_SLACK
      const tests = opts.nearestPassing
        ? this.nearestPassingOf(standIn).map((t) => ({test: t.test, count: t.count + GROUP_SLACK}))
        : []
      const rankingOpts = {keep, onlyRelevant: opts.onlyRelevant, named: [], nearestPassing: tests}
      const order = candidateOrder(standIn, null)
      const classes = this.volumeClasses()
      const ranking =
        classes !== undefined
          ? classes.rank(standIn, standInPath, this.gates, order, rankingOpts)
          : rankCandidates(this.cluster, standIn, standInPath, this.gates, order, rankingOpts)
      // The nearest of each test are all in `nearest` (rankCandidates keeps them), in order.
      const passing = tests.map((t) => ranking.nearest.filter(t.test).slice(0, t.count))
      group = {standIn, path: standInPath, reworded: standInPath !== path, ranking, passing, keep}
      this.groups.set(key, group)
    }
    return group
  }

  /**
   * The claim's request under a name that no claimRef and no volume in the state bears: judged as every
   * other claim would be. A claim that names a volume is stood in for by one naming no volume (that name).
   */
  private standInFor(
    claim: PersistentVolumeClaim,
    path: MatchingPath,
  ): {standIn: PersistentVolumeClaim; path: MatchingPath} {
    let name = 'pvctl-request-group'
    for (let i = 2; this.cluster.volumesClaiming(`/${name}`).length > 0 || this.volumesNamed(name).length > 0; i++)
      name = `pvctl-request-group-${i}`
    const {uid: _uid, ...metadata} = claim.metadata
    const standIn = {...claim, metadata: {...metadata, namespace: '', name}}
    if (path.kind === 'index' || path.volumeName === '') return {standIn, path}
    return {standIn: {...standIn, spec: {...standIn.spec, volumeName: name}}, path: {kind: path.kind, volumeName: name}}
  }

  /**
   * The volumes judged for the claim itself: every volume bearing a name it names, and those whose claimRef
   * names it (whatever the uid).
   */
  private ownVolumes(claim: PersistentVolumeClaim, named: readonly string[]): VolumeFacts[] {
    // `named` holds spec.volumeName, the volume the requested and bound paths judge apart from the others.
    // A name that two volumes bear is judged apart too: a candidate's name finds any other volume again.
    const names = new Set([...named, ...this.sharedNames()])
    for (const v of this.cluster.volumesClaiming(claimKey(claim))) names.add(v.metadata.name ?? '')
    return [...names].flatMap((n) => this.volumesNamed(n))
  }

  /** The volumes in classes judged alike, made on first use; undefined when they cannot be (see VolumeClasses.of). */
  private volumeClasses(): VolumeClasses | undefined {
    if (this.classes === null) this.classes = VolumeClasses.of(this.cluster)
    return this.classes
  }

  private volumesNamed(name: string): readonly VolumeFacts[] {
    if (this.cluster.volumeNamesUnique) {
      const volume = this.cluster.volumeByName(name)
      return volume === undefined ? [] : [this.cluster.factsOf(volume)]
    } else {
      // Two volumes of one name: the lookup finds one of them.
    }
    this.byName ??= groupBy(
      this.cluster.allFacts().map((f): [string, VolumeFacts] => [f.volume.metadata.name ?? '', f]),
    )
    return this.byName.get(name) ?? []
  }

  /** The names more than one volume bears (the informer cache would keep one; a snapshot may hold both). */
  private sharedNames(): string[] {
    if (this.cluster.volumeNamesUnique) return []
    return (this.duplicated ??= this.cluster.volumes
      .map((v) => v.metadata.name ?? '')
      .filter((name) => this.volumesNamed(name).length > 1))
  }
}

/**
 * Everything judge, candidateOrder, isRelevant and the near-miss tests read of a claim that is not its
 * identity, for its path: two claims with one key get the same reasons from every volume not their own.
 */
function requestKey(claim: PersistentVolumeClaim, path: MatchingPath): unknown[] {
  const storage = claim.spec.resources?.requests?.storage
  switch (path.kind) {
    case 'index': {
      const {accessModes, volumeMode, selector, volumeAttributesClassName, volumeName} = claim.spec
      return [
        path.kind,
        path.claimClass,
        path.delayBinding,
        path.node?.name,
        storage,
        accessModes,
        volumeMode,
        selector,
        volumeAttributesClassName,
        volumeName,
      ]
    }
    case 'requested':
    case 'bound':
      // Every volume but the one named is refused alike (NotConsidered, in words naming that one): ranked by
      // size. A bound claim without a volume name is compared with spec.volumeName as it is ("" or unset).
      return [path.kind, path.volumeName === '' ? claim.spec.volumeName : 'names its volume', storage]
  }
}

/**
 * requestKey as one string, after `prefix`: two claims with one text get the same reasons from every volume
 * whose claimRef names neither of them and that neither names. Unset and null are not the same request (a
 * null storage does not parse): JSON alone would merge them.
 */
export function requestKeyText(claim: PersistentVolumeClaim, path: MatchingPath, ...prefix: unknown[]): string {
  return JSON.stringify([...prefix, requestKey(claim, path)], (_, v: unknown) => (v === undefined ? {unset: true} : v))
}

/** Whether the nearest `have` of a ranking, less the claim's own volumes, still hold the nearest `need`. */
function covers(nearest: readonly Candidate[], have: number, need: number, shared: (c: Candidate) => boolean): boolean {
  // Fewer than it could hold: the ranking kept every candidate there is.
  return nearest.length < have || nearest.filter(shared).length >= need
}
