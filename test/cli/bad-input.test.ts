// Bad input through the built CLI, one row per mistake a user makes. docs/output-contract.md: a usage or input error
// exits 2, and "Errors go to stderr as one line `error: ...`; with `-o json` nothing but the report goes to
// stdout". So every error row checks: the exit status, stderr is exactly one line starting `error: ` that
// matches the row (naming the file, object and field where there are some), no stack trace, empty stdout.
// Rows that succeed (expectExit < 2) check that stderr carries only notices and stdout the output.
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {example, IN_SYNC_SNAPSHOT, runCli, tempDir, withoutVersionNotice} from './run-cli.js'

interface Row {
  name: string
  /** Written to a fresh temp dir; a name ending in `/` is a directory. `{dir}` in args is that dir. */
  files?: Record<string, string>
  args: string[]
  stdin?: string
  expectExit: number
  /** Error rows: the one stderr line. Success rows: every stderr line. */
  expectStderr: RegExp
  /** Success rows only: what stdout must match. */
  expectStdout?: RegExp
  /** Environment on top of the clean one; `{dir}` is the row's temp dir. */
  env?: Record<string, string | undefined>
}

const PV = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
`

const claimWith = (spec: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: shop
spec:
${spec}`

const CONFIGMAP = (name: string) => `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: shop
data:
  key: value
`

/** A volume with an unread field nested 10,000 deep, and one named with a million characters. */
const DEEP_JSON = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv1"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/x"},"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`
const DEEP_YAML = `apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec:\n  capacity: {storage: 1Gi}\n  x: ${'['.repeat(1_200)}${']'.repeat(1_200)}\n`
const LONG_NAME_JSON = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"${'x'.repeat(1_000_000)}"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/x"}}}`

