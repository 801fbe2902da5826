// A repair check's RESULT cell, the same in reclaim's table and relink's. PURE.
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
