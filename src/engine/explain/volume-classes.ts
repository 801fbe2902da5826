// The volumes of a state in classes that a request group's stand-in judges alike, so that ranking the
// nearest volumes of a request visits the classes (159 among the benchmark's 100k volumes), not every
// volume: `pvctl explain -A` of a large cluster is no longer requests × volumes.
//
// A stand-in (explain-request-groups.ts) is named by no claimRef and names no volume. What judge makes of
// a volume for it depends on what judgedAlikeParts reads (explain-candidates.ts), on the volume's size
// (CapacityTooSmall, and the distance candidateOrder ranks by), its name (the last tie-break) and its labels
// (one SelectorMismatch per requirement they miss), nothing else. So the volumes of one class, on one side
// of the request (big enough or not) and missing as many requirements, share their reasons by code, their
// eligibility, relevance and near-miss test answers, and rank among themselves by distance, then name: a
// sorted stream, judged once through its first volume. The nearest of the request are merged from the
// streams with the fewest reasons; only the volumes kept are judged in full.
//
// rankCandidates, judging every volume, stays the reference: a differential test holds the List printed
// from these rankings to the one ranked per claim. A state whose volumes a name or a size does not tell
// apart (two of one name, none, an unreadable capacity) is left to rankCandidates.
import TinyQueue from 'tinyqueue'

import {
  type CandidateOrder,
  type CandidateRanking,
  judgeCandidate,
  judgedAlikeParts,
  type MatchingPath,
  type RankingOptions,
  selectorMisses,
} from './candidates.js'
import type {ClusterLookup, VolumeFacts} from './lookup.js'
import type {Candidate} from './model.js'
import type {FeatureGates} from '../api/feature-gates.js'
import type {PersistentVolumeClaim} from '../api/model.js'
import {QuantityError} from '../api/quantity.js'
import {type CompiledSelector, type Labels, SelectorError} from '../api/selector.js'
import {lowerIndex} from '../matching/sorted-list.js'
import {compareNames, storageQuantity} from '../matching/volume-index.js'

interface Member {
  readonly facts: VolumeFacts
  readonly nanos: bigint
  /** The same as a double: ordered as the nanos are, and cheaper to compare (bySizeThenName). */
  readonly size: number
  readonly name: string
  readonly labels: LabelClass
}

/**
 * Numbers for the parts of judgedAlikeParts and for labels: one number for values of one JSON text, a
 * different one for any other. The keys of a class and of a label set are made of these few digits, not of
 * the JSON texts: hashing and comparing those texts, a hundred characters for each of 100k volumes, was
 * most of making the classes.
 */
class JsonTextIds {
  private readonly strings = new Map<string, number>()
  /** Values other than strings, by their JSON text as it stands in an array (undefined as null). */
  private readonly others = new Map<string, number>()
  private next = 0

  id(value: unknown): number {
    if (typeof value === 'string') {
      // Two strings have one JSON text exactly when they are the same string.
      return this.idIn(this.strings, value)
    } else {
      return this.idIn(this.others, value === undefined ? 'null' : JSON.stringify(value))
    }
  }

  /** The key of the parts: the same exactly when their JSON texts, in order, are. */
  keyOf(parts: readonly unknown[]): string {
    let key = ''
    for (let i = 0; i < parts.length; i++) key += `${this.id(parts[i])},`
    return key
  }

  private idIn(byKey: Map<string, number>, key: string): number {
    let id = byKey.get(key)
    if (id === undefined) byKey.set(key, (id = this.next++))
    return id
  }

  /** The same key for the same labels in any order: each key and value by its number, keys sorted. */
  labelSetKey(labels: Labels | undefined): string {
    if (labels == null) return ''
    const keys = Object.keys(labels)
    if (keys.length > 1) keys.sort(compareNames)
    let key = ''
    for (const k of keys) key += `${this.id(k)}:${this.id(labels[k])},`
    return key
  }
}

/** Members by size, then name: a Stream walks them up from the request's size, or down from it. */
type Sorted = readonly Member[]

