// The package as users get it: `npm pack`, then a global install into a temporary prefix. Every example of
// every command's help runs from the installed `pvctl` (live ones against the emulator, loop mode until
// SIGTERM), `man pvctl-sync` opens the installed page, and `kubectl pvctl` finds the installed plugin on PATH.
import assert from 'node:assert/strict'
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, test} from 'node:test'

import {parse, stringify} from 'yaml'

import {kubelet} from '../e2e/kubelet.js'
import {startEmulator, type Emulator} from '../emulator/emulator.js'
import {cleanEnv, example, IN_SYNC_SNAPSHOT, repoRoot, tempDir} from '../cli/run-cli.js'
import {findTool, skipWithout} from '../tools.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {FINDING_CODES} from '../../src/engine/audit/findings.js'

const root = tempDir('pack')
const prefix = path.join(root, 'prefix')
const work = path.join(root, 'work')
let tarball = ''
let packedFiles: string[] = []
let api: Emulator
/** pvctl reclaim's examples name a Released pv-0004 and a claim shop/db: examples/reclaim.yaml, served apart. */
let reclaimApi: Emulator
/** pvctl relink's examples name a restored shop/db and pv-0004 that names it with an old uid: examples/relink.yaml, served apart. */
let relinkApi: Emulator
let stopKubelet: () => void
let env: NodeJS.ProcessEnv
let reclaimEnv: NodeJS.ProcessEnv
let relinkEnv: NodeJS.ProcessEnv

/** The emulator's kubeconfig with the contexts the fleet examples name, each pointing at the emulator too. */
function fleetKubeconfig(kubeconfig: string): string {
  const config = parse(kubeconfig) as {contexts: Array<{name: string; context: unknown}>}
  const [own] = config.contexts
  for (const name of ['prod-eu', 'prod-us', 'staging']) config.contexts.push({name, context: own.context})
  return stringify(config)
}

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: cleanEnv({
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    }),
  })

