#!/usr/bin/env node
// Generates man/pvctl.1 and man/pvctl-<command>.1 from the commands' own help (the oclif manifest
// built by `npm run build`), through ronn-style markdown and marked-man. `--check` compares instead of
// writing, for the test that keeps the committed pages in step with the help. package.json's "man" is kept
// equal to the pages written: npm installs only the pages listed there, so a command added without its
// entry would have a page in the tarball that `man` never finds.
import {Config} from '@oclif/core'
import {marked} from 'marked'
import markedMan from 'marked-man'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkgFile = path.join(root, 'package.json')
const pkgText = readFileSync(pkgFile, 'utf8')
const pkg = JSON.parse(pkgText)
// A fixed date keeps the pages reproducible; bump it with the version.
const MAN_DATE = Date.UTC(2026, 10, 30)

function escapeMd(s) {
  return String(s).replace(/([\\*_[\]<>])/g, '\\$1')
}

/**
 * Splits a description into its text and the sections that follow it, each a line in capitals ("FINDING
 * CODES", "EXIT STATUS") and its indented lines: {text, sections: [{title, lines}]}.
 */
function splitSections(description) {
  const parts = description.split(/^([A-Z][A-Z ]+[A-Z])$/m)
  const sections = []
  for (let i = 1; i < parts.length; i += 2) {
    const lines = parts[i + 1]
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
    sections.push({title: parts[i], lines})
  }
  return {text: parts[0].trim(), sections}
}

/** A section's lines as a list: "0  meaning" (an exit code) or "Code (severity): meaning" (a finding code). */
function sectionItem(line) {
  const exit = /^(\d+)\s+(.*)$/.exec(line)
  if (exit) return `* \`${exit[1]}\`:\n  ${escapeMd(exit[2])}\n`
  const term = /^(\w+ \(\w+\)): (.*)$/.exec(line)
  if (term) return `* \`${term[1]}\`:\n  ${escapeMd(term[2])}\n`
  return escapeMd(line)
}

function flagLine(name, flag) {
  const names = [flag.char ? `\`-${flag.char}\`` : null, `\`--${flag.allowNo ? `[no-]${name}` : name}\``]
    .filter(Boolean)
    .join(', ')
  const value =
    flag.type === 'option' ? `=*${escapeMd(flag.helpValue ?? (flag.options ? flag.options.join('|') : 'VALUE'))}*` : ''
  const parts = [flag.summary ?? '', flag.description ?? ''].filter((s) => s !== '').map(escapeMd)
  if (flag.options) parts.push(`One of: ${flag.options.map((o) => `\`${o}\``).join(', ')}.`)
  if (flag.default !== undefined && flag.type === 'option') parts.push(`Default: \`${flag.default}\`.`)
  return `* ${names}${value}:\n  ${parts.join(' ')}\n`
}