/** One label set of a class's volumes, shared by its members: a selector is tried on it once. */
interface LabelClass {
  readonly labels: Labels
  /** Its place in its class's byLabels. */
  readonly index: number
}

/** The volumes of one key of judgedAlikeParts, and the label sets they bear. */
interface VolumeClass {
  readonly members: Member[]
  readonly byLabels: LabelClass[]
}

/** The members of a class by how many of a selector's requirements their labels miss (the index), each by size then name. */
type ByMisses = ReadonlyArray<Sorted | undefined>

/** How many selectors' splits are kept: a List meets a few selectors over and over. */
const SPLITS_KEPT = 16

/** One side of a class (big enough for the request or not), judged through its nearest volume. */
interface Side {
  readonly cls: VolumeClass
  readonly fits: boolean
  /** Its reasons but the SelectorMismatch ones (all of them, without a selector with requirements). */
  readonly base: number
}

export class VolumeClasses {
  /** The split of each class by misses, per selector text, the most recently used last. */
  private readonly splits = new Map<string, Map<VolumeClass, ByMisses>>()

  private constructor(
    private readonly cluster: ClusterLookup,
    private readonly classes: readonly VolumeClass[],
  ) {}

  /** The classes of the cluster's volumes; undefined when a name or a size does not tell its volumes apart. */
  static of(cluster: ClusterLookup): VolumeClasses | undefined {
    // Two volumes of one name tie in candidateOrder (the earlier in the state wins), and a name finds
    // one of them only: ranking them is rankCandidates' part.
    if (!cluster.volumeNamesUnique) return undefined
    const byKey = new Map<string, {members: Member[]; byLabels: Map<string, LabelClass>}>()
    const ids = new JsonTextIds()
    for (const facts of cluster.allFacts()) {
      const name = facts.volume.metadata.name ?? ''
      if (name === '') return undefined
      let nanos: bigint
      try {
        nanos = storageQuantity(facts.volume.spec.capacity).nanos
      } catch (err) {
        if (err instanceof QuantityError) return undefined
        throw err
      }
      const key = ids.keyOf(judgedAlikeParts(facts))
      let cls = byKey.get(key)
      if (cls === undefined) byKey.set(key, (cls = {members: [], byLabels: new Map()}))
      const labels = facts.volume.metadata.labels
      const labelKey = ids.labelSetKey(labels)
      let labelClass = cls.byLabels.get(labelKey)
      if (labelClass === undefined) cls.byLabels.set(labelKey, (labelClass = {labels, index: cls.byLabels.size}))
      cls.members.push({facts, nanos, size: Number(nanos), name, labels: labelClass})
    }
    const classes = [...byKey.values()].map((c) => ({
      members: c.members.sort(bySizeThenName),
      byLabels: [...c.byLabels.values()],
    }))
    return new VolumeClasses(cluster, classes)
  }

