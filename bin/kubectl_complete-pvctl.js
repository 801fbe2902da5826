#!/usr/bin/env node
// `kubectl pvctl <TAB>`: kubectl (1.26+) completes a plugin by running kubectl_complete-<plugin> from the PATH
// with the words after the plugin's name, the last being the one completed, and reads cobra's answer back:
// what `pvctl __complete` prints.
globalThis.pvctlBin = 'kubectl pvctl'
process.argv.splice(2, 0, '__complete')
await import('./run.js')
