#!/usr/bin/env node
// `kubectl pvctl ...`: kubectl runs the kubectl-pvctl executable it finds on PATH (a kubectl plugin) with
// the arguments after "pvctl". The same CLI, whose help and messages then name it `kubectl pvctl`.
globalThis.pvctlBin = 'kubectl pvctl'
await import('./run.js')
