#!/usr/bin/env node
// oclif checks its own engines field against the running Node with semver at every start: ~40 ms of CPU,
// a sixth of `pvctl --help`. npm checks pvctl's own (node >= 20, which covers oclif's) when it installs.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= 'true'
const {execute} = await import('@oclif/core')

await execute({dir: import.meta.url})