  /**
   * What rankCandidates(cluster, standIn, path, gates, order, opts) returns, `standIn` being a claim that no
   * claimRef names and that names no volume, and opts.named empty.
   */
  rank(
    standIn: PersistentVolumeClaim,
    path: MatchingPath,
    gates: FeatureGates,
    order: CandidateOrder,
    opts: RankingOptions,
  ): CandidateRanking {
    const requested = storageQuantity(standIn.spec.resources?.requests).nanos
    const judge = (m: Member) => judgeCandidate(this.cluster, m.facts, standIn, path, gates)
    const selector = this.rankingSelector(standIn, path)
    const all = selector?.requirements.length ?? 0
    // The selector's splits, looked up once for the ranking, not for every side of every tier.
    const splits = selector === undefined ? undefined : this.splitsBy(selector)
    const sides: Side[] = []
    let total = 0
    let eligible = 0
    let most = 0
    for (const cls of this.classes) {
      for (const fits of [true, false]) {
        const first = firstOfSide(cls.members, requested, fits)
        if (first === undefined) continue
        const judged = judge(first)
        // Labels take nothing from relevance: the side's relevance is its first volume's.
        if (opts.onlyRelevant && !judged.relevant) continue
        const size = sideSize(cls.members, requested, fits)
        total += size
        const base =
          judged.candidate.reasons.length - (selector === undefined ? 0 : selectorMisses(selector, first.labels.labels))
        sides.push({cls, fits, base})
        most = Math.max(most, base + all)
        if (base === 0) {
          const matching =
            selector === undefined || splits === undefined ? cls.members : split(selector, splits, cls)[0]
          eligible += matching === undefined ? 0 : sideSize(matching, requested, fits)
        }
      }
    }
    // The streams of each reason count, made when a ranking first reaches it.
    const tiers = new Map<number, Stream[]>()
    const tier = (reasons: number): Stream[] => {
      let streams = tiers.get(reasons)
      if (streams === undefined) {
        streams = []
        for (const {cls, fits, base} of sides) {
          const misses = reasons - base
          if (misses < 0 || misses > all) continue
          const members =
            selector === undefined || splits === undefined ? cls.members : split(selector, splits, cls)[misses]
          if (members !== undefined) streams.push(new Stream(members, requested, fits, reasons))
        }
        tiers.set(reasons, streams)
      }
      return streams
    }
    const judged = new Map<Member, Candidate>()
    const candidateOf = (m: Member, s: Stream): Candidate => {
      let c = judged.get(m)
      if (c === undefined) {
        c = judge(m).candidate
        if (c.reasons.length !== s.reasons)
          throw new Error(`invariant: volume ${m.name} has ${c.reasons.length} reasons, its class ${s.reasons}`)
        judged.set(m, c)
      }
      return c
    }
    const kept = new Set<Candidate>()
    for (const [m, s] of nearest(tier, most, opts.keep, () => true)) kept.add(candidateOf(m, s))
    for (const {test, count} of opts.nearestPassing) {
      // A stream answers a test as its first volume does: judged only for the streams reached.
      const passes = (s: Stream) => {
        const first = s.cursor().next()
        return first !== undefined && test(candidateOf(first, s))
      }
      for (const [m, s] of nearest(tier, most, count, passes)) kept.add(candidateOf(m, s))
    }
    return {nearest: [...kept].sort(order), total, eligible}
  }

  /**
   * The claim's selector when its labels rank the volumes: only one with requirements does (an invalid one,
   * or one matching everything or nothing, says the same of every volume).
   */
  private rankingSelector(standIn: PersistentVolumeClaim, path: MatchingPath) {
    const compiled =
      path.kind === 'index' && standIn.spec.selector != null ? this.cluster.selectorOf(standIn) : undefined
    return compiled instanceof SelectorError || compiled === undefined || compiled.kind !== 'requirements'
      ? undefined
      : compiled
  }

  /** The splits of the classes by the selector made so far, its text now the most recently used. */
  private splitsBy(selector: CompiledSelector): Map<VolumeClass, ByMisses> {
    const text = selector.toString()
    let byClass = this.splits.get(text)
    if (byClass === undefined) {
      byClass = new Map()
      if (this.splits.size === SPLITS_KEPT) {
        // The least recently used: the first key (a use moves its text last).
        const oldest = this.splits.keys().next()
        if (oldest.done !== true) this.splits.delete(oldest.value)
      }
    } else {
      this.splits.delete(text)
    }
    this.splits.set(text, byClass)
    return byClass
  }
}

/**
 * A class's members by how many of the selector's requirements they miss, made when first asked for (and
 * kept in `splits`, the selector's): each label set is tried once, and each member filed in order, so that
 * the lists stay sorted. As many streams as the selector has requirements (and one), however many label
 * sets the volumes bear.
 */
function split(selector: CompiledSelector, splits: Map<VolumeClass, ByMisses>, cls: VolumeClass): ByMisses {
  let byMisses = splits.get(cls)
  if (byMisses === undefined) {
    // By the label set's place: a look-up by index for each member, not by object in a Map.
    const missesOf = cls.byLabels.map((l) => selectorMisses(selector, l.labels))
    const made: Member[][] = []
    for (const m of cls.members) (made[missesOf[m.labels.index]] ??= []).push(m)
    byMisses = made
    splits.set(cls, byMisses)
  }
  return byMisses
}

