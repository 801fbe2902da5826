// Waits `ms`, or less if the signal aborts first (a stopping controller must not wait out a resync, an
// interrupted run not a plugin pod's poll interval).
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, {once: true})
  })
}
