// resource.Quantity, as k8s.io/apimachinery/pkg/api/resource parses and compares it.
//
// The PV controller decides binding by comparing a claim's request with a volume's capacity
// (Quantity.Cmp), and Kubernetes code reads whole sizes through Quantity.Value(). A float64 cannot tell
// "9007199254740993" from "9007199254740992", nor "0.1" exactly, so every value here is an exact
// BigInt count of nano-units (10^-9). That is lossless, not an approximation: Kubernetes itself keeps a parsed
// value only down to nano, rounding anything finer away from zero, so every parsed quantity is an
// integer number of nanos.
//
// The scanner below is a line-for-line port of parseQuantityString, not a regular expression, because
// Kubernetes' scanner is more permissive than the regular expression its error message quotes: it
// accepts "1.", ".5", "." and even a bare suffix such as "Gi" (all parse, the last two as zero). The
// port keeps those quirks so that pvctl accepts and rejects exactly what an API server does.
//
// Deliberate divergences, each unreachable from an object an API server has stored:
//   - Value() in Go silently overflows int64 past 2^63-1; quantityValue returns the exact bigint.
//   - Go keeps an arbitrarily large decimal exponent symbolically ("1e999999999"); here a non-zero
//     value above 10^MAX_DECIMAL_EXPONENT, written with an exponent or with its digits ("1" and a
//     thousand and one zeros), throws QuantityError (reason 'range') instead of building a BigInt of a
//     billion digits.
//   - ParseQuantity reads a string of any length; an API server never holds one longer than an object
//     may be (etcd keeps at most 1.5 MiB a request). Here a string longer than MAX_QUANTITY_LENGTH throws
//     QuantityError (reason 'range'): every value kept above fits in it, so a longer string is only
//     padding (leading zeros, digits finer than a nano, which Kubernetes rounds away) or a value past
//     the bound, and reading it, or printing it back in explanations and reports, costs what the size of a
//     snapshot allows (50 MB of digits, printed in every reason that names the volume's size).
//   - int32 wrap-around in Go's inf.Scale arithmetic for exponents near ±2^31 is not reproduced; such a
//     tiny value rounds up to ±1n, as the mathematics says.

/** The three serialization families of a quantity's suffix, as Kubernetes names them. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent'

export interface Quantity {
  /** The exact value in units of 10^-9 (so "1" is 1_000_000_000n and "1n" is 1n). */
  readonly nanos: bigint
  /** The suffix family the string used; informational (only formatting uses it in Kubernetes). */
  readonly format: QuantityFormat
}

/** Why a string is not a quantity. The message is Kubernetes' own wording where it has one. */
export type QuantityErrorReason = 'format' | 'numeric' | 'suffix' | 'range'

/** Above 10^this many units a non-zero quantity is refused rather than materialized (see the header). */
export const MAX_DECIMAL_EXPONENT = 1000

/**
 * The longest quantity string read (see the header): 10^MAX_DECIMAL_EXPONENT written out in digits, its
 * nanos, a sign and a suffix fit in it.
 */
export const MAX_QUANTITY_LENGTH = 1024

const SPLIT_RE_STRING = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'

// The texts of ErrFormatWrong, ErrNumeric and ErrSuffix, so that pvctl reports a bad quantity in the
// same words as kubectl and the API server. 'range' is pvctl's own (see the header).
const MESSAGES: Record<QuantityErrorReason, string> = {
  format: `quantities must match the regular expression '${SPLIT_RE_STRING}'`,
  numeric: 'unable to parse numeric part of quantity',
  suffix: "unable to parse quantity's suffix",
  range: `quantity is too large: its decimal exponent exceeds ${MAX_DECIMAL_EXPONENT}`,
}

export class QuantityError extends Error {
  constructor(
    /** The string that failed to parse. */
    readonly input: string,
    readonly reason: QuantityErrorReason,
    message: string = MESSAGES[reason],
  ) {
    super(message)
    this.name = 'QuantityError'
  }
}

const NANOS_PER_UNIT = 1_000_000_000n
const NANO_EXPONENT = -9
// ParseQuantity caps a BinarySI quantity at math.MaxInt64 units, silently (kubernetes/kubernetes#140674):
// "8Ei" is 2^63 but parses as 2^63-1. Decimal quantities are not capped.
const MAX_INT64 = (1n << 63n) - 1n
const MAX_BINARY_NANOS = MAX_INT64 * NANOS_PER_UNIT
const INT64_MIN = -(1n << 63n)

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
])

