// `pvctl completion SHELL` for real: the bash script is sourced in bash, its function driven as bash drives
// it at a TAB (COMP_WORDS split at COMP_WORDBREAKS as bash splits them: `--output=j` is `--output`, `=`,
// `j`), and COMPREPLY read back. The built CLI answers it (`pvctl` on the PATH is bin/run.js), names
// from -f examples/cluster.yaml. zsh and fish load theirs where installed; PowerShell's is checked for shape.
import assert from 'node:assert/strict'
import {execFile, spawnSync} from 'node:child_process'
import {symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {promisify} from 'node:util'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {startEmulator} from '../emulator/emulator.js'
import {onPath, skipWithout} from '../tools.js'
import {bin, cleanEnv, example, repoRoot, runCli, tempDir, withoutVersionNotice} from './run-cli.js'

const pathDir = tempDir('completion-path')
symlinkSync(bin, path.join(pathDir, 'pvctl'))
symlinkSync(path.join(repoRoot, 'bin', 'kubectl_complete-pvctl.js'), path.join(pathDir, 'kubectl_complete-pvctl'))
symlinkSync(path.join(repoRoot, 'bin', 'kubectl-pvctl.js'), path.join(pathDir, 'kubectl-pvctl'))
const execFileAsync = promisify(execFile)
const env = cleanEnv({PATH: `${pathDir}${path.delimiter}${process.env.PATH ?? ''}`, HOME: tempDir('completion-home')})

const installed = (shell: string): boolean => onPath(shell) !== undefined
const noBash = skipWithout('bash', 'the bash completion tests')

const script = async (shell: string): Promise<string> => {
  const r = await runCli(['completion', shell])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stderr, '')
  return r.stdout
}

interface BashRow {
  /** COMP_WORDS as bash splits the line; the last is the word under the cursor. */
  words: string[]
  want: string[]
  /** Only these must be among the candidates (the rest not checked). */
  includes?: boolean
}

const rows: BashRow[] = [
  {words: ['pvctl', ''], want: ['audit', 'completion', 'explain', 'help', 'reclaim', 'relink', 'sync', 'version']},
  {words: ['pvctl', 'ex'], want: ['explain']},
  {words: ['pvctl', 'sync', '--dry'], want: ['--dry-run']},
  {words: ['pvctl', 'audit', '--fail'], want: ['--fail-on', '--fail-on-empty']},
  {
    words: ['pvctl', 'sync', '-'],
    want: ['-f', '-n', '-A', '-l', '-o', '--dry-run', '--no-headers', '--help'],
    includes: true,
  },
  {words: ['pvctl', 'sync', '-o', ''], want: ['table', 'wide', 'diff', 'json', 'yaml', 'name']},
  {words: ['pvctl', 'explain', '-o', 'j'], want: ['json']},
  {words: ['pvctl', 'sync', '--output', '=', 'y'], want: ['yaml']},
  {words: ['pvctl', 'sync', '--output', '='], want: ['=table', '=wide', '=diff', '=json', '=yaml', '=name']},
  {words: ['pvctl', 'audit', '--fail-on', ''], want: ['error', 'warning', 'info', 'none']},
  {words: ['pvctl', 'completion', 'p'], want: ['powershell']},
  {
    words: ['pvctl', 'explain', '-f', example, '-n', 'shop', 'pvc', ''],
    want: ['carts', 'logs', 'orders', 'reports-a', 'reports-b', 'search', 'sessions'],
  },
  {words: ['pvctl', 'explain', '-f', example, '-n', 'shop', 'pvc/s'], want: ['pvc/search', 'pvc/sessions']},
  {
    words: ['pvctl', 'sync', '-f', example, 'pv/pv-0001', 'pv/pv-000'],
    want: ['pv/pv-0002', 'pv/pv-0003', 'pv/pv-0004', 'pv/pv-0005', 'pv/pv-0006', 'pv/pv-0008'],
  },
  {
    words: ['pvctl', 'audit', '-f', example, 'pv', 'pv-0004', 'pv-000'],
    want: ['pv-0001', 'pv-0002', 'pv-0003', 'pv-0005', 'pv-0006', 'pv-0008'],
  },
  {words: ['pvctl', 'audit', '-f', example, '-n', ''], want: ['shop']},
  // Flags before the command, as kubectl takes them.
  {words: ['pvctl', '-n', 'shop', 'ex'], want: ['explain']},
  {words: ['pvctl', '-n', 'shop', '-f', example, 'explain', 'pvc/s'], want: ['pvc/search', 'pvc/sessions']},
  {words: ['pvctl', '-f', example, '-n', ''], want: ['shop']},
  {words: ['pvctl', '--context', 'x', 'sync', '--dry'], want: ['--dry-run']},
  // The claims of the namespace given: none in default.
  {words: ['pvctl', 'explain', '-f', example, 'pvc', ''], want: []},
  // A snapshot that cannot be read, a cluster that cannot be reached: no names, no error in the prompt.
  {words: ['pvctl', 'explain', '-f', '/nonexistent.yaml', '-n', 'shop', 'pvc', ''], want: []},
  {words: ['pvctl', 'explain', '--kubeconfig', '/nonexistent', 'pvc', ''], want: []},
]

