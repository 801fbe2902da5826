// A repair check's RESULT cell, the same in reclaim's table and relink's, and their one-line findings. PURE.
import type {RepairCheckResult} from '../engine/repair/checks.js'
import type {Palette} from './color.js'

/** `not read` is yellow as `forced` is: neither is a check that passed, and neither stops the repair. */
export function checkResultCell(result: RepairCheckResult, palette: Palette): string {
  switch (result) {
    case 'ok':
      return palette.green('ok')
    case 'not-read':
      return palette.yellow('not read')
    case 'forced':
      return palette.yellow('forced')
    case 'blocked':
      return palette.red('blocked')
  }
}

/** A repair's finding as a line of its own: "already reclaimed: …" becomes "Already reclaimed: …". */
export function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