const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
])

const SUFFIX_CHARS = 'eEinumkKMGTP'

interface Scanned {
  positive: boolean
  /** The signed number as written (sign, digits, '.'), which Go hands to inf.Dec.SetString. */
  value: string
  /** Integer digits with leading zeros stripped; "0" when there were none. */
  num: string
  /** Fraction digits as written. */
  denom: string
  suffix: string
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9'
}

// A port of parseQuantityString. Kept as a scanner (not a regular expression) because its exact
// acceptance set is the contract; see the header.
function scanQuantity(str: string): Scanned {
  let positive = true
  let pos = 0
  const end = str.length

  if (pos < end) {
    if (str[0] === '-') {
      positive = false
      pos++
    } else if (str[0] === '+') {
      pos++
    }
  }

  // Strip leading zeros. A string of only zeros (or only a sign) is zero, whatever follows would be.
  for (let i = pos; ; i++) {
    if (i >= end) return {positive, value: '0', num: '0', denom: '', suffix: ''}
    if (str[i] !== '0') break
    pos++
  }

  let num = ''
  for (let i = pos; ; i++) {
    if (i >= end) {
      return {positive, value: str.slice(0, end), num: str.slice(pos, end), denom: '', suffix: ''}
    }
    if (!isDigit(str[i])) {
      num = str.slice(pos, i)
      pos = i
      break
    }
  }
  if (num.length === 0) num = '0'

  let denom = ''
  if (pos < end && str[pos] === '.') {
    pos++
    for (let i = pos; ; i++) {
      if (i >= end) {
        return {positive, value: str.slice(0, end), num, denom: str.slice(pos, end), suffix: ''}
      }
      if (!isDigit(str[i])) {
        denom = str.slice(pos, i)
        pos = i
        break
      }
    }
    // Kubernetes allows "1.G" (an empty fraction), with a TODO to forbid it one day.
  }
  const value = str.slice(0, pos)

  // The suffix: letters from the suffix alphabet, then an optional sign and digits (an exponent).
  const suffixStart = pos
  for (let i = pos; ; i++) {
    if (i >= end) return {positive, value, num, denom, suffix: str.slice(suffixStart, end)}
    if (!SUFFIX_CHARS.includes(str[i])) {
      pos = i
      break
    }
  }
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++
  for (let i = pos; ; i++) {
    if (i >= end) return {positive, value, num, denom, suffix: str.slice(suffixStart, end)}
    if (!isDigit(str[i])) break
  }
  // A character that is neither a suffix letter nor part of an exponent.
  throw new QuantityError(str, 'format')
}

interface Suffix {
  base: 2 | 10
  exponent: number
  format: QuantityFormat
}

// A port of suffixHandler.interpret: the fixed tables first, then "e"/"E" followed by an int64.
function interpretSuffix(suffix: string): Suffix | undefined {
  const dec = DECIMAL_SUFFIXES.get(suffix)
  if (dec !== undefined) return {base: 10, exponent: dec, format: 'DecimalSI'}
  const bin = BINARY_SUFFIXES.get(suffix)
  if (bin !== undefined) return {base: 2, exponent: bin, format: 'BinarySI'}

  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const digits = suffix.slice(1)
    // strconv.ParseInt(s, 10, 64): an optional sign, at least one digit, in int64 range.
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined
    const parsed = BigInt(digits)
    if (parsed > MAX_INT64 || parsed < INT64_MIN) return undefined
    // Go narrows the exponent with int32(parsed); reproduce the wrap so "1e4294967296" is 1, as there.
    return {base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent'}
  }
  return undefined
}

function ceilDiv(n: bigint, d: bigint): bigint {
  const q = n / d
  return n % d === 0n ? q : q + 1n
}

/**
 * Parses a quantity string exactly as resource.ParseQuantity does: same accepted strings, same value
 * (rounded up to nano, BinarySI capped at 2^63-1), same error text. No whitespace is trimmed; callers
 * holding JSON-decoded input get what Kubernetes' UnmarshalJSON would see only after trimming.
 */
export function parseQuantity(s: string): Quantity {
  const known = parsedQuantities.get(s)
  if (known !== undefined) return known
  const q = parseQuantityText(s)
  if (parsedQuantities.size >= PARSED_LIMIT) parsedQuantities.clear()
  parsedQuantities.set(s, q)
  return q
}

