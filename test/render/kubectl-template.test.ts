// kubectl's -o jsonpath= and -o custom-columns= over a document: kubectl's template syntax (range/end,
// quoted strings, relaxed paths), its printing (values a space apart, objects as JSON, nothing for a path
// that matches nothing, no final newline) and its errors, as rows.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {parseTemplateOutput, renderTemplate, TemplateError} from '../../src/render/kubectl-template.js'

const report = {
  apiVersion: 'pvctl/v1alpha1',
  kind: 'SyncReport',
  converged: true,
  rounds: 2,
  volume: null,
  actions: [
    {
      action: 'bind-volume',
      object: {kind: 'PersistentVolume', name: 'pv-0002'},
      labels: {'app.kubernetes.io/name': 'db', 'tier-class': 'gold'},
    },
    {action: 'delete', object: {kind: 'PersistentVolume', name: 'pv-0006'}},
  ],
}
const list = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {claim: {name: 'logs'}, verdict: 'NoMatchingVolume', volume: null},
    {claim: {name: 'orders'}, verdict: 'WillBind', volume: 'pv-0002'},
  ],
}

describe('-o jsonpath=', () => {
  const rows: Array<{template: string; doc?: object; want: string}> = [
    {template: '{.kind}', want: 'SyncReport'},
    {template: '{.actions[*].action}', want: 'bind-volume delete'},
    {template: '{.rounds} {.converged}', want: '2 true'},
    {template: 'kind={.kind}\n', want: 'kind=SyncReport\n'},
    {
      template: '{range .actions[*]}{.object.name}{"\\t"}{.action}{"\\n"}{end}',
      want: 'pv-0002\tbind-volume\npv-0006\tdelete\n',
    },
    {template: '{.actions[?(@.action=="delete")].object.name}', want: 'pv-0006'},
    {template: '{.actions[0].object}', want: '{"kind":"PersistentVolume","name":"pv-0002"}'},
    {template: '{.actions[-1:].action}', want: 'delete'},
    {template: '{..name}', want: 'pv-0002 pv-0006'},
    {template: '{.actions[0].labels.app\\.kubernetes\\.io/name} {.actions[0].labels.tier-class}', want: 'db gold'},
    {template: '{$.kind}{@.rounds}{kind}', want: 'SyncReport2SyncReport'},
    {template: '{.missing}{.volume}', want: ''},
    {template: '{range .items[*]}{.claim.name}={.volume}{" "}{end}', doc: list, want: 'logs= orders=pv-0002 '},
  ]
  for (const row of rows) {
    it(`${row.template} -> ${JSON.stringify(row.want)}`, () => {
      assert.equal(
        renderTemplate(parseTemplateOutput(`jsonpath=${row.template}`)!, (row.doc ?? report) as never),
        row.want,
      )
    })
  }
})

describe('-o custom-columns=', () => {
  const rows: Array<{spec: string; doc: object; noHeaders?: boolean; want: string}> = [
    {spec: 'KIND:.kind,ROUNDS:{.rounds}', doc: report, want: 'KIND         ROUNDS\nSyncReport   2\n'},
    {spec: 'ACTIONS:.actions[*].action', doc: report, want: 'ACTIONS\nbind-volume,delete\n'},
    {
      spec: 'CLAIM:.claim.name,VERDICT:.verdict,VOLUME:.volume',
      doc: list,
      want: 'CLAIM    VERDICT            VOLUME\nlogs     NoMatchingVolume   <none>\norders   WillBind           pv-0002\n',
    },
    {spec: 'CLAIM:.claim.name', doc: list, noHeaders: true, want: 'logs\norders\n'},
  ]
  for (const row of rows) {
    it(`${row.spec}${row.noHeaders === true ? ' --no-headers' : ''}`, () => {
      assert.equal(
        renderTemplate(parseTemplateOutput(`custom-columns=${row.spec}`)!, row.doc as never, row.noHeaders),
        row.want,
      )
    })
  }
})

describe('templates that do not parse: a TemplateError saying why', () => {
  const rows: Array<[string, RegExp]> = [
    ['jsonpath=', /give it a template/],
    ['jsonpath', /give it a template/],
    ['jsonpath={.kind', /unclosed action/],
    ['jsonpath={range .items[*]}{.kind}', /\{range\} without an \{end\}/],
    ['jsonpath={.kind}{end}', /\{end\} without a \{range\}/],
    ['jsonpath={.items[?(@.x==)]}', /\.items/],
    ['jsonpath={"unterminated}', /unclosed action|not a string/],
    ['custom-columns=KIND', /is not HEADER:PATH/],
    ['custom-columns=KIND:', /is not HEADER:PATH/],
  ]
  for (const [output, want] of rows) {
    it(output, () =>
      assert.throws(
        () => parseTemplateOutput(output),
        (err: unknown) => err instanceof TemplateError && want.test(err.message),
      ),
    )
  }
  it('any other format is not a template', () => {
    for (const output of ['json', 'wide', 'jsonpath-file=x', 'go-template={{.}}'])
      assert.equal(parseTemplateOutput(output), undefined)
  })
})
