// Preloaded into the CLI by the benchmark when GNU time is not installed: reports the process's peak
// resident set size on stderr as it exits.
import {writeSync} from 'node:fs'

process.on('exit', () => {
  writeSync(2, `PVCTL_MAX_RSS_KB ${process.resourceUsage().maxRSS}\n`)
})
