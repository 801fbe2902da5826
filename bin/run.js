#!/usr/bin/env node
// Interrupts (SIGINT, SIGTERM, SIGHUP) are pvctl's own from the first line to the last byte
// (src/cli/interrupts.ts): never an end by the signal, with no word of what was done.
const {installInterrupts, markFinished} = await import('../dist/cli/interrupts.js')
installInterrupts()

// oclif checks its own engines field against the running Node with semver at every start: ~40 ms of CPU,
// a sixth of `pvctl --help`. npm checks pvctl's own (Node.js 20, 22, 24 or 26, which oclif's covers) when it installs.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= 'true'

// Output that cannot be written (a full disk, a terminal gone) has been reported by the command in one
// line (src/cli/write-chunks.ts); oclif's final flush of stdout then fails the same way, outside any
// command. That second failure is the same news: end with the command's exit code, not a stack trace.
const outputFailed = (err) => err?.syscall === 'write' && ['ENOSPC', 'EIO', 'EPIPE', 'EBADF'].includes(err?.code)
const onStray = (err) => {
  if (!outputFailed(err)) {
    process.stderr.write(`${err?.stack ?? err}\n`)
    process.exit(1)
  }
  process.exit(process.exitCode ?? 2)
}
process.on('uncaughtException', onStray)
process.on('unhandledRejection', onStray)

// @oclif/core as one module, bundled by the build (scripts/build.js says why): the commands import it too.
const {execute} = await import('../dist/vendor/oclif-core.js')

// `pvctl --version [-o json]` is `pvctl version --client`, as kubectl's --version prints the client's version
// (oclif's own answer is its user agent, "pvctl/0.1.0 linux-x64 node-v20").
const args = process.argv.slice(2)
if (args[0] === '--version') args.splice(0, 1, 'version', '--client')
// kubectl's flags before the command (`pvctl -n shop explain pvc/logs`, `kubectl pvctl --context demo sync`):
// the command first, where oclif looks for it; which flags take a value, the manifest's commands say.
if (args[0]?.startsWith('-') && args[0] !== '-') {
  const {readFileSync} = await import('node:fs')
  const {commandFirst, valueFlags} = await import('../dist/cli/command-first.js')
  let commands = []
  try {
    const manifest = JSON.parse(readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8'))
    commands = Object.values(manifest.commands).map((c) => ({
      flags: Object.values(c.flags).map((f) => ({name: f.name, char: f.char, takesValue: f.type === 'option'})),
    }))
  } catch {
    // No manifest (a build that did not finish): every flag is taken for one without a value.
  }
  args.splice(0, args.length, ...commandFirst(args, valueFlags(commands)))
}
// `pvctl __complete WORD...` (the completion scripts' call): the words are the line being completed, never
// flags of its own; after `--`, oclif does not take a `-h` among them for a request for help.
if (args[0] === '__complete') args.splice(1, 0, '--')

// Run as `kubectl pvctl` (bin/kubectl-pvctl.js, which kubectl finds on PATH): help and messages say so.
// The single-file release (scripts/release/sea-main.js) has no package.json to read and brings its own.
let loadOptions = globalThis.pvctlLoadOptions
if (loadOptions === undefined && globalThis.pvctlBin !== undefined) {
  const {readFileSync} = await import('node:fs')
  const {fileURLToPath} = await import('node:url')
  const root = fileURLToPath(new URL('..', import.meta.url))
  const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  loadOptions = {root, pjson: {...pjson, oclif: {...pjson.oclif, bin: globalThis.pvctlBin}}}
}

await execute({args, dir: import.meta.url, loadOptions})
markFinished()