/**
 * Sources the script and drives its function once per row, as bash would at a TAB; COMPREPLY per row. Not
 * spawnSync: an emulator in this process must go on answering while bash runs.
 */
async function driveBash(
  source: string,
  lines: ReadonlyArray<readonly string[]>,
): Promise<{replies: string[][]; stderr: string}> {
  const file = path.join(tempDir('completion-bash'), 'pvctl.bash')
  writeFileSync(file, source)
  const quote = (w: string) => `'${w.replace(/'/g, "'\\''")}'`
  const calls = lines.map(
    (words) =>
      `COMP_WORDS=(${words.map(quote).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); __pvctl_complete; printf '%s\\x1f' "\${COMPREPLY[@]}"; printf '\\n'`,
  )
  const {stdout, stderr} = await execFileAsync(
    'bash',
    ['--norc', '--noprofile', '-c', `source ${quote(file)}\n${calls.join('\n')}`],
    {cwd: repoRoot, env, encoding: 'utf8'},
  )
  const replies = stdout
    .split('\n')
    .slice(0, lines.length)
    .map((l) => l.split('\x1f').filter((w) => w !== ''))
  return {replies, stderr}
}

test('bash: the sourced script completes commands, flags, -o values and names from -f', {skip: noBash}, async () => {
  const {replies, stderr} = await driveBash(
    await script('bash'),
    rows.map((r) => r.words),
  )
  assert.equal(stderr, '')
  rows.forEach((row, i) => {
    const line = row.words.join(' ')
    if (row.includes === true)
      for (const w of row.want) assert.ok(replies[i].includes(w), `${line}: ${w} not in ${replies[i].join(' ')}`)
    else assert.deepEqual(replies[i], row.want, line)
  })
})

test(
  "bash, live: names from the cluster of the line's --kubeconfig (claims of the context's namespace), read-only",
  {skip: noBash},
  async () => {
    const {state} = await loadSnapshot(example)
    const api = await startEmulator({tls: true, objects: structuredClone([...state.volumes, ...state.claims]) as never})
    try {
      const kubeconfig = path.join(tempDir('completion-live'), 'kubeconfig')
      writeFileSync(kubeconfig, api.kubeconfig({namespace: 'shop', name: 'demo'}))
      // The line's --request-timeout is completion's deadline: a minute, so that a busy machine does not fail the test.
      const live = ['--kubeconfig', kubeconfig, '--request-timeout', '1m']
      const lines = [
        ['pvctl', 'explain', ...live, 'pvc', 'o'],
        ['pvctl', 'sync', ...live, '--context', 'demo', 'pv/pv-000'],
        ['pvctl', 'audit', ...live, '-n', ''],
        ['pvctl', 'audit', ...live, '--context', ''],
      ]
      const {replies} = await driveBash(await script('bash'), lines)
      assert.deepEqual(replies, [
        ['orders'],
        ['pv/pv-0001', 'pv/pv-0002', 'pv/pv-0003', 'pv/pv-0004', 'pv/pv-0005', 'pv/pv-0006', 'pv/pv-0008'],
        ['shop'],
        ['demo'],
      ])
      const reads = api.requests.filter(
        (r) => r.resource === 'persistentvolumeclaims' || r.resource === 'persistentvolumes',
      )
      assert.ok(reads.length >= 2, 'the claims and volumes were listed')
      assert.deepEqual([...new Set(api.requests.map((r) => r.method))], ['GET'])
    } finally {
      await api.stop()
    }
  },
)

