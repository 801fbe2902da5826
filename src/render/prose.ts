// Sentences on a terminal: wrapped at spaces to its width, as `kubectl describe` leaves to nobody (its lines
// run long and the terminal breaks them mid-word). In a pipe (no width) text is left as it is. PURE.
import {widthOf} from './kubectl-table.js'

/**
 * The text with each of its lines wrapped at spaces to `width` columns (undefined: unchanged), the lines a
 * wrap makes starting with `indent` (a list item's hanging indent). A word wider than the line runs past it
 * rather than being cut, and a command (from `kubectl ` or `pvctl ` to its `;` or the end of the line)
 * is never broken: it moves to a line of its own, so that it can be copied and run as printed.
 */
export function wrapProse(text: string, width: number | undefined, indent = ''): string {
  if (width === undefined) return text
  return text
    .split('\n')
    .map((line) => wrapLine(line, width, indent))
    .join('\n')
}

function wrapLine(line: string, width: number, indent: string): string {
  if (widthOf(line) <= width) return line
  const lead = ' '.repeat(line.length - line.replace(/^ +/, '').length)
  const lines: string[] = []
  let current = lead
  let used = lead.length
  let empty = true
  for (const word of words(line.slice(lead.length))) {
    const w = widthOf(word)
    if (!empty && used + 1 + w > width) {
      lines.push(current)
      current = indent + word
      used = indent.length + w
      continue
    }
    current += empty ? word : ` ${word}`
    used += empty ? w : w + 1
    empty = false
  }
  lines.push(current)
  return lines.join('\n')
}

// A word, or a command from its first word to its `;` or the end of the line (after "(" too).
const WORD = /\(?(?:kubectl|pvctl) [^;]*;?|\S+/g

/** The line's words, each command one word. */
function words(line: string): string[] {
  return Array.from(line.matchAll(WORD), (m) => m[0].trimEnd())
}