function bySizeThenName(a: Member, b: Member): number {
  // Number() never reverses the order of two bigints, it may only make close ones equal: then the bigints.
  if (a.size !== b.size) return a.size < b.size ? -1 : 1
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : compareNames(a.name, b.name)
}

/** The index of the first member at least `nanos` large (members.length when none is). */
function lowerBound(members: Sorted, nanos: bigint): number {
  return lowerIndex(members, (m) => m.nanos >= nanos)
}

/** The nearest member of a side: the smallest big enough one, or the largest too small (first by name). */
function firstOfSide(members: Sorted, requested: bigint, fits: boolean): Member | undefined {
  const start = lowerBound(members, requested)
  if (fits) return members[start]
  return start === 0 ? undefined : members[lowerBound(members, members[start - 1].nanos)]
}

/** How many of the members are big enough for the request (fits) or too small. */
function sideSize(members: Sorted, requested: bigint, fits: boolean): number {
  const start = lowerBound(members, requested)
  return fits ? members.length - start : start
}

/**
 * One side of a class (or of its members that miss as many of a selector's requirements) as candidateOrder
 * ranks it: those big enough from the smallest up, those too small from the largest down, each size by
 * name. All have `reasons` reasons.
 */
class Stream {
  /** The first member big enough. */
  private readonly start: number

  constructor(
    private readonly members: Sorted,
    readonly requested: bigint,
    private readonly fits: boolean,
    readonly reasons: number,
  ) {
    this.start = lowerBound(members, requested)
  }

  cursor(): {next(): Member | undefined} {
    const members = this.members
    if (this.fits) {
      let i = this.start
      return {next: () => members[i++]}
    }
    // Sizes from the largest down; within a size, names up.
    let runEnd = this.start
    let runStart = runEnd
    let i = runEnd
    return {
      next: () => {
        if (i === runEnd) {
          if (runStart === 0) return undefined
          runEnd = runStart
          runStart = lowerBound(members, members[runEnd - 1].nanos)
          i = runStart
        }
        return members[i++]
      },
    }
  }
}

/**
 * The `limit` nearest members of the streams that `accept`, with their streams: a reason count at a time
 * (`tier`, up to `most`), the streams of one count merged by distance from the request, then name.
 */
function nearest(
  tier: (reasons: number) => readonly Stream[],
  most: number,
  limit: number,
  accept: (s: Stream) => boolean,
): Array<[Member, Stream]> {
  const out: Array<[Member, Stream]> = []
  for (let reasons = 0; reasons <= most && out.length < limit; reasons++) {
    let heads: TinyQueue<Head> | undefined
    for (const s of tier(reasons)) {
      if (!accept(s)) continue
      const cursor = s.cursor()
      const m = cursor.next()
      if (m !== undefined) (heads ??= headQueue(s.requested)).push({m, s, cursor})
    }
    while (heads !== undefined && out.length < limit) {
      // pop() answers undefined once the queue is empty.
      const head = heads.pop()
      if (head === undefined) break
      out.push([head.m, head.s])
      const m = head.cursor.next()
      if (m !== undefined) heads.push({...head, m})
    }
  }
  return out
}

interface Head {
  m: Member
  s: Stream
  cursor: {next(): Member | undefined}
}

/** Stream heads, nearest to the request first, then by name. */
function headQueue(requested: bigint): TinyQueue<Head> {
  return new TinyQueue<Head>([], (a, b) => {
    const da = distance(a.m.nanos, requested)
    const db = distance(b.m.nanos, requested)
    return da !== db ? (da < db ? -1 : 1) : compareNames(a.m.name, b.m.name)
  })
}

function distance(nanos: bigint, requested: bigint): bigint {
  return nanos < requested ? requested - nanos : nanos - requested
}
