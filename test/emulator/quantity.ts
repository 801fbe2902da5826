// resource.Quantity's value, as far as the emulator's validation compares quantities (a claim's storage
// request may not shrink). Its own small parser, not pvctl's (src/engine/api/quantity.ts): the emulator is the
// oracle pvctl is tested against, so it shares no code with it.

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
}
const DECIMAL: Record<string, number> = {n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18}
const QUANTITY = /^([+-]?)(\d+\.?\d*|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|[eE]([+-]?\d+)|(n|u|m|k|M|G|T|P|E)?)$/

/** The quantity as a fraction numerator / denominator (denominator > 0); undefined when it is not one. */
function fraction(text: string): [bigint, bigint] | undefined {
  const m = QUANTITY.exec(text)
  if (m === null) return undefined
  const [, sign, number, binary, exponent, decimal] = m
  const [whole, frac = ''] = number!.split('.')
  let numerator = BigInt(`${whole || '0'}${frac}`) * (sign === '-' ? -1n : 1n)
  let denominator = 10n ** BigInt(frac.length)
  if (binary !== undefined) numerator *= BINARY[binary]!
  const power = exponent !== undefined ? Number(exponent) : DECIMAL[decimal ?? '']!
  if (power >= 0) numerator *= 10n ** BigInt(power)
  else denominator *= 10n ** BigInt(-power)
  return [numerator, denominator]
}

/** Quantity.Cmp: -1, 0 or 1; a text that is no quantity compares equal (validation reports it elsewhere). */
export function compareQuantities(a: string, b: string): number {
  const [x, y] = [fraction(a), fraction(b)]
  if (x === undefined || y === undefined) return 0
  const d = x[0] * y[1] - y[0] * x[1]
  return d < 0n ? -1 : d > 0n ? 1 : 0
}
