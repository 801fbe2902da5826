// The CLI surface, snapshot-tested (as sf-plugins-core snapshots its commands): every command's id, aliases, arguments and flags
// (name, char, type, options, default, allowNo, multiple), read from the oclif.manifest.json that
// `npm run build` writes, against test/cli/golden/surface.json. Renaming, removing or adding a flag, a
// short flag, an -o format or a default fails here, so a change to the surface is a deliberate one:
//   npm run build && UPDATE_GOLDEN=1 node --import tsx --test test/cli/surface.test.ts
// and review the diff of the golden file. Help wording is not part of the surface.
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {formatsOf, OUTPUT_FORMATS, type OutputCommand} from '../../src/cli/output-formats.js'

import {repoRoot} from './run-cli.js'

const MANIFEST = path.join(repoRoot, 'oclif.manifest.json')
const GOLDEN = path.join(repoRoot, 'test', 'cli', 'golden', 'surface.json')
const UPDATE = process.env.UPDATE_GOLDEN === '1'

interface ManifestFlag {
  name: string
  char?: string
  type: 'boolean' | 'option'
  options?: string[]
  default?: unknown
  allowNo?: boolean
  multiple?: boolean
}
interface ManifestArg {
  name: string
  required?: boolean
  options?: string[]
  default?: unknown
}
interface ManifestCommand {
  id: string
  aliases?: string[]
  strict?: boolean
  description?: string
  args: Record<string, ManifestArg>
  flags: Record<string, ManifestFlag>
}

type Surface = Array<{
  id: string
  aliases: string[]
  strict: boolean
  args: Array<Pick<ManifestArg, 'name' | 'required' | 'options' | 'default'>>
  flags: Array<Pick<ManifestFlag, 'name' | 'char' | 'type' | 'options' | 'default' | 'allowNo' | 'multiple'>>
}>

function loadManifest(): Record<string, ManifestCommand> {
  assert.ok(existsSync(MANIFEST), `${MANIFEST} is missing: run \`npm run build\` first`)
  return (JSON.parse(readFileSync(MANIFEST, 'utf8')) as {commands: Record<string, ManifestCommand>}).commands
}

type Formats = Record<string, readonly string[]>

/** Each command's -o formats (its flag checks them itself, so the manifest has no options for it). */
const outputFormats = (): Formats =>
  Object.fromEntries(Object.keys(OUTPUT_FORMATS).map((id) => [id, formatsOf(id as OutputCommand)]))

/**
 * The parts of the manifest scripts depend on, in a stable order (args in declaration order: it matters),
 * with -o's formats from OUTPUT_FORMATS.
 */
function surfaceOf(commands: Record<string, ManifestCommand>, formats: Formats = outputFormats()): Surface {
  return Object.values(commands)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => ({
      id: c.id,
      aliases: [...(c.aliases ?? [])].sort(),
      strict: c.strict ?? true,
      args: Object.values(c.args).map((a) => ({
        name: a.name,
        required: a.required ?? false,
        options: a.options,
        default: a.default,
      })),
      flags: Object.values(c.flags)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((f) => ({
          name: f.name,
          char: f.char,
          type: f.type,
          options: f.name === 'output' && formats[c.id] !== undefined ? [...formats[c.id]] : f.options,
          default: f.default,
          allowNo: f.type === 'boolean' ? (f.allowNo ?? false) : undefined,
          multiple: f.type === 'option' ? (f.multiple ?? false) : undefined,
        })),
    }))
}

/** As written to the golden file: undefined keys dropped, two-space JSON, final newline. */
const render = (s: Surface): string => JSON.stringify(s, null, 2) + '\n'

test('the CLI surface matches test/cli/golden/surface.json', () => {
  const actual = render(surfaceOf(loadManifest()))
  if (UPDATE) {
    mkdirSync(path.dirname(GOLDEN), {recursive: true})
    writeFileSync(GOLDEN, actual)
    return
  }
  assert.ok(existsSync(GOLDEN), `${GOLDEN} is missing: run with UPDATE_GOLDEN=1 to create it`)
  assert.deepEqual(
    JSON.parse(actual),
    JSON.parse(readFileSync(GOLDEN, 'utf8')),
    'the CLI surface changed: if that is deliberate, regenerate with UPDATE_GOLDEN=1 (after npm run build) and review the diff',
  )
})

test('the snapshot catches a renamed flag, a new short flag and a changed default', async (t) => {
  const golden = render(surfaceOf(loadManifest()))
  const mutations: Array<{name: string; mutate: (c: Record<string, ManifestCommand>, formats: Formats) => void}> = [
    {name: 'rename --rounds', mutate: (c) => void (c.sync.flags.rounds.name = 'max-rounds')},
    {name: 'a short flag for --rounds', mutate: (c) => void (c.sync.flags.rounds.char = 'r')},
    {name: 'drop an -o format', mutate: (_, formats) => void (formats.sync = formats.sync.slice(0, -1))},
    {name: 'change the -o default', mutate: (c) => void (c.sync.flags.output.default = 'json')},
    {name: 'drop --no-color', mutate: (c) => void (c.sync.flags.color.allowNo = false)},
    {name: 'rename the objects argument', mutate: (c) => void (c.sync.args.objects.name = 'targets')},
  ]
  for (const m of mutations) {
    await t.test(m.name, () => {
      const commands = loadManifest()
      const formats = outputFormats()
      m.mutate(commands, formats)
      assert.notEqual(render(surfaceOf(commands, formats)), golden)
    })
  }
})

/** The exit codes a command can end with; the ones of docs/output-contract.md (0–3) unless it says otherwise. */
const EXIT_CODES: Record<string, number[]> = {help: [0, 2], version: [0, 2, 3], completion: [0, 2], __complete: [0]}

test('every command documents its exit status in its help (docs/output-contract.md)', async (t) => {
  for (const c of Object.values(loadManifest())) {
    await t.test(c.id, () => {
      assert.match(c.description ?? '', /^\s*EXIT STATUS$/m)
      for (const code of EXIT_CODES[c.id] ?? [0, 1, 2, 3])
        assert.match(c.description ?? '', new RegExp(`^\\s+${code}\\s+\\S`, 'm'), `exit code ${code}`)
    })
  }
})
