// Values a caller knows are there: a key it put in a map itself, an entry an index keeps for every
// object it holds. Their absence is a bug in pvctl, never a state of the cluster, so it throws (the error
// presenter calls it an internal error) instead of carrying `undefined` on as if it were an answer.

/** The value, or an Error naming the invariant that its absence breaks. */
export function present<T>(value: T | null | undefined, invariant: string): T {
  if (value === undefined || value === null) throw new Error(`invariant: ${invariant}`)
  return value
}