function commandPage(bin, cmd) {
  const name = `${bin}-${cmd.id.replace(/:/g, '-')}`
  const {text, sections} = splitSections(cmd.description ?? '')
  const args = Object.values(cmd.args ?? {})
    .map((a) => `[*${a.name.toUpperCase()}*...]`)
    .join(' ')
  const out = [
    `# ${name}(1) -- ${cmd.summary}`,
    '',
    '## SYNOPSIS',
    '',
    `\`${bin} ${cmd.id}\` ${args} [*OPTIONS*]`,
    '',
    '## DESCRIPTION',
    '',
  ]
  out.push(escapeMd(text).split('\n\n').join('\n\n'), '')
  const argDocs = Object.values(cmd.args ?? {})
  if (argDocs.length > 0) {
    out.push('## ARGUMENTS', '')
    for (const a of argDocs) out.push(`* *${a.name.toUpperCase()}*:`, `  ${escapeMd(a.description ?? '')}`, '')
  }
  out.push('## OPTIONS', '')
  for (const [fname, flag] of Object.entries(cmd.flags ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    if (flag.hidden) continue
    out.push(flagLine(fname, flag))
  }
  for (const {title, lines} of sections) out.push(`## ${title}`, '', ...lines.map(sectionItem))
  const examples = cmd.examples ?? []
  if (examples.length > 0) {
    out.push('## EXAMPLES', '')
    for (const ex of examples) {
      const e = typeof ex === 'string' ? {command: ex} : ex
      const command = e.command.replace(/<%= config.bin %>/g, bin).replace(/<%= command.id %>/g, cmd.id)
      if (e.description) out.push(escapeMd(e.description), '')
      out.push('```', command, '```', '')
    }
  }
  out.push('## SEE ALSO', '', `${bin}(1), kubectl(1)`, '')
  return {name, markdown: out.join('\n')}
}

/** What every command's exit codes have in common (errors.ts holds each command's own). */
const ROOT_EXIT_STATUS = [
  [
    '0',
    'nothing to act on: in sync (a dry run), the claim bound, the cluster healthy; or the plan or repair was written',
  ],
  [
    '1',
    'something to act on: a dry run found changes to make, a claim stays unbound, an audit found what --fail-on names; or a write was not confirmed',
  ],
  [
    '2',
    'usage or input error: bad flag, malformed snapshot, no such object, output that cannot be written; nothing written',
  ],
  [
    '3',
    'cluster error: unreachable or forbidden API, a write that failed, a destructive step stopped because the cluster changed since it was read',
  ],
  [
    '130',
    'interrupted while writing (SIGINT, SIGTERM): the report says what was written and what was not; the same command again completes the job',
  ],
]

/** The environment pvctl reads, besides what Node.js and oclif read. */
const ROOT_ENVIRONMENT = [
  [
    'KUBECONFIG',
    'Kubeconfig files, separated by colons, merged as kubectl merges them (the first file to set a value wins); read when --kubeconfig is not given. Without either: ~/.kube/config, then the in-cluster service account.',
  ],
  ['NO_COLOR', 'Set and not empty: no colour, unless --color is given.'],
  [
    'FORCE_COLOR',
    'Not empty: colour even when the output is not a terminal; 0 or false: never colour. NO_COLOR and --[no-]color win.',
  ],
  ['TERM', 'dumb: no colour.'],
  ['CI', 'Set: never prompt or show a spinner, as when no terminal is attached (a write then needs --yes).'],
  ['PVCTL_DEBUG', 'Set: print the stack trace of an internal error.'],
]

function rootPage(bin, commands) {
  const out = [
    `# ${bin}(1) -- ${escapeMd(pkg.description)}`,
    '',
    '## SYNOPSIS',
    '',
    `\`${bin}\` *COMMAND* [*OPTIONS*]`,
    '',
    '## DESCRIPTION',
    '',
    `${bin} runs the decisions of the Kubernetes v1.31 PersistentVolume controller (binding claims to volumes, marking claims Lost, releasing volumes whose claim is gone, applying the reclaim policy) on a cluster snapshot and reports them as a plan.`,
    '',
    '## COMMANDS',
    '',
  ]
  for (const cmd of commands)
    out.push(`* \`${bin} ${cmd.id}\`:`, `  ${escapeMd(cmd.summary ?? '')} See ${bin}-${cmd.id}(1).`, '')
  out.push(
    '## EXIT STATUS',
    '',
    `As \`kubectl diff\`; each command's page says what its codes mean for it (${commands.map((c) => `${bin}-${c.id}(1)`).join(', ')}).`,
    '',
    ...ROOT_EXIT_STATUS.flatMap(([code, meaning]) => [`* \`${code}\`:`, `  ${escapeMd(meaning)}`, '']),
  )
  out.push('## ENVIRONMENT', '')
  for (const [name, meaning] of ROOT_ENVIRONMENT) out.push(`* \`${name}\`:`, `  ${escapeMd(meaning)}`, '')
  out.push('## SEE ALSO', '', commands.map((c) => `${bin}-${c.id}(1)`).join(', '), '')
  return {name: bin, markdown: out.join('\n')}
}

function toRoff(markdown) {
  markedMan.date = MAN_DATE
  markedMan.manVersion = pkg.version
  // .nh: no hyphenation, so that a field path or a finding code is never split at a line's end (a reader
  // searching the page for volume.kubernetes.io/selected-node finds it).
  return marked.parse(markdown, {async: false}).replace(/^(\.TH .*\n)/, '$1.nh\n')
}

const config = await Config.load(root)
const bin = config.bin
// An alias (`why` for `explain`) is listed by oclif as a command of its own: its page is its command's.
const commands = config.commands
  .filter((c) => !c.hidden && !c.pluginName?.startsWith('@oclif/') && !(c.aliases ?? []).includes(c.id))
  .sort((a, b) => a.id.localeCompare(b.id))
marked.use(markedMan)
const pages = [rootPage(bin, commands), ...commands.map((c) => commandPage(bin, c))]
const check = process.argv.includes('--check')
const manDir = path.join(root, 'man')
mkdirSync(manDir, {recursive: true})
let stale = 0
for (const page of pages) {
  const file = path.join(manDir, `${page.name}.1`)
  const roff = toRoff(page.markdown)
  if (check) {
    let current = ''
    try {
      current = readFileSync(file, 'utf8')
    } catch {}
    if (current !== roff) {
      process.stderr.write(`stale man page: man/${page.name}.1 (run npm run man)\n`)
      stale++
    }
  } else {
    writeFileSync(file, roff)
    process.stdout.write(`wrote man/${page.name}.1\n`)
  }
}
// The root page first, then the commands' pages in the order of their ids, as the pages are built.
const manList = pages.map((page) => `./man/${page.name}.1`)
// npm writes package.json as 2-space JSON with a final newline; writing it the same way keeps the diff to
// the "man" lines, and a file already in step is not rewritten (its mtime stays).
const pkgWanted = `${JSON.stringify({...pkg, man: manList}, null, 2)}\n`
if (pkgWanted === pkgText) {
  // Already in step: nothing to write or report.
} else if (check) {
  process.stderr.write('stale package.json "man": it does not list exactly the generated pages (run npm run man)\n')
  stale++
} else {
  writeFileSync(pkgFile, pkgWanted)
  process.stdout.write('wrote package.json "man"\n')
}
process.exit(stale > 0 ? 1 : 0)
