// The abort signal of the API call in progress, carried from the flow control (throttled-api.ts, which
// owns --request-timeout) to the HTTP request (wire-client.ts) through the async context, rather than
// through the signature of every method of every API port in between. A request abandoned at its deadline
// is then torn down, socket and all, instead of being left pending: a pending request kept the process
// alive after the error was printed.
import {AsyncLocalStorage} from 'node:async_hooks'

const current = new AsyncLocalStorage<AbortSignal>()

/** Runs `call` with `signal` as the signal of every request it makes. */
export function withRequestSignal<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  return current.run(signal, call)
}

/** The signal of the call in progress, if it has one. */
export function requestSignal(): AbortSignal | undefined {
  return current.getStore()
}