before(async () => {
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', root], repoRoot)) as Array<{
    filename: string
    files: Array<{path: string}>
  }>
  tarball = path.join(root, packed[0].filename)
  packedFiles = packed[0].files.map((f) => f.path)
  npm(['install', '-g', '--prefix', prefix, tarball], root)
  const {state} = await loadSnapshot(example)
  api = await startEmulator({
    objects: structuredClone([
      ...state.classes,
      ...state.volumes,
      ...state.claims,
      ...state.pods,
      ...state.nodes,
    ]) as never,
  })
  stopKubelet = kubelet(api, 'Succeeded')
  const reclaim = await loadSnapshot(path.join(repoRoot, 'examples', 'reclaim.yaml'))
  reclaimApi = await startEmulator({
    objects: structuredClone([...reclaim.state.classes, ...reclaim.state.volumes, ...reclaim.state.claims]) as never,
  })
  const relink = await loadSnapshot(path.join(repoRoot, 'examples', 'relink.yaml'))
  relinkApi = await startEmulator({
    objects: structuredClone([...relink.state.classes, ...relink.state.volumes, ...relink.state.claims]) as never,
  })
  mkdirSync(work, {recursive: true})
  mkdirSync(path.join(work, 'home'))
  cpSync(path.join(repoRoot, 'examples'), path.join(work, 'examples'), {recursive: true})
  // The examples' snapshot.yaml, holding the claim team-a/data they name.
  writeFileSync(path.join(work, 'snapshot.yaml'), IN_SYNC_SNAPSHOT.replaceAll('namespace: app', 'namespace: team-a'))
  writeFileSync(path.join(work, 'kubeconfig'), fleetKubeconfig(api.kubeconfig({namespace: 'default'})))
  writeFileSync(path.join(work, 'reclaim.kubeconfig'), reclaimApi.kubeconfig({namespace: 'default'}))
  writeFileSync(path.join(work, 'relink.kubeconfig'), relinkApi.kubeconfig({namespace: 'default'}))
  env = cleanEnv({
    PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`,
    KUBECONFIG: path.join(work, 'kubeconfig'),
    HOME: path.join(work, 'home'),
  })
  reclaimEnv = {...env, KUBECONFIG: path.join(work, 'reclaim.kubeconfig')}
  relinkEnv = {...env, KUBECONFIG: path.join(work, 'relink.kubeconfig')}
})

after(async () => {
  stopKubelet?.()
  await api?.stop()
  await reclaimApi?.stop()
  await relinkApi?.stop()
})

test('the global install puts pvctl, kubectl-pvctl and kubectl_complete-pvctl on PATH and the man pages under share/man', () => {
  for (const name of ['pvctl', 'kubectl-pvctl', 'kubectl_complete-pvctl'])
    assert.ok(existsSync(path.join(prefix, 'bin', name)), name)
  assert.ok(existsSync(path.join(prefix, 'share', 'man', 'man1', 'pvctl-sync.1')))
})

test('the package holds examples/ and a LICENSE', () => {
  assert.ok(packedFiles.includes('LICENSE'), packedFiles.join(' '))
  assert.ok(packedFiles.includes('examples/cluster.yaml'), packedFiles.join(' '))
})

/** Every example of every command's help, from the installed package's manifest, as a shell command line. */
function helpExamples(): Array<{id: string; command: string}> {
  const manifest = JSON.parse(
    readFileSync(path.join(prefix, 'lib', 'node_modules', 'pvctl', 'oclif.manifest.json'), 'utf8'),
  ) as {
    commands: Record<string, {id: string; examples?: Array<string | {command: string}>}>
  }
  return Object.values(manifest.commands).flatMap((c) =>
    (c.examples ?? []).map((e) => ({
      id: c.id,
      command: (typeof e === 'string' ? e : e.command)
        .replaceAll('<%= config.bin %>', 'pvctl')
        .replaceAll('<%= command.id %>', c.id),
    })),
  )
}

test(
  'every help example runs from the installed pvctl',
  {timeout: 300_000, skip: skipWithout('bash', "the installed package's help examples")},
  async (t) => {
    const examples = helpExamples()
    assert.ok(examples.length >= 10, `${examples.length} examples`)
    for (const {id, command} of examples) {
      await t.test(command, async () => {
        const loop = command.includes('--watch')
        const child = spawn('bash', ['-c', command], {
          cwd: work,
          env: id === 'reclaim' ? reclaimEnv : id === 'relink' ? relinkEnv : env,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        let err = ''
        child.stdout.on('data', (b: Buffer) => (out += b))
        // Loop mode runs until SIGTERM, which it answers with exit 0 (bash runs one command in its own process):
        // sent once its caches are synced, the loop running.
        let stopped = false
        child.stderr.on('data', (b: Buffer) => {
          err += b
          if (loop && !stopped && /Caches are synced/.test(err)) stopped = child.kill('SIGTERM')
        })
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
        // 0 in sync, 1 out of sync (sync --dry-run, explain of a Pending claim): never a usage or cluster error.
        assert.ok(code === 0 || code === 1, `exit ${code}\n${out}\n${err}`)
        assert.doesNotMatch(err, /^error:/m)
        // An example that sends its output to a file (`> report.html`) printed it there.
        const file = / > (\S+)$/.exec(command)?.[1]
        const printed = file !== undefined ? readFileSync(path.join(work, file), 'utf8') : out + err
        assert.notEqual(printed, '', `the example printed nothing${file !== undefined ? ` to ${file}` : ''}`)
      })
    }
  },
)

test('man pvctl-sync opens the installed page', {skip: skipWithout('man', 'the installed man page check')}, () => {
  const page = path.join(prefix, 'share', 'man', 'man1', 'pvctl-sync.1')
  const r = spawnSync('man', ['-l', page], {
    env: {...env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80'},
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /pvctl-sync/)
  assert.match(r.stdout, /--dry-run/)
})

test(
  'kubectl pvctl sync --dry-run -f ... runs the installed plugin',
  {skip: skipWithout('kubectl', 'the installed kubectl plugin check')},
  () => {
    const kubectl = findTool('kubectl')!
    const r = spawnSync(kubectl, ['pvctl', 'sync', '--dry-run', '-f', path.join(work, 'examples', 'cluster.yaml')], {
      env,
      encoding: 'utf8',
    })
    assert.equal(r.status, 1, r.stderr)
    assert.match(r.stdout, /^ACTION\s+OBJECT\s+REASON/m)
    const help = spawnSync(kubectl, ['pvctl', 'sync', '--help'], {env, encoding: 'utf8'})
    assert.match(help.stdout, /\$ kubectl pvctl sync/)
  },
)

// The README and every --help name `-f examples/cluster.yaml`, which reads from the folder a user is in: in
// any other folder than a clone, the error says where the installed package keeps its examples.
test('from a folder without examples/, -f examples/cluster.yaml is an error naming the installed examples, which run as named', () => {
  const elsewhere = path.join(root, 'elsewhere')
  mkdirSync(elsewhere, {recursive: true})
  const installed = path.join(prefix, 'lib', 'node_modules', 'pvctl', 'examples')
  const r = spawnSync('pvctl', ['sync', '--dry-run', '-f', 'examples/cluster.yaml'], {
    cwd: elsewhere,
    env,
    encoding: 'utf8',
  })
  assert.equal(r.status, 2, r.stderr)
  assert.equal(r.stdout, '')
  assert.equal(
    r.stderr,
    `error: no such file or directory "examples/cluster.yaml"; pvctl's examples are in ${installed}: -f ${path.join(installed, 'cluster.yaml')}\n`,
  )
  const again = spawnSync('pvctl', ['sync', '--dry-run', '-f', path.join(installed, 'cluster.yaml')], {
    cwd: elsewhere,
    env,
    encoding: 'utf8',
  })
  assert.equal(again.status, 1, again.stderr)
})

