// Preloaded into the CLI by bench/watch-latency.ts: the longest event-loop stall, and the CPU time spent,
// while the bench measures. SIGUSR2 starts the window (the start-up's list and pass are left out); at exit
// the stalls' max and p99 and the CPU seconds (user + system) go to stderr. A stall holds every watch
// event, write and timer behind it, so it bounds the latency too.
import {writeSync} from 'node:fs'
import {monitorEventLoopDelay} from 'node:perf_hooks'

const delay = monitorEventLoopDelay({resolution: 10})
delay.enable()
let cpuAtStart = process.cpuUsage()
process.on('SIGUSR2', () => {
  delay.reset()
  cpuAtStart = process.cpuUsage()
})
process.on('exit', () => {
  const cpu = process.cpuUsage(cpuAtStart)
  writeSync(2, `PVCTL_EVENT_LOOP_DELAY_MS max=${(delay.max / 1e6).toFixed(1)} p99=${(delay.percentile(99) / 1e6).toFixed(1)} cpu=${((cpu.user + cpu.system) / 1e6).toFixed(2)}\n`)
})
