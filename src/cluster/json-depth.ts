// How deep a JSON answer nests, measured on its bytes as they arrive, before anything parses it. No
// object of the kinds pvctl reads nests more than a few dozen levels; an answer that nests thousands
// deep is not an object of the cluster, and the code that walks the parsed objects (copies, diffs,
// JSON.stringify of a write) recurses and would fail far from the request that brought it.
//
// The limit is Kubernetes' own: apimachinery's JSON decoding (k8s.io/apimachinery/pkg/util/json,
// `maxDepth = 10000`, added for CVE-2019-11253) and Go's encoding/json refuse to decode deeper, so no
// object the API server stored nests deeper. A List wraps its objects two levels down (the List, then
// its items array), hence the response limit of 10,002.
//
// The scan is a loop over bytes that counts unquoted brackets: string contents, the bulk of an
// object's bytes, are skipped with Buffer.indexOf (native memchr) rather than byte by byte.

/** apimachinery's util/json maxDepth: the deepest nesting the API server decodes. */
export const MAX_OBJECT_DEPTH = 10_000

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

/** The number of backslashes right before `end`, not looking before `start`. */
function trailingBackslashes(chunk: Buffer, start: number, end: number): number {
  let k = end
  while (k > start && chunk[k - 1] === BACKSLASH) k--
  return end - k
}
