// Go's time.ParseDuration, as kubectl's duration flags take them: "30s", "1m30s", "500ms", "2h";
// a bare "0" is zero. With `bareSeconds`, a bare number is seconds, as kubectl's --request-timeout reads it
// ("30" is 30s). Returns milliseconds.
import {UsageError} from '../errors.js'

const units: Record<string, number> = {ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000}

export function parseDuration(text: string, flag: string, {bareSeconds = false}: {bareSeconds?: boolean} = {}): number {
  const s = text.trim()
  if (s === '0') return 0
  if (bareSeconds && /^\d+$/.test(s)) return Number(s) * 1000
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy
  let total = 0
  let matched = 0
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * units[m[2]]
    matched = re.lastIndex
  }
  if (s === '' || matched !== s.length) {
    throw new UsageError(
      `${flag}: invalid duration "${text}" (use a number with a unit, e.g. 30s, 1m30s, 500ms${bareSeconds ? ', or a number of seconds' : ''})`,
    )
  }
  return total
}
