// A request the engine refuses (engine/api/request-error.ts: an object named that the state lacks, a List too
// large to make) is the user's to fix: said as a usage error (exit 2).
import {RequestError} from '../engine/api/request-error.js'
import {UsageError} from '../errors.js'

/** `err` as the command says it: the engine's refusal as a usage error, any other error as it is. */
export function saidAsUsage(err: unknown): unknown {
  return err instanceof RequestError ? new UsageError(err.message, err.suggestions) : err
}

/** The engine's answer to a request, a refusal of it said as a usage error. */
export function asked<T>(answer: () => T): T {
  try {
    return answer()
  } catch (err) {
    throw saidAsUsage(err)
  }
}
