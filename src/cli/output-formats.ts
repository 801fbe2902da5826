// The -o formats of every command: the keys of its report's registry (report-renderers.ts). A command's flag
// is made from them, and a format the command lacks is refused with a pointer to the commands that have it
// (`sync -o junit`: audit's), as a user who knows one command's formats tries them on another. kubectl's
// templates (jsonpath=, custom-columns=) are every command's, read from the document -o json prints; their
// renderer and its JSONPath library (slow to load: docs/performance.md) are loaded only when asked for.
import {UsageError} from '../errors.js'
import {present} from '../engine/api/invariant.js'
import {type OutputContext, type Renderers, REPORT_RENDERERS} from './report-renderers.js'

type Registries = typeof REPORT_RENDERERS

export type OutputCommand = keyof Registries

export const OUTPUT_FORMATS = Object.fromEntries(
  Object.entries(REPORT_RENDERERS).map(([command, renderers]) => [command, Object.keys(renderers)]),
) as unknown as {
  readonly [C in OutputCommand]: ReadonlyArray<keyof Registries[C] & string>
}

const TEMPLATES = ['jsonpath=TEMPLATE', 'custom-columns=SPEC']

/** kubectl's printers pvctl does not have. */
const KUBECTL_ONLY = [
  'go-template',
  'go-template-file',
  'template',
  'templatefile',
  'jsonpath-file',
  'jsonpath-as-json',
  'custom-columns-file',
]

const isTemplate = (output: string): boolean => /^(jsonpath|custom-columns)(=|$)/.test(output)

/** Every format of a command as its help lists them: its own, then kubectl's templates. */
export function formatsOf(command: OutputCommand): string[] {
  return [...OUTPUT_FORMATS[command], ...TEMPLATES]
}

/** The value of -o, checked: one of the command's formats, or a template that parses (else a usage error). */
export async function checkOutput(command: OutputCommand, value: string): Promise<string> {
  if ((OUTPUT_FORMATS[command] as readonly string[]).includes(value)) return value
  if (isTemplate(value)) {
    await loadTemplate(value)
    return value
  }
  const name = /^[\w-]+/.exec(value)?.[0] ?? value
  const own = formatsOf(command).join(', ')
  if (KUBECTL_ONLY.includes(name))
    throw new UsageError(`--output ${name}: not supported; pvctl ${command} prints ${own} (or use -o json | jq)`)
  const others = (Object.keys(OUTPUT_FORMATS) as OutputCommand[]).filter(
    (c) => c !== command && (OUTPUT_FORMATS[c] as readonly string[]).includes(value),
  )
  const elsewhere =
    others.length === 0
      ? ''
      : `; ${value} is ${others.map((c) => `pvctl ${c}'s`).join(' and ')} (pvctl ${others[0]} -o ${value})`
  throw new UsageError(`--output ${value}: pvctl ${command} prints ${own}${elsewhere}`)
}

/** What a template prints of a document given as the chunks of its -o json (custom-columns: headers or not). */
export type TemplatePrinter = (json: Iterable<string>, noHeaders: boolean) => string[]

/**
 * The printer of -o jsonpath=… or custom-columns=…; undefined for any other format. A template that does not
 * parse is a usage error.
 */
export async function loadTemplate(output: string): Promise<TemplatePrinter | undefined> {
  if (!isTemplate(output)) return undefined
  const {parseTemplateOutput, TemplateError, templateChunks} = await import('../render/kubectl-template.js')
  try {
    const template = present(parseTemplateOutput(output), 'isTemplate() said it is a template')
    return (json, noHeaders) => templateChunks(template, json, noHeaders)
  } catch (err) {
    if (err instanceof TemplateError)
      throw new UsageError(`--output ${/^[\w-]+/.exec(output)?.[0] ?? output}: ${err.message}`)
    throw err
  }
}

/**
 * Whether -o asks for output a program reads (json, yaml, name, a template): a plan shown before a
 * prompt then goes to stderr, to leave stdout to it.
 */
export function machineReadable(output: string): boolean {
  return output === 'json' || output === 'yaml' || output === 'name' || isTemplate(output)
}

/**
 * The document in the format -o names, by the report's registry: a template reads the chunks of its -o json.
 * The format was checked when the flag was parsed (checkOutput).
 */
export async function renderOutput<D, C extends OutputContext>(
  renderers: Renderers<D, C>,
  output: string,
  document: D,
  context: C,
): Promise<Iterable<string>> {
  const template = await loadTemplate(output)
  if (template !== undefined) return template(await renderers.json(document, context), context.noHeaders)
  return (renderers[output] ?? renderers.table)(document, context)
}
