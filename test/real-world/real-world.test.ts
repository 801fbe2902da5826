// The corpus of real states (README.md): for each state a user reported in a public thread, the engine's
// plan is what the thread says the controller did, and pvctl's verdict, findings and first suggestion are
// held to the cause the thread found. A case whose right advice needs what pvctl does not do yet is
// `pending`: its plan is checked, its advice skipped with the reason printed.
import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, test} from 'node:test'

import {runCli} from '../cli/run-cli.js'
import {loadCorpus, pvctlOn, refOf, snapshotOf} from './corpus.js'

const corpus = loadCorpus()

/** case.yaml's verdicts and findings are patterns, each matching the whole of what pvctl says. */
const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`)

describe('the corpus of real states', () => {
  test('holds at least 25 cases, each with its source, cause and advice', () => {
    assert.ok(corpus.length >= 25, `${corpus.length} cases`)
    for (const c of corpus) {
      assert.match(c.source, /^https?:\/\//, `${c.id}: source`)
      for (const field of ['title', 'reported', 'cause', 'advice', 'subject'] as const)
        assert.ok((c[field] ?? '').trim() !== '', `${c.id}: ${field}`)
    }
  })

  for (const c of corpus) {
    describe(`${c.id}: ${c.title}`, () => {
      test('the plan is what the thread says the controller did', async () => {
        const said = await pvctlOn(c)
        assert.deepEqual(said.plan, c.expect.plan)
      })

      test(
        'verdict, findings and first suggestion follow the cause the thread found',
        {skip: c.pending === undefined ? false : `pending: ${c.pending}`},
        async () => {
          const said = await pvctlOn(c)
          const context =
            said.explanation === undefined
              ? ''
              : `summary: ${said.explanation.summary}\nsuggestions: ${said.explanation.suggestions.join(' | ')}`
          if (c.expect.verdict !== undefined) assert.match(said.verdict ?? '<none>', whole(c.expect.verdict), context)
          assert.equal(said.findings.length, c.expect.findings.length, `${said.findings.join('\n')}\n${context}`)
          said.findings.forEach((f, i) =>
            assert.match(f, whole(c.expect.findings[i]), `${said.findings.join('\n')}\n${context}`),
          )
          assert.equal(said.exitCode, c.expect.exitCode)
          if (c.expect.first !== undefined) assert.match(said.first ?? '<none>', new RegExp(c.expect.first), context)
          if (c.expect.fix !== undefined) assert.match(said.fix ?? '<none>', new RegExp(c.expect.fix))
        },
      )

      if (c.cli === true) {
        test(
          'the built CLI says the same',
          {skip: c.pending === undefined ? false : `pending: ${c.pending}`},
          async () => {
            const file = path.relative(process.cwd(), snapshotOf(c))
            const audit = await runCli(['audit', '-f', file, '-o', 'json'])
            assert.equal(audit.code, c.expect.exitCode, audit.stderr)
            const codes = (JSON.parse(audit.stdout) as {findings: Array<{code: string}>}).findings.map((f) => f.code)
            assert.equal(codes.length, c.expect.findings.length)
            codes.forEach((code, i) => assert.match(code, whole(c.expect.findings[i].split(' ')[1])))
            const ref = refOf(c.subject)
            if (ref !== undefined && c.expect.verdict !== undefined) {
              const object =
                ref.kind === 'PersistentVolume' ? [`pv/${ref.name}`] : [`pvc/${ref.name}`, '-n', ref.namespace ?? '']
              const explain = await runCli(['explain', ...object, '-f', file, '-o', 'json'])
              const doc = JSON.parse(explain.stdout) as {verdict?: string; state?: string}
              assert.match(doc.verdict ?? doc.state ?? '', whole(c.expect.verdict), explain.stderr)
            } else {
              // A class: audit's finding is all there is to say of it.
            }
            const dry = await runCli(['sync', '--dry-run', '-f', file, '-o', 'json'])
            const actions = (JSON.parse(dry.stdout) as {actions: unknown[]}).actions
            assert.equal(actions.length, c.expect.plan.length)
          },
        )
      }
    })
  }
})
