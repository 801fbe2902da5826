// What the repairs' report contracts are tested by: the built CLI's -o json and -o yaml validate against the
// schema and agree, and broken reports (one rule each) are rejected, so the schema cannot become vacuous.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml} from 'yaml'

import {repoRoot, runCli} from '../cli/run-cli.js'

export type Json = Record<string, any>

export function reportContract(schemaFile: string) {
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema', schemaFile), 'utf8')) as Json
  const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
  const validate = ajv.compile(schema)
  return {
    /** Each command's -o json validates, and its -o yaml is the same document. */
    async validates(commands: readonly string[][]): Promise<void> {
      for (const args of commands) {
        const json = await runCli([...args, '-o', 'json'])
        const yaml = await runCli([...args, '-o', 'yaml'])
        const doc = JSON.parse(json.stdout) as Json
        assert.ok(validate(doc), ajv.errorsText(validate.errors))
        assert.deepEqual(parseYaml(yaml.stdout), doc)
      }
    },
    /** `base`'s -o json, broken by each row, is rejected. */
    async rejects(
      base: readonly string[],
      broken: ReadonlyArray<{name: string; breakIt: (d: Json) => void}>,
    ): Promise<void> {
      const doc = JSON.parse((await runCli([...base, '-o', 'json'])).stdout) as Json
      for (const row of broken) {
        const copy = structuredClone(doc)
        row.breakIt(copy)
        assert.equal(validate(copy), false, row.name)
      }
    },
  }
}
