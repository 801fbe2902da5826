// Every destructive call on a live cluster goes through the destruction guard (src/executor/guard/, behind
// src/executor/destruction-guard.ts), where the double-checks are: a volume status write (the one that can
// make it Released), a volume plugin's recycle or delete (the recycler and cleanup pods), and a PV DELETE.
// A new command or a refactor that calls one of them directly fails here, naming the file and line.
import assert from 'node:assert/strict'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {repoRoot} from '../conformance/cases.js'

/** The guard's files: its concepts, one file each. */
const GUARD = 'src/executor/guard/'

/** Calls only the guard may make, and the one file besides it that may make each (the port's own use). */
const rules: Array<{what: string; pattern: RegExp; alsoIn?: string}> = [
  // The executor's status writes call the guard's method of that name (guard.replaceVolumeStatus).
  {what: 'a volume status write (replaceVolumeStatus)', pattern: /(?<!\bguard)\.replaceVolumeStatus\(/},
  {what: 'a PV DELETE (deleteVolume)', pattern: /\.deleteVolume\(/},
  {what: "a volume plugin's recycle", pattern: /\b(plugins|volumePlugins)\??\.recycle\(/},
  {what: "a volume plugin's delete", pattern: /\b(plugins|volumePlugins)\??\.delete\(/},
  // The plugins' pods are started by LiveVolumePlugins alone, whose recycle and delete only the guard calls.
  {
    what: "a plugin's pod (runPodToCompletion)",
    pattern: /(?<!function )\brunPodToCompletion\(/,
    alsoIn: 'src/volume-plugins/live-plugins.ts',
  },
  // A volume's spec PUT: the executor writes the controller's own planned writes with it (a bind); a
  // reclaim, which gives the volume and its data to another claim, only through the guard.
  {
    what: 'a volume spec write (replaceVolume), as a reclaim makes',
    pattern: /\.replaceVolume\(/,
    alsoIn: 'src/executor/executor.ts',
  },
  // The reclaim's edit and decision are the engine's; outside it only the guard (the write) and the
  // reclaim use-case (the plan shown, on the state as read) may make them.
  {what: "a reclaim's decision (decideReclaim)", pattern: /\bdecideReclaim\(/, alsoIn: 'src/app/reclaim.ts'},
  {what: "a reclaim's edit (reclaimedVolume)", pattern: /\breclaimedVolume\(/},
  // A relink's likewise: its edits are the engine's, its decision the guard's and the relink use-case's.
  {what: "a relink's decision (decideRelink)", pattern: /\bdecideRelink\(/, alsoIn: 'src/app/relink.ts'},
  {what: "a relink's edits (relinkWrites)", pattern: /\brelinkWrites\(/},
]

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : []
  })
}

test('destructive calls are made by the destruction guard alone', () => {
  const offences: string[] = []
  // The engine plans and never calls a cluster (the boundary test holds it pure): its VolumeOperations
  // port is the executor's replay of what the guard carried out.
  const files = sources(path.join(repoRoot, 'src')).filter((f) => !f.includes(`${path.sep}engine${path.sep}`))
  for (const file of files) {
    const rel = path.relative(repoRoot, file).split(path.sep).join('/')
    if (rel.startsWith(GUARD)) continue
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const rule of rules) {
          if (rule.pattern.test(line) && rel !== rule.alsoIn && !/^\s*(\/\/|\*)/.test(line))
            offences.push(`${rel}:${i + 1}: ${rule.what} outside the guard`)
        }
      })
  }
  assert.deepEqual(offences, [])
})

test('the guard makes each of those calls (the rules above match real code, not nothing)', () => {
  const guard = sources(path.join(repoRoot, GUARD))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n')
  const guardMakes = (r: (typeof rules)[number]) =>
    r.alsoIn === undefined ||
    r.alsoIn === 'src/executor/executor.ts' ||
    r.alsoIn === 'src/app/reclaim.ts' ||
    r.alsoIn === 'src/app/relink.ts'
  for (const rule of rules.filter((r) => guardMakes(r) && !/reclaimedVolume|relinkWrites/.test(r.what)))
    assert.match(guard, rule.pattern, rule.what)
})

test("the reclaim use-case writes through the guard's reclaim alone", () => {
  const app = readFileSync(path.join(repoRoot, 'src/app/reclaim.ts'), 'utf8')
  assert.match(app, /\bguardedReclaim\(/)
  assert.doesNotMatch(app, /\.replace(Volume|VolumeStatus|Claim|ClaimStatus)\(/)
})

test("the relink use-case writes through the guard's relink alone", () => {
  const app = readFileSync(path.join(repoRoot, 'src/app/relink.ts'), 'utf8')
  assert.match(app, /\bguardedRelink\(/)
  assert.doesNotMatch(app, /\.replace(Volume|VolumeStatus|Claim|ClaimStatus)\(/)
})