/**
 * The quantities parsed so far, by text: a cluster's thousands of objects carry a few sizes ("10Gi"), and
 * every load, index entry and comparison parses them. A Quantity is immutable; a text that does not parse
 * is not kept (it throws every time). Bounded: emptied when full.
 */
const parsedQuantities = new Map<string, Quantity>()
const PARSED_LIMIT = 4096

function parseQuantityText(s: string): Quantity {
  // Snapshots are untyped YAML: a bare number there is not a quantity string, so say so plainly.
  if (typeof s !== 'string') {
    throw new QuantityError(String(s), 'format', `quantity must be a string, got ${typeof s}`)
  }
  if (s.length === 0) throw new QuantityError(s, 'format')
  if (s.length > MAX_QUANTITY_LENGTH) {
    throw new QuantityError(s, 'range', `quantity is too long: more than ${MAX_QUANTITY_LENGTH} characters`)
  }
  if (s === '0') return {nanos: 0n, format: 'DecimalSI'}

  const {positive, value, num, denom, suffix} = scanQuantity(s)
  const interpreted = interpretSuffix(suffix)
  if (interpreted === undefined) throw new QuantityError(s, 'suffix')
  const {base, exponent} = interpreted
  let format = interpreted.format

  if (!/[0-9]/.test(value)) {
    // No digit at all ("Gi", ".", "-.k"): Go's int64 fast path turns it into zero when the suffix keeps
    // it within that path's precision, and otherwise inf.Dec.SetString rejects the digit-less number.
    // Hence "Ti" is 0 but "Pi" is an error, in Kubernetes and here.
    const fastPath = base === 10 ? exponent >= NANO_EXPONENT : 13 - (3 * exponent) / 10 >= 0
    if (!fastPath) throw new QuantityError(s, 'numeric')
    return {nanos: 0n, format}
  }

  const digitString = num + denom
  const digits = BigInt(digitString)
  if (digits === 0n) return {nanos: 0n, format}

  let nanos: bigint
  if (base === 10) {
    // value = digits * 10^(exponent - len(denom)); nanos = value * 10^9, rounded up when finer.
    // The value's order of magnitude, whether it is written with an exponent or with digits ("1" and a
    // thousand zeros, "0.001e1003"): num has no leading zero, and the digits are not all zeros.
    const order = num !== '0' ? num.length - 1 + exponent : exponent - 1 - denom.search(/[1-9]/)
    if (order > MAX_DECIMAL_EXPONENT) throw new QuantityError(s, 'range')
    const shift = exponent - denom.length - NANO_EXPONENT
    if (shift >= 0) {
      nanos = digits * 10n ** BigInt(shift)
    } else if (-shift >= digitString.length) {
      // Less than one nano but not zero: Kubernetes rounds it up to the smallest unit it keeps.
      nanos = 1n
    } else {
      nanos = ceilDiv(digits, 10n ** BigInt(-shift))
    }
  } else {
    // value = digits * 2^exponent / 10^len(denom), rounded up to nano, then capped.
    nanos = ceilDiv(digits * (1n << BigInt(exponent)) * NANOS_PER_UNIT, 10n ** BigInt(denom.length))
    if (nanos > MAX_BINARY_NANOS) nanos = MAX_BINARY_NANOS
    // Kubernetes switches a BinarySI value strictly between 0 and 1 to DecimalSI, so it prints as "500m".
    if (nanos < NANOS_PER_UNIT) format = 'DecimalSI'
  }

  return {nanos: positive ? nanos : -nanos, format}
}

/** Whether parseQuantity would accept s. */
export function isValidQuantity(s: string): boolean {
  try {
    parseQuantity(s)
    return true
  } catch (err) {
    if (err instanceof QuantityError) return false
    throw err
  }
}

/** Quantity.Cmp: -1 if a < b, 0 if equal, 1 if a > b. Exact, whatever the suffixes. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  if (a.nanos < b.nanos) return -1
  if (a.nanos > b.nanos) return 1
  return 0
}

/**
 * Quantity.Value(): the value in whole units, rounded up to an integer away from zero ("1m" is 1,
 * "1.5" is 2, "-1.5" is -2). Unlike Go it cannot overflow: the result is exact.
 */
export function quantityValue(q: Quantity): bigint {
  const negative = q.nanos < 0n
  const magnitude = negative ? -q.nanos : q.nanos
  const units = ceilDiv(magnitude, NANOS_PER_UNIT)
  return negative ? -units : units
}
