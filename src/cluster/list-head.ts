// The continue token of a LIST page, read from the first bytes of the answer as they arrive, so that the
// next page can be asked for while this one is still being received and parsed (live-loader.ts reads
// one page ahead). kube-apiserver writes a List's metadata before its items —
// `{"kind":"…List","apiVersion":"v1","metadata":{"resourceVersion":"…","continue":"…"},"items":[…]}` —
// and the emulator does too; an answer in another order, or one whose head does not parse, yields no
// token, and the pages are read one after the other.
//
// The token read here only starts a request early: the page's own parse decides. The loader uses what
// that request brings only when the token equals the parsed page's metadata.continue (and the page
// passed every check of answer-shape.ts); otherwise the early request is aborted and its answer dropped.

/** How far into an answer the metadata is looked for: a List's head is a few hundred bytes. */
export const MAX_HEAD_BYTES = 64 * 1024

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/** What the head says: a token, that the page is the last one, or nothing to go by. */
export type ListHead = {continueToken: string} | {last: true} | {unknown: true}

/**
 * Fed the answer's chunks in order; `feed` returns the head once the top-level metadata object has been
 * read whole (or once it is clear the head will not say: items first, past MAX_HEAD_BYTES, not an object),
 * and undefined while it needs more bytes. After it has returned a head, it is done.
 */
export class ListHeadReader {
  private head: Buffer = Buffer.alloc(0)
  /** Bytes of `head` already scanned. */
  private scanned = 0
  private depth = 0
  private inString = false
  private escaped = false
  /** Where the last string at depth 1 began and ended (end exclusive): a key once a colon follows. */
  private lastString: [number, number] | undefined
  /** The top-level key whose value comes next. */
  private key: string | undefined
  private metadataStart: number | undefined
  private lastStringStart = 0
  done = false

  feed(chunk: Buffer): ListHead | undefined {
    if (this.done) return undefined
    this.head = this.head.length === 0 ? chunk : Buffer.concat([this.head, chunk])
    const head = this.scan()
    if (head !== undefined) {
      this.done = true
      this.head = Buffer.alloc(0)
    } else if (this.head.length >= MAX_HEAD_BYTES) {
      this.done = true
      this.head = Buffer.alloc(0)
      return {unknown: true}
    } else {
      // The metadata goes on in the next chunk.
    }
    return head
  }

  private scan(): ListHead | undefined {
    const b = this.head
    for (let i = this.scanned; i < b.length; i++) {
      const c = b[i]!
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === BACKSLASH) this.escaped = true
        else if (c === QUOTE) {
          this.inString = false
          if (this.depth === 1) this.lastString = [this.lastStringStart, i + 1]
        } else {
          // A byte of the string.
        }
        continue
      }
      if (c === QUOTE) {
        this.inString = true
        this.lastStringStart = i
      } else if (c === COLON) {
        if (this.depth === 1 && this.lastString !== undefined) this.key = keyOf(b, this.lastString)
      } else if (c === COMMA) {
        if (this.depth === 1) this.key = undefined
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (this.depth === 0 && c !== OPEN_BRACE) return {unknown: true}
        this.depth++
        // The items before the metadata: the token would come after every object of the page.
        if (this.depth === 2 && this.key === 'items') return {unknown: true}
        if (this.depth === 2 && this.key === 'metadata' && c === OPEN_BRACE) this.metadataStart = i
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--
        if (this.depth === 1 && this.metadataStart !== undefined) {
          this.scanned = i + 1
          return headOf(b.subarray(this.metadataStart, i + 1))
        }
        if (this.depth <= 0) return {unknown: true}
      } else {
        // Whitespace, a number or a literal.
      }
    }
    this.scanned = b.length
    return undefined
  }
}

function keyOf(b: Buffer, [start, end]: [number, number]): string | undefined {
  try {
    const key: unknown = JSON.parse(b.toString('utf8', start, end))
    return typeof key === 'string' ? key : undefined
  } catch {
    return undefined
  }
}

/** The metadata object's token: a non-empty string continues, none (or an empty one) ends the list. */
function headOf(metadata: Buffer): ListHead {
  let meta: unknown
  try {
    meta = JSON.parse(metadata.toString('utf8'))
  } catch {
    return {unknown: true}
  }
  const token = (meta as {continue?: unknown}).continue
  if (token === undefined || token === '') return {last: true}
  return typeof token === 'string' ? {continueToken: token} : {unknown: true}
}
