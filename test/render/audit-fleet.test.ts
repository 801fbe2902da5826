// Golden tests of the fleet audit's renderers: the table (total, clusters table, a section per context,
// one line saying where the codes are described), JSON and YAML (an AuditReportList). Regenerate after a
// deliberate change with
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/audit-fleet.test.ts
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {parse as parseYaml} from 'yaml'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {aimFixes, unreadClusterReport} from '../../src/engine/audit/fleet.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {auditFleetJsonChunks, auditFleetYamlChunks} from '../../src/render/audit-fleet-doc.js'
import {renderAuditFleetTable} from '../../src/render/audit-fleet-table.js'
import {renderAuditTable} from '../../src/render/audit-table.js'
import {ansi, plain} from '../../src/render/color.js'
import {golden} from './golden.js'

const {state} = await loadSnapshot(['examples/cluster.yaml'])
const opts = {gates: defaultFeatureGates, failOn: 'warning' as const, ignore: new Set<string>()}
const flags = (context: string) => ['--context', context]
const shop = aimFixes({...auditState(state, {...opts, sourceArgs: flags('shop')}), context: 'shop'}, flags('shop'))
const empty = {...auditState({...state, volumes: [], claims: [], pods: []}, opts), context: 'empty'}
const down = unreadClusterReport(
  {
    context: 'down',
    server: 'https://<redacted>@10.0.0.9:6443',
    cause: 'unreachable',
    status: 0,
    error: 'cannot reach the API server at https://<redacted>@10.0.0.9:6443: ECONNREFUSED',
    kubeconfigArgs: [],
  },
  new Set(),
)
const fleet = [shop, down, empty]

describe('fleet audit renderers', () => {
  it('table', () => golden('audit-fleet-table', renderAuditFleetTable(fleet, plain)))
  it('table, coloured', () => golden('audit-fleet-table-ansi', renderAuditFleetTable([empty, down], ansi)))
  it('one cluster: its section alone, no clusters table', () => {
    const out = renderAuditFleetTable([shop], plain)
    assert.ok(out.startsWith('=== context shop ===\nAudit: 3/7 claims'), out)
    // The section is the audit of one cluster as it is printed alone.
    assert.equal(out.replace('=== context shop ===\n', ''), renderAuditTable(shop, plain))
  })
  it('capacity bars in the section of each cluster read, none for one that was not', () => {
    const out = renderAuditFleetTable(fleet, plain, {}, 'namespace')
    assert.equal(
      (out.match(/^Capacity by class:/gm) ?? []).length,
      1,
      'shop has rows; down was not read and empty has none',
    )
    assert.ok(out.indexOf('Capacity by namespace:') > out.indexOf('=== context shop ==='))
    assert.ok(out.indexOf('Capacity by namespace:') < out.indexOf('=== context down ==='))
    assert.equal(renderAuditFleetTable(fleet, plain, {}, 'none'), renderAuditFleetTable(fleet, plain))
  })
  it('json', () => golden('audit-fleet-json', [...auditFleetJsonChunks(fleet)].join('')))
  it('yaml: the JSON document', () => {
    const yaml = [...auditFleetYamlChunks(fleet)].join('')
    golden('audit-fleet-yaml', yaml)
    assert.deepEqual(parseYaml(yaml), JSON.parse([...auditFleetJsonChunks(fleet)].join('')))
  })
})