const rows: Row[] = [
  // Snapshots that cannot be read.
  {
    name: 'malformed YAML',
    files: {'bad.yaml': `${PV}  hostPath: {path: /x\n`},
    args: ['-f', '{dir}/bad.yaml'],
    expectExit: 2,
    expectStderr: /^error: \S*bad\.yaml: invalid YAML at line \d+, column \d+: .+/,
  },
  {
    name: 'malformed JSON',
    files: {'bad.json': '{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},}'},
    args: ['-f', '{dir}/bad.json', '-o', 'json'],
    expectExit: 2,
    expectStderr: /^error: \S*bad\.json: invalid JSON\b.+/,
  },
  {
    name: 'malformed YAML on stdin names <stdin>',
    args: ['-f', '-', '-o', 'json'],
    stdin: 'apiVersion: v1\nkind: [List\n',
    expectExit: 2,
    expectStderr: /^error: <stdin>: invalid YAML at line \d+, column \d+/,
  },
  {
    name: 'an object without metadata.name (in a List)',
    files: {
      'list.yaml': `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolume\n  metadata: {name: pv1}\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {namespace: shop}\n`,
    },
    args: ['-f', '{dir}/list.yaml'],
    expectExit: 2,
    expectStderr: /^error: \S*list\.yaml: items\[1\] \(PersistentVolumeClaim\): metadata\.name is required$/,
  },
  {
    name: 'a claimRef that is not an object',
    files: {'ref.yaml': `apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec:\n  claimRef: 5\n`},
    args: ['-f', '{dir}/ref.yaml'],
    expectExit: 2,
    expectStderr: /^error: \S*ref\.yaml: PersistentVolume pv1: spec\.claimRef: must be an object, got /,
  },
  {
    name: 'accessModes that are not a list',
    files: {
      'modes.yaml': `apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec:\n  accessModes: ReadWriteOnce\n`,
    },
    args: ['-f', '{dir}/modes.yaml'],
    expectExit: 2,
    expectStderr:
      /^error: \S*modes\.yaml: PersistentVolume pv1: spec\.accessModes: must be a list of strings, got a string "ReadWriteOnce"$/,
  },
  {
    name: 'an invalid quantity in a claim request',
    files: {'qty.yaml': claimWith('  resources:\n    requests:\n      storage: 10Gx\n')},
    args: ['-f', '{dir}/qty.yaml', '-o', 'json'],
    expectExit: 2,
    expectStderr:
      /^error: \S*qty\.yaml: PersistentVolumeClaim shop\/data: spec\.resources\.requests\.storage: invalid quantity "10Gx"$/,
  },
  // Quantities the API server rejects (ValidatePersistentVolumeClaimSpec: storage more than zero; no
  // standard resource negative), though resource.ParseQuantity reads each (`Gi`, `.` and `+` as zero).
  ...(
    [
      ['"-1"', '-1', 'must be greater than or equal to 0'],
      ['-5Gi', '-5Gi', 'must be greater than or equal to 0'],
      ['Gi', 'Gi', 'must be greater than zero'],
      ['"."', '.', 'must be greater than zero'],
      ['"+"', '+', 'must be greater than zero'],
      ['-10', '-10', 'must be greater than or equal to 0'],
    ] as const
  ).map(([yaml, shown, why], i): Row => ({
    name: `a claim request the API server rejects: ${shown} (${why})`,
    files: {[`q${i}.yaml`]: claimWith(`  resources:\n    requests:\n      storage: ${yaml}\n`)},
    args: ['-f', `{dir}/q${i}.yaml`, '-o', 'json'],
    expectExit: 2,
    expectStderr: new RegExp(
      `^error: \\S*q${i}\\.yaml: PersistentVolumeClaim shop/data: spec\\.resources\\.requests\\.storage: "${shown.replace(/[.+]/g, '\\$&')}": ${why}$`,
    ),
  })),
  {
    name: 'a volume capacity the API server rejects: zero',
    files: {
      'pvq.yaml':
        'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec: {capacity: {storage: "0"}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}}\n',
    },
    args: ['-f', '{dir}/pvq.yaml'],
    expectExit: 2,
    expectStderr:
      /^error: \S*pvq\.yaml: PersistentVolume pv1: spec\.capacity\.storage: "0": must be greater than zero$/,
  },
  {
    name: 'an unread field nested 10,000 deep (JSON): refused before anything is planned or printed',
    files: {'deep.json': DEEP_JSON},
    args: ['-f', '{dir}/deep.json', '-o', 'json'],
    expectExit: 2,
    expectStderr:
      /^error: \S*deep\.json: nests deeper than any object of a cluster \(pvctl reads at most 1002 levels\)$/,
  },
  {
    name: 'the same in YAML flow style',
    files: {'deep.yaml': DEEP_YAML},
    args: ['-f', '{dir}/deep.yaml', '-o', 'json'],
    expectExit: 2,
    expectStderr:
      /^error: \S*deep\.yaml: nests deeper than any object of a cluster \(pvctl reads at most 1002 levels\)$/,
  },
  {
    name: 'a name longer than any the API server accepts: refused, and quoted clipped',
    files: {'long.json': LONG_NAME_JSON},
    args: ['-f', '{dir}/long.json'],
    expectExit: 2,
    expectStderr:
      /^error: \S*long\.json: .*metadata\.name must be no more than 253 characters, got 1000000 \(x{40}…\)$/,
  },
  {
    name: 'an invalid selector operator in a claim',
    files: {
      'sel.yaml': claimWith('  selector:\n    matchExpressions:\n    - {key: tier, operator: Likes, values: [gold]}\n'),
    },
    args: ['-f', '{dir}/sel.yaml'],
    expectExit: 2,
    expectStderr:
      /^error: \S*sel\.yaml: PersistentVolumeClaim shop\/data: spec\.selector\.matchExpressions\[0\]: .*"Likes"/,
  },
  {
    name: 'a missing file',
    args: ['-f', '{dir}/missing.yaml', '-o', 'json'],
    expectExit: 2,
    expectStderr: /^error: no such file or directory "\S*missing\.yaml"$/,
  },
  {
    name: 'a directory with no snapshot files',
    files: {'notes.txt': 'not a snapshot', 'sub.yaml/': ''},
    args: ['-f', '{dir}'],
    expectExit: 2,
    expectStderr: /^error: no \.yaml, \.yml or \.json files in directory "\S+"$/,
  },

  // Flags and arguments.
  {
    name: 'an unknown -o value',
    args: ['-f', example, '-o', 'xml'],
    expectExit: 2,
    expectStderr: /^error: .*--output.*xml/,
  },
  {
    name: 'an unknown flag',
    args: ['-f', example, '--frobnicate'],
    expectExit: 2,
    expectStderr: /^error: .*--frobnicate/,
  },
  {
    name: 'a bad -l selector',
    args: ['-f', example, '-l', 'tier=gold,env in (a,b', '-o', 'json'],
    expectExit: 2,
    expectStderr: /^error: invalid selector "tier=gold,env in \(a,b" \(-l\): cannot parse requirement "env in \(a,b"$/,
  },
  {
    name: 'an unknown feature gate',
    args: ['-f', example, '--feature-gates', 'Frobnicate=true'],
    expectExit: 2,
    expectStderr: /^error: --feature-gates: .*Frobnicate/,
  },
  {
    name: '--rounds 0',
    args: ['-f', example, '--rounds', '0', '-o', 'json'],
    expectExit: 2,
    expectStderr: /^error: .*--rounds/,
  },
  {
    name: '--rounds 0 says what a valid value is',
    args: ['-f', example, '--rounds', '0'],
    expectExit: 2,
    expectStderr: /^error: .*--rounds.*\b(1|one)\b/,
  },
  {
    name: 'an object of an unknown type',
    args: ['-f', example, 'foo/bar'],
    expectExit: 2,
    expectStderr: /^error: object "foo\/bar": unknown type "foo"/,
  },
  {
    name: 'a named claim that does not exist',
    args: ['-f', example, 'pvc/nope', '-o', 'json'],
    expectExit: 2,
    expectStderr: /^error: persistentvolumeclaim "nope" not found in namespace "default"$/,
  },
  {
    name: 'a named claim that exists in another namespace only',
    args: ['-f', example, 'pvc/orders', '-n', 'default'],
    expectExit: 2,
    expectStderr:
      /^error: persistentvolumeclaim "orders" not found in namespace "default"; it exists in namespace shop: add -n shop$/,
  },
  {
    name: 'a named volume that does not exist',
    args: ['-f', example, 'pv/nope', '-o', 'yaml'],
    expectExit: 2,
    expectStderr: /^error: persistentvolume "nope" not found$/,
  },
  {
    name: 'sync without -f and no cluster configured: an error, never localhost:8080',
    files: {'home/': ''},
    args: ['-o', 'json'],
    env: {HOME: '{dir}/home', KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined},
    expectExit: 2,
    expectStderr: /^error: no cluster configured: .*~\/\.kube\/config/,
  },
  {
    name: 'a --kubeconfig that does not exist',
    args: ['--kubeconfig', '{dir}/nope.yaml'],
    expectExit: 2,
    expectStderr: /^error: --kubeconfig "\S*nope\.yaml": no such file$/,
  },
  {
    name: 'a kubeconfig whose server is not a URL',
    files: {
      'kc.yaml':
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'not a url'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    },
    args: ['--kubeconfig', '{dir}/kc.yaml'],
    expectExit: 2,
    expectStderr:
      /^error: \S*kc\.yaml: cluster "c": invalid server URL "not a url" \(expected https:\/\/HOST\[:PORT\]\)$/,
  },
  {
    name: 'an exec credential plugin that is not installed (nothing is sent)',
    files: {
      'kc.yaml':
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /nonexistent/kubectl-oidc-login, interactiveMode: Never}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    },
    args: ['--kubeconfig', '{dir}/kc.yaml'],
    expectExit: 2,
    expectStderr:
      /^error: cannot use the kubeconfig's credentials for https:\/\/127\.0\.0\.1:1: spawn \/nonexistent\/kubectl-oidc-login ENOENT$/,
  },
  {
    name: 'a tokenFile that is not there',
    files: {
      'kc.yaml':
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {tokenFile: /nonexistent/token}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    },
    args: ['--kubeconfig', '{dir}/kc.yaml'],
    expectExit: 2,
    expectStderr:
      /^error: cannot use the kubeconfig's credentials for https:\/\/127\.0\.0\.1:1: ENOENT: no such file or directory, open '\/nonexistent\/token'$/,
  },
  {
    name: 'nothing on standard input (a failed `kubectl get ... |`) is not an empty cluster in sync',
    args: ['-f', '-'],
    stdin: '',
    expectExit: 2,
    expectStderr:
      /^error: <stdin>: no objects pvctl reads \(PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, Node\)$/,
  },
  {
    name: 'a --recycler-pod-template that is not there, found by a dry run too',
    args: ['-f', '{dir}/snap.yaml', '--recycler-pod-template', '{dir}/nope.yaml'],
    files: {'snap.yaml': PV},
    expectExit: 2,
    expectStderr: /^error: --recycler-pod-template: no such file or directory "\S*nope\.yaml"$/,
  },
  {
    name: 'a --recycler-pod-template without a Pod',
    args: ['-f', '{dir}/snap.yaml', '--recycler-pod-template', '{dir}/snap.yaml'],
    files: {'snap.yaml': PV},
    expectExit: 2,
    expectStderr: /^error: --recycler-pod-template "\S*snap\.yaml": expected exactly one Pod, found 0$/,
  },
  {
    name: 'a claim name with a slash too many',
    args: ['-f', '{dir}/snap.yaml', 'pvc/a/b/c'],
    files: {'snap.yaml': PV},
    expectExit: 2,
    expectStderr: /^error: object "pvc\/a\/b\/c": expected pvc\/NAME or pvc\/NAMESPACE\/NAME/,
  },
  {
    name: 'a claim named with -A (kubectl refuses it alike)',
    args: ['-f', '{dir}/snap.yaml', '-A', 'pvc/data'],
    files: {'snap.yaml': PV},
    expectExit: 2,
    expectStderr: /^error: object "pvc\/data": a resource cannot be retrieved by name across all namespaces \(-A\)/,
  },
  {
    name: 'a claim that is not there, with the one meant',
    args: ['-f', '{dir}/snap.yaml', 'pvc/dat'],
    files: {
      'snap.yaml':
        PV + '---\n' + claimWith('  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n'),
    },
    expectExit: 2,
    expectStderr: /^error: persistentvolumeclaim "dat" not found in namespace "default"; did you mean shop\/data\?$/,
  },
  {
    name: 'a KUBECONFIG that names no file',
    args: ['-o', 'json'],
    env: {HOME: '{dir}', KUBECONFIG: '{dir}/nope.yaml', KUBERNETES_SERVICE_HOST: undefined},
    expectExit: 2,
    expectStderr:
      /^error: no cluster configured: no --kubeconfig, KUBECONFIG names no file that exists \(\S*nope\.yaml\), no ~\/\.kube\/config/,
  },
  {
    name: 'a wrong file is quoted, not echoed whole',
    args: ['-f', '{dir}/notes.yaml'],
    files: {'notes.yaml': 'x'.repeat(5000) + '\n'},
    expectExit: 2,
    expectStderr: /^error: \S*notes\.yaml: document 1: expected an object, got a string "x{80}…" \(5000 characters\)$/,
  },
  {
    name: 'a boolean flag with a value it cannot take',
    args: ['-f', '{dir}/snap.yaml', '--dry-run=maybe'],
    files: {'snap.yaml': PV},
    expectExit: 2,
    expectStderr: /^error: --dry-run=maybe: invalid value \(true, false, client, server or none\)$/,
  },

  // Not errors: a namespace with no claim (a typo, most likely) is said on stderr; the plan is still made.
  {
    name: 'a -n with no claim in it is said',
    files: {'snap.yaml': IN_SYNC_SNAPSHOT},
    args: ['-f', '{dir}/snap.yaml', '-n', 'shp', '-o', 'json'],
    expectExit: 0,
    expectStderr: /^pvctl: no PersistentVolumeClaims, and no PersistentVolumes bound to one, in namespace "shp"$/,
    expectStdout: /"kind": "SyncReport"/,
  },
  {
    name: 'a -l that matches nothing is said: the audit would check nothing',
    files: {'snap.yaml': IN_SYNC_SNAPSHOT},
    args: ['-f', '{dir}/snap.yaml', '-l', 'app=db', '-o', 'json'],
    expectExit: 0,
    expectStderr: /^pvctl: no PersistentVolumes or PersistentVolumeClaims matching -l app=db$/,
    expectStdout: /"kind": "SyncReport"/,
  },
  {
    name: '--fail-on-empty: a scope that matches nothing is an error',
    files: {'snap.yaml': IN_SYNC_SNAPSHOT},
    args: ['-f', '{dir}/snap.yaml', '-n', 'shp', '-l', 'app=db', '--dry-run', '--fail-on-empty'],
    expectExit: 2,
    expectStderr:
      /^error: no PersistentVolumeClaims, and no PersistentVolumes bound to one, in namespace "shp" matching -l app=db$/,
  },
  // Not errors: `-l ''` selects everything, as kubectl's.
  {
    name: "an empty -l, as kubectl's: every object",
    files: {'snap.yaml': IN_SYNC_SNAPSHOT},
    args: ['-f', '{dir}/snap.yaml', '-l', '', '-o', 'json'],
    expectExit: 0,
    expectStderr: /^$/,
    expectStdout: /"kind": "SyncReport"/,
  },
  // Not errors: kubectl's `--dry-run=client` is a dry run, not an argument "client".
  {
    name: "kubectl's --dry-run=client",
    files: {'snap.yaml': IN_SYNC_SNAPSHOT},
    args: ['-f', '{dir}/snap.yaml', '--dry-run=client', '-o', 'json'],
    expectExit: 0,
    expectStderr: /^$/,
    expectStdout: /^\{\n {2}"apiVersion": "pvctl\/v1alpha1",\n[^]*"dryRun": true,[^]*\n\}\n$/,
  },
  // Not errors: kinds the controller does not read are skipped, with a count, and the run succeeds.
  {
    name: 'unknown kinds in a snapshot are skipped with a count',
    files: {'snap.yaml': IN_SYNC_SNAPSHOT + CONFIGMAP('a') + CONFIGMAP('b')},
    args: ['-f', '{dir}/snap.yaml', '-o', 'json'],
    expectExit: 0,
    expectStderr: /^pvctl: skipped 2 ConfigMap objects\b/,
    expectStdout: /^\{\n {2}"apiVersion": "pvctl\/v1alpha1",\n[^]*\n\}\n$/,
  },
]

