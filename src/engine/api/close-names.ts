// "Did you mean ...?": names close to a mistyped one, by prefix or by edit distance, as kubectl's and
// git's suggestions do. Pure; used for claims, volumes and classes alike.

/**
 * Optimal string alignment distance: Levenshtein plus the transposition of two neighbours ("fsat" is one
 * edit from "fast"), the commonest typo. Exits early above `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let beforePrevious: number[] = []
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j], beforePrevious[j - 2] + 1)
      rowMin = Math.min(rowMin, current[j])
    }
    if (rowMin > limit) return limit + 1
    beforePrevious = previous
    previous = current
  }
  return previous[b.length]
}

/**
 * The candidates close to `name`, closest first (ties by name): one is a prefix of the other, or they are
 * at most a third of the name's length apart (at least 1, at most 3 edits).
 */
export function closeNames(name: string, candidates: Iterable<string>, max = 3): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)))
  const scored: Array<{candidate: string; score: number}> = []
  for (const candidate of new Set(candidates)) {
    if (candidate === name || candidate === '') continue
    const prefix = name !== '' && (candidate.startsWith(name) || name.startsWith(candidate))
    const distance = editDistance(name, candidate, limit)
    if (distance <= limit) scored.push({candidate, score: distance})
    else if (prefix) scored.push({candidate, score: limit + 0.5})
  }
  scored.sort((a, b) => a.score - b.score || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0))
  return scored.slice(0, max).map((s) => s.candidate)
}
