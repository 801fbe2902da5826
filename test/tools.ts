// What some tests need from the machine beyond Node.js and npm (everything else comes with `npm ci`).
// Where a program is missing, the tests that need it are skipped, saying which program and how to get it,
// so that `npm ci && npm run test:all` passes on a machine that has only Node.js and npm. CI installs them all
// and sets PVCTL_REQUIRE_ALL=1 (.ci/run): a missing program is then an error, never a skip.
import {accessSync, constants} from 'node:fs'
import path from 'node:path'

interface Tool {
  /** The names to look for on PATH, in order. */
  commands: readonly string[]
  /** A variable naming the program's path instead. */
  variable?: string
  /** What to install to have it. */
  install: string
}

export const TOOLS = {
  chromium: {
    commands: ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'],
    variable: 'PVCTL_CHROMIUM',
    install:
      'Chromium or Chrome (Debian: apt-get install chromium), or PVCTL_CHROMIUM=/path/to/chrome; playwright-core drives it and downloads none',
  },
  kubectl: {commands: ['kubectl'], install: 'kubectl 1.26 or newer'},
  bash: {commands: ['bash'], install: 'bash'},
  script: {commands: ['script'], install: "util-linux's script(1) (Debian: bsdutils), for a pseudo-terminal"},
  man: {commands: ['man'], install: 'man (Debian: man-db)'},
  tar: {commands: ['tar'], install: 'tar'},
  go: {commands: ['go'], install: 'Go, which builds krew from the Go module proxy'},
  'qemu-aarch64': {
    commands: ['qemu-aarch64'],
    install:
      "qemu-user and arm64's C libraries, to run arm64 executables (Debian: apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross)",
  },
} satisfies Record<string, Tool>

export type ToolName = keyof typeof TOOLS

/** The path of COMMAND in the directories of PATH, or undefined. */
export function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, command)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not in this directory
    }
  }
  return undefined
}

/** The program's path, or undefined when this machine does not have it. */
export function findTool(name: ToolName): string | undefined {
  const tool: Tool = TOOLS[name]
  const named = tool.variable === undefined ? undefined : process.env[tool.variable]
  if (named !== undefined && named !== '') return named
  for (const command of tool.commands) {
    const found = onPath(command)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * For a test's `skip` option: false when the program is here; otherwise the reason, also printed to stderr
 * so that the run's log says what did not run. Under PVCTL_REQUIRE_ALL=1 a missing program throws instead,
 * failing the test file.
 */
export function skipWithout(name: ToolName, what: string): string | false {
  if (findTool(name) !== undefined) return false
  const tool: Tool = TOOLS[name]
  const reason = `${tool.commands[0]} is not installed, so ${what} did not run: install ${tool.install}`
  if (process.env.PVCTL_REQUIRE_ALL === '1') throw new Error(`PVCTL_REQUIRE_ALL=1 and ${reason}`)
  process.stderr.write(`# SKIPPED: ${reason}\n`)
  return reason
}
