// One-shot timers as a seam: the deadlines of the API calls (--request-timeout, a new connection's
// deadline) start through it, so that a test fires them on a fake clock instead of waiting them out.

/** Calls `fire` once `ms` have passed; the function returned cancels it. */
export type StartTimer = (ms: number, fire: () => void) => () => void

export const startTimer: StartTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms)
  return () => clearTimeout(timer)
}
