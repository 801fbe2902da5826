// The lines of explain's claim picker: namespace/name, then the verdict in a column of its own, so that a
// list of thousands reads down the verdicts. PURE.

/** The widest name column: a longer namespace/name is shortened in its middle (its end tells claims apart). */
export const PICKER_NAME_WIDTH = 48

/** Each claim's line: its name padded to the widest (at most PICKER_NAME_WIDTH), two spaces, its verdict. */
export function claimPickerLabels(
  rows: ReadonlyArray<{key: string; verdict: string}>,
  cap = PICKER_NAME_WIDTH,
): string[] {
  let widest = 0
  for (const r of rows) widest = Math.max(widest, Array.from(r.key).length)
  const width = Math.min(widest, cap)
  return rows.map((r) => `${fitName(r.key, width)}  ${r.verdict}`)
}

/** The name padded to `width`, or shortened to it with an ellipsis in the middle. */
function fitName(name: string, width: number): string {
  const chars = Array.from(name)
  if (chars.length <= width) {
    return name + ' '.repeat(width - chars.length)
  } else {
    // Keep the start (the namespace) and more of the end (the name's distinguishing suffix).
    const head = Math.floor((width - 1) / 3)
    return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (width - 1 - head)).join('')}`
  }
}