function materialize(row: Row): {args: string[]; env?: Record<string, string | undefined>} {
  const dir = tempDir('bad-input')
  for (const [name, content] of Object.entries(row.files ?? {})) {
    if (name.endsWith('/')) mkdirSync(path.join(dir, name), {recursive: true})
    else writeFileSync(path.join(dir, name), content)
  }
  const env =
    row.env === undefined
      ? undefined
      : Object.fromEntries(Object.entries(row.env).map(([k, v]) => [k, v?.replaceAll('{dir}', dir)]))
  return {args: row.args.map((a) => a.replaceAll('{dir}', dir)), env}
}

test('sync: bad input exits 2 with one `error:` line on stderr and nothing on stdout', {concurrency: 4}, async (t) => {
  await Promise.all(
    rows.map((row) =>
      t.test(row.name, async () => {
        const {args, env} = materialize(row)
        const res = await runCli(['sync', '--dry-run', ...args], {stdin: row.stdin, env})
        const shown = `exit ${res.code}\n--- stderr\n${res.stderr}--- stdout\n${res.stdout.slice(0, 500)}`
        assert.equal(res.code, row.expectExit, `exit status\n${shown}`)
        assert.doesNotMatch(res.stderr, /^\s+at /m, `no stack trace\n${shown}`)
        assert.ok(res.stderr === '' || res.stderr.endsWith('\n'), `stderr ends with a newline\n${shown}`)
        const notices = withoutVersionNotice(res.stderr)
        const lines = notices === '' ? [] : notices.slice(0, -1).split('\n')
        if (row.expectExit >= 2) {
          assert.equal(lines.length, 1, `exactly one line on stderr\n${shown}`)
          assert.match(lines[0], /^error: \S/, `the line starts with "error: "\n${shown}`)
          assert.match(lines[0], row.expectStderr, shown)
          assert.equal(res.stdout, '', `nothing on stdout\n${shown}`)
        } else {
          for (const line of lines) assert.match(line, row.expectStderr, shown)
          assert.match(res.stdout, row.expectStdout ?? /./, shown)
        }
      }),
    ),
  )
})

