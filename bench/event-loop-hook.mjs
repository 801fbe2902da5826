// Preloaded into the CLI by bench/watch-latency.ts: the longest event-loop stall while the bench measures.
// SIGUSR2 starts the window (the start-up's list and pass are left out); at exit the stalls' max and p99
// go to stderr. A stall holds every watch event, write and timer behind it, so it bounds the latency too.
import {writeSync} from 'node:fs'
import {monitorEventLoopDelay} from 'node:perf_hooks'

const delay = monitorEventLoopDelay({resolution: 10})
delay.enable()
process.on('SIGUSR2', () => delay.reset())
process.on('exit', () => {
  writeSync(2, `PVCTL_EVENT_LOOP_DELAY_MS max=${(delay.max / 1e6).toFixed(1)} p99=${(delay.percentile(99) / 1e6).toFixed(1)}\n`)
})
