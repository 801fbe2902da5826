// Colour as a parameter. Renderers take a Palette and never look at the terminal or the environment; the
// command decides once, with shouldColor, and passes `ansi` or `plain`. chalk is not used: it ignores
// NO_COLOR (supports-color does not read it either), and eight escape codes do not need a dependency.

export interface Palette {
  red: (s: string) => string
  green: (s: string) => string
  yellow: (s: string) => string
  cyan: (s: string) => string
  bold: (s: string) => string
  dim: (s: string) => string
}

const identity = (s: string): string => s

/** No colour: every function returns its argument. */
export const plain: Palette = Object.freeze({
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
  bold: identity,
  dim: identity,
})

const ESC = '\u001b['

// Wraps in an SGR open/close pair. A close code inside the text (a nested style of the same family) is
// followed by the open code again, so `red('a' + bold('b') + 'c')`-style nesting keeps its colour on 'c'.
function sgr(open: number, close: number): (s: string) => string {
  const o = `${ESC}${open}m`
  const c = `${ESC}${close}m`
  return (s: string): string => (s === '' ? '' : o + s.split(c).join(c + o) + c)
}

/** Raw ANSI escapes (SGR 31/32/33/36 closed by 39; bold 1 and dim 2 closed by 22). */
export const ansi: Palette = Object.freeze({
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
  bold: sgr(1, 22),
  dim: sgr(2, 22),
})

/**
 * Whether to colour output, in this order:
 *  1. `flag` (--color / --no-color) when given;
 *  2. NO_COLOR present and non-empty disables (https://no-color.org: "present and not an empty string");
 *  3. FORCE_COLOR non-empty: `0` or `false` disables, any other value (`1`, `2`, `3`, `true`) enables,
 *     even off a TTY — so CI logs can opt in;
 *  4. TERM=dumb disables;
 *  5. otherwise colour exactly when the output stream is a TTY.
 */
export function shouldColor(env: Record<string, string | undefined>, isTTY: boolean, flag?: boolean): boolean {
  if (flag !== undefined) return flag
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '') {
    return !(force === '0' || force.toLowerCase() === 'false')
  }
  if (env.TERM === 'dumb') return false
  return isTTY
}
