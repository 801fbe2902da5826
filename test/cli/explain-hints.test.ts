// Every command a hint prints reproduces what the user was looking at: the same -f, not a live cluster.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {runCli} from './run-cli.js'

test("a List's 'shows all' hint carries the -f it was run with, and running it shows them all", async () => {
  const list = await runCli(['explain', '-n', 'shop', '-f', 'examples/cluster.yaml'])
  const hint = /\(pvctl (explain pvc\/\S+ -n shop -f examples\/cluster\.yaml) shows all\)/.exec(list.stdout)
  assert.ok(hint, list.stdout)
  const again = await runCli(hint[1].split(' '))
  assert.match(again.stdout, /^Candidates: 7 volumes, /m)
  assert.doesNotMatch(again.stdout, /the nearest \d+ shown/)
})