test('an unknown command: one `error:` line naming it, the nearest command, exit 2 (also as `pvctl help COMMAND`)', async () => {
  for (const [command, hint] of [
    ['synk', /; did you mean "sync"\? \(see pvctl --help\)$/],
    ['frobnicate', /; its commands: audit, completion, explain, reclaim, relink, sync/],
  ] as const) {
    for (const args of [[command], ['help', command]]) {
      const res = await runCli(args)
      assert.equal(res.code, 2, res.stderr)
      assert.equal(res.stdout, '')
      assert.equal(res.stderr.split('\n').length, 2, res.stderr)
      assert.match(res.stderr, new RegExp(`^error: unknown command "${command}" for "pvctl"`))
      assert.match(res.stderr.trimEnd(), hint)
    }
  }
})

test('pvctl help COMMAND prints what COMMAND --help prints; pvctl help, the root help', async () => {
  for (const command of ['sync', 'explain', 'why']) {
    const [viaHelp, viaFlag] = await Promise.all([runCli(['help', command]), runCli([command, '--help'])])
    assert.equal(viaHelp.code, 0, viaHelp.stderr)
    assert.equal(viaHelp.stdout, viaFlag.stdout)
    assert.match(viaHelp.stdout, new RegExp(`^  \\$ pvctl ${command} `, 'm'))
  }
  // oclif reads `pvctl help --help` as the root's --help; `pvctl help help` is the help command's own.
  assert.match((await runCli(['help', 'help'])).stdout, /^  \$ pvctl help \[COMMAND\]$/m)
  const [root, rootFlag] = await Promise.all([runCli(['help']), runCli(['--help'])])
  assert.equal(root.stdout, rootFlag.stdout)
  assert.match(root.stdout, /^COMMANDS$/m)
})