// What audit's output points at is in the package: every code's meaning in its --help and man page, no file
// of the source tree (docs/codes.md is not installed).
test("audit's output points at the installed help and man page, which describe every finding code", () => {
  const installed = path.join(prefix, 'lib', 'node_modules', 'pvctl')
  const audit = spawnSync('pvctl', ['audit', '-f', path.join(installed, 'examples', 'cluster.yaml')], {
    cwd: root,
    env,
    encoding: 'utf8',
  })
  assert.equal(audit.status, 1, audit.stderr)
  for (const text of [
    audit.stdout,
    spawnSync('pvctl', ['audit', '-f', path.join(installed, 'examples', 'cluster.yaml'), '-o', 'markdown'], {
      cwd: root,
      env,
      encoding: 'utf8',
    }).stdout,
  ]) {
    assert.doesNotMatch(text, /docs\//)
    assert.match(text, /pvctl audit --help`? \(FINDING CODES\) and `?man pvctl-audit/)
  }
  assert.ok(
    !existsSync(path.join(installed, 'docs', 'codes.md')),
    'the package does not ship docs/: the output must not send users there',
  )
  const help = spawnSync('pvctl', ['audit', '--help'], {env, encoding: 'utf8'}).stdout.replace(/\s+/g, ' ')
  const page = spawnSync('man', ['-l', path.join(prefix, 'share', 'man', 'man1', 'pvctl-audit.1')], {
    env: {...env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '200'},
    encoding: 'utf8',
  }).stdout.replace(/\s+/g, ' ')
  for (const [code, {severity, meaning}] of Object.entries(FINDING_CODES)) {
    assert.ok(help.includes(`${code} (${severity}): ${meaning}`), `pvctl audit --help describes ${code}`)
    assert.ok(page.includes(`${code} (${severity}): ${meaning}`), `man pvctl-audit describes ${code}`)
  }
})
