// How deep a JSON answer nests, measured on its bytes as they arrive, before anything parses it. No
// object of the kinds pvctl reads nests more than a few dozen levels; an answer that nests thousands
// deep is not an object of the cluster, and the code that walks the parsed objects (copies, diffs,
// JSON.stringify of a write) recurses and would fail far from the request that brought it.
//
// The limit is lower than Kubernetes' own (apimachinery's JSON decoding, k8s.io/apimachinery/pkg/util/json,
// `maxDepth = 10000`, added for CVE-2019-11253): the code that walks the parsed objects (JSON.stringify of a
// write or a report, structuredClone) recurses, and Node's default stack gives out near 5,000 levels. 1,000
// is far beyond any object of these kinds and well within the stack. A List wraps its objects two levels
// down (the List, then its items array), hence the response limit of 1,002. Snapshots are held to the same
// limit (snapshot.ts), so that a file and a cluster are read alike.
//
// The scan is a loop over bytes that counts unquoted brackets: string contents, the bulk of an
// object's bytes, are skipped with Buffer.indexOf (native memchr) rather than byte by byte.

/** The deepest nesting of an object pvctl reads (the API server's own limit is 10,000: see above). */
export const MAX_OBJECT_DEPTH = 1_000

/** The deepest nesting of an answer: a List's objects sit two levels down (the List, its items). */
export const MAX_ANSWER_DEPTH = MAX_OBJECT_DEPTH + 2

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/** Tracks the nesting of a JSON text fed in chunks; string and escape state carry across chunks. */
export class JsonDepthGauge {
  private depth = 0
  private inString = false
  /** The last byte of the previous chunk was an unescaped backslash inside a string. */
  private escaped = false
  /** The deepest nesting seen so far. */
  deepest = 0

  constructor(readonly limit: number = MAX_ANSWER_DEPTH) {}

  /** Feeds the next chunk; false once the nesting has gone past the limit (the rest need not be read). */
  feed(chunk: Buffer): boolean {
    let i = 0
    const n = chunk.length
    if (this.escaped && n > 0) {
      // The escaped byte opens the chunk: it cannot end the string.
      this.escaped = false
      i = 1
    }
    while (i < n) {
      if (this.inString) {
        const quote = chunk.indexOf(QUOTE, i)
        if (quote === -1) {
          // The string goes on in the next chunk: does this one end inside an escape?
          this.escaped = trailingBackslashes(chunk, i, n) % 2 === 1
          return true
        }
        // A quote preceded by an odd run of backslashes is escaped and the string goes on.
        if (trailingBackslashes(chunk, i, quote) % 2 === 1) {
          i = quote + 1
          continue
        }
        this.inString = false
        i = quote + 1
        continue
      }
      const c = chunk[i++]
      if (c === QUOTE) {
        this.inString = true
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++this.depth > this.deepest) {
          this.deepest = this.depth
          if (this.depth > this.limit) return false
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--
      } else {
        // Whitespace, a comma, a colon, a number or a literal: no nesting.
      }
    }
    return true
  }
}

/**
 * Whether a parsed value (a snapshot's document, a watch event) nests deeper than `limit`. Recursive, and
 * so cheap (a walk of a 100k-object dump takes less than a tenth of its JSON.parse), but never deeper than
 * `limit` frames: it stops at the first value past it, well within the stack.
 */
export function valueNestsDeeper(value: unknown, limit: number = MAX_ANSWER_DEPTH): boolean {
  return value !== null && typeof value === 'object' && deeper(value, 1, limit)
}

/**
 * Whether the object `v`, itself at `depth`, nests deeper than `limit`. Its members are tested where they
 * are read: most are strings and numbers, and a call for each would be most of the walk.
 */
function deeper(v: object, depth: number, limit: number): boolean {
  if (depth > limit) return true
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const member: unknown = v[i]
      if (member !== null && typeof member === 'object' && deeper(member, depth + 1, limit)) return true
    }
  } else {
    for (const key in v) {
      const member = (v as Record<string, unknown>)[key]
      if (member !== null && typeof member === 'object' && deeper(member, depth + 1, limit)) return true
    }
  }
  return false
}

/** The number of backslashes right before `end`, not looking before `start`. */
function trailingBackslashes(chunk: Buffer, start: number, end: number): number {
  let k = end
  while (k > start && chunk[k - 1] === BACKSLASH) k--
  return end - k
}