test('explain agrees with sync on whether a snapshot is readable: the same refusal, nothing on stdout', async () => {
  const dir = tempDir('explain-bad')
  for (const [name, text] of [
    ['deep.json', DEEP_JSON],
    ['deep.yaml', DEEP_YAML],
    ['long.json', LONG_NAME_JSON],
  ] as const) {
    writeFileSync(path.join(dir, name), text)
    const run = await runCli(['explain', '-f', path.join(dir, name)])
    assert.equal(run.code, 2, `${name}: ${run.stderr}`)
    assert.equal(run.stdout, '', name)
    assert.match(run.stderr, /^error: .*(nests deeper than any object of a cluster|no more than 253 characters)/, name)
    assert.ok(run.stderr.length < 500, `${name}: the error quotes no huge name`)
  }
})

test(
  'a quantity of 50 MB of digits: every command refuses the snapshot in one line naming the object and field, exit 2, nothing on stdout',
  {timeout: 120_000},
  async () => {
    const dir = tempDir('huge-quantity')
    const file = path.join(dir, 'cluster.yaml')
    // The example cluster, with pv-0002 (the volume shop/orders matches) offering 50 MB of digits.
    const text = readFileSync(example, 'utf8')
    const at = text.indexOf('storage: 10Gi', text.indexOf('name: pv-0002'))
    writeFileSync(
      file,
      `${text.slice(0, at)}storage: "${'1'.repeat(50_000_000)}"${text.slice(at + 'storage: 10Gi'.length)}`,
    )
    for (const args of [
      ['explain', 'pvc/orders', '-n', 'shop'],
      ['explain', 'pv/pv-0002'],
      ['sync', '--dry-run'],
      ['audit'],
    ]) {
      const run = await runCli([...args, '-f', file])
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr.slice(0, 500)}`)
      assert.equal(run.stdout, '', args.join(' '))
      assert.match(
        run.stderr,
        /^error: \S*cluster\.yaml: PersistentVolume pv-0002: spec\.capacity\.storage: invalid quantity "1{80}…" \(50000000 characters\): quantity is too long: more than 1024 characters\n$/,
        args.join(' '),
      )
    }
  },
)

test("-f examples/NAME in a folder without it: the error names pvctl's own examples, and reads nothing else", async () => {
  const elsewhere = tempDir('elsewhere')
  const run = await runCli(['sync', '--dry-run', '-f', 'examples/cluster.yaml'], {cwd: elsewhere})
  assert.equal(run.code, 2)
  assert.equal(run.stdout, '')
  const bundled = path.join(path.dirname(example), path.sep)
  assert.equal(
    run.stderr,
    `error: no such file or directory "examples/cluster.yaml"; pvctl's examples are in ${bundled.slice(0, -1)}: -f ${example}\n`,
  )
  // A name the package has no example of: the plain error.
  assert.equal(
    (await runCli(['audit', '-f', 'examples/none.yaml'], {cwd: elsewhere})).stderr,
    'error: no such file or directory "examples/none.yaml"\n',
  )
})