test('bash: the script registers its function for pvctl, with file names as the fallback', {skip: noBash}, async () => {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', 'source <(pvctl completion bash) && complete -p pvctl'], {
    env,
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout.trim(), 'complete -o default -F __pvctl_complete pvctl')
})

test('kubectl_complete-pvctl answers kubectl as pvctl __complete does', () => {
  const words = ['explain', '-f', example, '-n', 'shop', 'pvc/o']
  const plugin = spawnSync(path.join(pathDir, 'kubectl_complete-pvctl'), words, {cwd: repoRoot, env, encoding: 'utf8'})
  const own = spawnSync(path.join(pathDir, 'pvctl'), ['__complete', ...words], {cwd: repoRoot, env, encoding: 'utf8'})
  assert.equal(plugin.status, 0, plugin.stderr)
  assert.equal(plugin.stdout, 'pvc/orders\n:4\n')
  assert.equal(own.stdout, plugin.stdout)
})

test(
  'kubectl pvctl with flags before the command: kubectl runs the plugin with them, pvctl moves the command first',
  {skip: skipWithout('kubectl', 'kubectl pvctl with flags before the command')},
  async () => {
    const [plugin, own] = await Promise.all([
      execFileAsync('kubectl', ['pvctl', '-n', 'shop', 'explain', 'pvc/logs', '-f', example, '-o', 'json'], {
        cwd: repoRoot,
        env,
        encoding: 'utf8',
      }).catch((err: {code: number; stdout: string; stderr: string}) => err),
      runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'json']),
    ])
    assert.equal(withoutVersionNotice(plugin.stderr), '')
    assert.equal(plugin.stdout, own.stdout)
    assert.equal(JSON.parse(plugin.stdout).verdict, 'NoMatchingVolume')
  },
)

test(
  'kubectl completes kubectl pvctl through kubectl_complete-pvctl (kubectl 1.26+)',
  {skip: skipWithout('kubectl', "kubectl's completion of kubectl pvctl")},
  async () => {
    const {stdout} = await execFileAsync(
      'kubectl',
      ['__complete', 'pvctl', 'explain', '-f', example, '-n', 'shop', 'pvc/o'],
      {cwd: repoRoot, env, encoding: 'utf8'},
    )
    assert.match(stdout, /^pvc\/orders\n:4\n/)
  },
)

test('pvctl __complete: a -h or --help being completed is a word, not a request for help', async () => {
  const r = await runCli(['__complete', 'sync', '--he'])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stdout, '--help\tShow help.\n:4\n')
})

const others: Array<{shell: string; program: string; load: string[]; shape: RegExp}> = [
  {
    shell: 'zsh',
    program: 'zsh',
    load: [
      '-f',
      '-c',
      'autoload -U compinit && compinit -u -D && source <(pvctl completion zsh) && print -r -- ${_comps[pvctl]}',
    ],
    shape: /^#compdef pvctl$/m,
  },
  {
    shell: 'fish',
    program: 'fish',
    load: ['--no-config', '-c', 'pvctl completion fish | source; and complete -c pvctl'],
    shape: /^complete -c pvctl -f -a '\(__pvctl_complete\)'$/m,
  },
  {
    shell: 'powershell',
    program: 'pwsh',
    load: ['-NoProfile', '-Command', 'pvctl completion powershell | Out-String | Invoke-Expression; "loaded"'],
    shape: /^Register-ArgumentCompleter -Native -CommandName 'pvctl'/m,
  },
]

for (const o of others) {
  test(`${o.shell}: a script is printed${installed(o.program) ? ' and loads' : ''}`, async (t) => {
    const text = await script(o.shell)
    assert.match(text, o.shape)
    assert.match(text, /pvctl __complete|__complete/)
    if (!installed(o.program)) {
      // Said, not skipped silently: the run reports which shells it could not try.
      t.diagnostic(`${o.program} is not installed: the ${o.shell} script was checked for shape only, not loaded`)
      return
    }
    const r = spawnSync(o.program, o.load, {env, encoding: 'utf8'})
    assert.equal(r.status, 0, r.stderr)
    assert.notEqual(r.stdout.trim(), '', 'the shell registered the completion')
  })
}

test('pvctl completion with no or an unknown shell is a usage error (exit 2)', async () => {
  const [none, unknown] = await Promise.all([runCli(['completion']), runCli(['completion', 'tcsh'])])
  for (const r of [none, unknown]) {
    assert.equal(r.code, 2, r.stderr)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, /^error: .*(shell|tcsh)/)
  }
})
