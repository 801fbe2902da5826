// A fake clock for the deadlines of src/cluster: timers started through its `startTimer` fire when the
// test moves the clock past them, never by themselves; `sleep` is a retry's wait on the same clock, cut
// short (rejecting) when the call it belongs to is aborted, as the real one is.
import {requestSignal} from '../../src/cluster/request-signal.js'
import type {StartTimer} from '../../src/cluster/timer.js'

/** Lets every promise chain and I/O callback that is ready run (one turn of the event loop). */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

export class FakeTimers {
  now = 0
  private timers: Array<{at: number; fire: () => void}> = []

  readonly startTimer: StartTimer = (ms, fire) => {
    const timer = {at: this.now + ms, fire}
    this.timers.push(timer)
    return () => {
      this.timers = this.timers.filter((t) => t !== timer)
    }
  }

  readonly sleep = (ms: number): Promise<void> => {
    const signal = requestSignal()
    return new Promise((resolve, reject) => {
      const cancel = this.startTimer(ms, resolve)
      signal?.addEventListener(
        'abort',
        () => {
          cancel()
          reject(signal.reason)
        },
        {once: true},
      )
    })
  }

  /** The timers still waiting to fire, as the times they are due. */
  get pending(): number[] {
    return this.timers.map((t) => t.at)
  }

  /** Moves the clock to `at`, firing the timers due by then in order, a turn of the event loop after each. */
  async advanceTo(at: number): Promise<void> {
    for (;;) {
      await turn()
      const due = this.timers.filter((t) => t.at <= at).sort((a, b) => a.at - b.at)[0]
      if (due === undefined) break
      this.timers = this.timers.filter((t) => t !== due)
      this.now = due.at
      due.fire()
    }
    this.now = at
    await turn()
  }
}
