// `npm run release` (scripts/release.js), made into a folder of its own, and what a user downloads from it:
// the archives and their sums, the amd64 executable run with an empty environment (no PATH, so no
// Node.js to find: `env -i`) printing what the npm install prints under the same Node.js, offline and
// against a live (emulated) cluster, the arm64 executable printing the same on an emulated arm64, the krew manifest
// held to krew's rules (sigs.k8s.io/krew pkg/index/validation and cmd/validate-krew-manifest) and
// installed by krew itself, built from the Go module proxy, and the Homebrew formula.
// release/linux-*/pvctl, which deploy/Dockerfile copies, is what the archives hold.
import assert from 'node:assert/strict'
import {execFile, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmodSync, existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {parse} from 'yaml'

import {nodeRuntime} from '../../scripts/node-runtime.js'
import {RELEASE_NODE, TARGETS} from '../../scripts/release.js'
import {untarGz} from '../../scripts/tar.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {example, repoRoot, tempDir} from '../cli/run-cli.js'
import {startEmulator, type Emulator} from '../emulator/emulator.js'
import {findTool, skipWithout, TOOLS} from '../tools.js'

const here = `${process.platform}-${process.arch}`
const skip = here === 'linux-x64' ? false : `the release's amd64 executable runs on linux-x64 only, not ${here}`
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {version: string}).version
const out = tempDir('release')
const unpacked = tempDir('release-unpacked')
let api: Emulator
let kubeconfig: string

/** krew's release the Go module proxy serves (its newest there), built once into .tmp/krew/. */
const KREW = 'v0.4.3'

/** Where the manifests say the archives are (given with a trailing slash, which the release drops). */
const BASE_URL = `https://downloads.example.com/pvctl/v${version}`

const archiveOf = (name: string) => path.join(out, `pvctl-v${version}-${name}.tar.gz`)
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/**
 * A command with an empty environment, as `env -i` runs it: no PATH, HOME, locale or Node.js options.
 * Asynchronous: the emulator in this process answers while it runs.
 */
function bare(command: string, args: readonly string[]): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile(command, args, {cwd: unpacked, env: {}, encoding: 'utf8'}, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null
      resolve({code, stdout, stderr: code === null ? `${stderr}${err?.message ?? ''}` : stderr})
    })
  })
}

describe('npm run release', {skip}, () => {
  before(async () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'release.js'), '--out', out, '--base-url', `${BASE_URL}/`], {cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`)
    for (const file of untarGz(readFileSync(archiveOf('linux-amd64')))) {
      mkdirSync(path.dirname(path.join(unpacked, file.name)), {recursive: true})
      writeFileSync(path.join(unpacked, file.name), file.data)
      chmodSync(path.join(unpacked, file.name), file.mode)
    }
    const {state} = await loadSnapshot(example)
    api = await startEmulator({objects: structuredClone([...state.classes, ...state.volumes, ...state.claims, ...state.pods, ...state.nodes]) as never, tls: true})
    kubeconfig = path.join(unpacked, 'kubeconfig')
    writeFileSync(kubeconfig, api.kubeconfig({namespace: 'shop'}))
  }, {timeout: 900_000})

  after(async () => {
    await api?.stop()
  })

  test('an archive per platform with the executable, LICENSE, THIRD-PARTY-LICENSES and the examples; SHA256SUMS names each', () => {
    const sums = readFileSync(path.join(out, 'SHA256SUMS'), 'utf8')
    for (const target of TARGETS) {
      const archive = readFileSync(archiveOf(target.name))
      assert.match(sums, new RegExp(`^${sha256(archive)}  pvctl-v${version}-${target.name}\\.tar\\.gz$`, 'm'))
      const files = new Map(untarGz(archive).map((f) => [f.name, f]))
      assert.deepEqual([...files.keys()].sort(), ['LICENSE', 'THIRD-PARTY-LICENSES', 'examples/cluster.yaml', 'examples/reclaim.yaml', 'examples/relink.yaml', 'pvctl'])
      assert.equal(files.get('pvctl')!.mode, 0o755)
      assert.ok(files.get('pvctl')!.data.equals(readFileSync(path.join(out, target.name, 'pvctl'))), `${target.name}: the archive holds release/${target.name}/pvctl`)
      assert.ok(files.get('LICENSE')!.data.equals(readFileSync(path.join(repoRoot, 'LICENSE'))))
      const notices = files.get('THIRD-PARTY-LICENSES')!.data.toString()
      for (const name of ['node@', '@oclif/core@', '@kubernetes/client-node@', 'yaml@']) assert.ok(notices.includes(`\n${name}`), `THIRD-PARTY-LICENSES names ${name}`)
    }
  })

  test('the arm64 executable is an ELF for aarch64, the amd64 one for x86-64', () => {
    // e_machine, at byte 18 of the ELF header: 62 x86-64, 183 AArch64.
    for (const [name, machine] of [['linux-amd64', 62], ['linux-arm64', 183]] as const) {
      const elf = readFileSync(path.join(out, name, 'pvctl'))
      assert.deepEqual([...elf.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46], name)
      assert.equal(elf.readUInt16LE(18), machine, name)
    }
  })

  test('the arm64 executable, on an emulated arm64 (qemu-user), prints what the amd64 one prints', {skip: skipWithout('qemu-aarch64', 'the arm64 executable on an emulated processor'), timeout: 600_000}, async () => {
    // Debian's arm64 C libraries for cross builds, where qemu-user finds the executable's loader.
    const libraries = '/usr/aarch64-linux-gnu'
    assert.ok(existsSync(path.join(libraries, 'lib', 'ld-linux-aarch64.so.1')), `no arm64 C libraries in ${libraries}: ${TOOLS['qemu-aarch64'].install}`)
    const qemu = findTool('qemu-aarch64')!
    const arm64 = path.join(out, 'linux-arm64', 'pvctl')
    for (const args of [['--help'], ['sync', '--dry-run', '-f', 'examples/cluster.yaml'], ['audit', '-f', 'examples/cluster.yaml', '-o', 'json']]) {
      const emulated = await bare(qemu, ['-L', libraries, arm64, ...args])
      const native = await bare(path.join(unpacked, 'pvctl'), args)
      assert.deepEqual(emulated, {...native, stdout: native.stdout.replace('linux-x64', 'linux-arm64')}, args.join(' '))
    }
    const version = await bare(qemu, ['-L', libraries, arm64, 'version', '--client', '-o', 'json'])
    assert.equal((JSON.parse(version.stdout) as {clientVersion: {platform: string}}).clientVersion.platform, 'linux/arm64')
  })

  describe('the amd64 executable, with an empty environment, prints what the npm install prints under the same Node.js', () => {
    const node = () => nodeRuntime(RELEASE_NODE, 'x64')
    const runs: Array<{what: string; args: string[]; exit: number}> = [
      {what: 'help', args: ['--help'], exit: 0},
      {what: "a command's help", args: ['sync', '--help'], exit: 0},
      {what: 'the version', args: ['version', '--client'], exit: 0},
      {what: 'the version as JSON', args: ['version', '--client', '-o', 'json'], exit: 0},
      {what: 'the plan of the bundled example', args: ['sync', '--dry-run', '-f', 'examples/cluster.yaml'], exit: 1},
      {what: 'its audit as JSON', args: ['audit', '-f', 'examples/cluster.yaml', '-o', 'json'], exit: 1},
      {what: 'explain', args: ['explain', '-f', 'examples/cluster.yaml'], exit: 1},
      {what: 'explain of one claim', args: ['explain', 'pvc/logs', '-n', 'shop', '-f', 'examples/cluster.yaml'], exit: 1},
      {what: 'a completion script', args: ['completion', 'bash'], exit: 0},
      {what: 'an unknown command', args: ['frobnicate'], exit: 2},
      {what: 'bad input', args: ['sync', '--dry-run', '-f', 'examples/missing.yaml'], exit: 2},
      {what: 'the plan of a live cluster (HTTPS)', args: ['sync', '--dry-run', '--kubeconfig', 'kubeconfig'], exit: 1},
      {what: 'the audit of a live cluster', args: ['audit', '--kubeconfig', 'kubeconfig', '-o', 'json'], exit: 1},
    ]
    for (const {what, args, exit} of runs) {
      test(`${what}: pvctl ${args.join(' ')}`, {timeout: 60_000}, async () => {
        const single = await bare(path.join(unpacked, 'pvctl'), args)
        assert.equal(single.code, exit, single.stderr)
        assert.deepEqual(single, await bare(node(), [path.join(repoRoot, 'bin', 'run.js'), ...args]))
      })
    }

    test('as kubectl-pvctl (the name krew links) it is `kubectl pvctl`; as kubectl_complete-pvctl it completes', async () => {
      const links = tempDir('release-links')
      symlinkSync(path.join(unpacked, 'pvctl'), path.join(links, 'kubectl-pvctl'))
      symlinkSync(path.join(unpacked, 'pvctl'), path.join(links, 'kubectl_complete-pvctl'))
      const help = await bare(path.join(links, 'kubectl-pvctl'), ['sync', '--help'])
      assert.deepEqual(help, await bare(node(), [path.join(repoRoot, 'bin', 'kubectl-pvctl.js'), 'sync', '--help']))
      assert.match(help.stdout, /\$ kubectl pvctl sync/)
      const words = ['explain', '-f', 'examples/cluster.yaml', '-n', 'shop', 'pvc/o']
      const completed = await bare(path.join(links, 'kubectl_complete-pvctl'), words)
      assert.equal(completed.stdout, 'pvc/orders\n:4\n')
      assert.deepEqual(completed, await bare(node(), [path.join(repoRoot, 'bin', 'kubectl_complete-pvctl.js'), ...words]))
    })
  })

  test("the krew manifest keeps krew's rules, names each archive with its sha256, and installs pvctl as `kubectl pvctl`", () => {
    const text = readFileSync(path.join(out, 'pvctl.yaml'), 'utf8')
    const m = parse(text) as {
      apiVersion: string
      kind: string
      metadata: {name: string}
      spec: {version: string; homepage?: string; shortDescription: string; description?: string; platforms: Array<{selector: {matchLabels?: Record<string, string>; matchExpressions?: unknown[]}; uri: string; sha256: string; bin: string; files: Array<{from: string; to: string}>}>}
    }
    // pkg/index/validation: ValidatePlugin and validatePlatform.
    assert.equal(m.apiVersion, 'krew.googlecontainertools.github.com/v1alpha2')
    assert.equal(m.kind, 'Plugin')
    assert.equal(m.metadata.name, 'pvctl', 'the name is the file name without .yaml')
    assert.match(m.metadata.name, /^[\w-]+$/)
    assert.notEqual(m.spec.shortDescription, '')
    assert.match(m.spec.version, /^v\d+\.\d+\.\d+$/, 'a semantic version with its v')
    assert.equal(m.spec.version, `v${version}`)
    assert.ok(m.spec.platforms.length > 0)
    // cmd/validate-krew-manifest: line lengths, and each supported os/arch selected by one platform at most.
    assert.ok(m.spec.shortDescription.length <= 70, 'shortDescription within 70 characters')
    for (const line of (m.spec.description ?? '').split('\n')) assert.ok(line.length <= 80, `description line within 80 characters: ${line}`)
    const selected = new Map<string, number>()
    for (const [i, p] of m.spec.platforms.entries()) {
      assert.notEqual(p.uri, '')
      assert.match(p.sha256, /^[a-f0-9]{64}$/)
      assert.notEqual(p.bin, '')
      assert.ok(p.files.length > 0, 'file operations')
      assert.ok(p.selector.matchLabels !== undefined && Object.keys(p.selector.matchLabels).length > 0, 'a non-empty selector')
      assert.deepEqual(Object.keys(p.selector.matchLabels).filter((k) => k !== 'os' && k !== 'arch'), [], 'selector keys: os and arch only')
      const key = `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`
      assert.equal(selected.get(key), undefined, `${key} selected by platforms ${selected.get(key)} and ${i}`)
      selected.set(key, i)
      // The platform's archive: the URI names it, the sum is its own, and krew's file operations find
      // what they copy, leaving `bin` in place for krew to link as kubectl-pvctl.
      const target = TARGETS.find((t) => `${t.os}/${t.arch}` === key)
      assert.ok(target !== undefined, `${key} is a platform the release builds`)
      assert.equal(p.uri, `${BASE_URL}/pvctl-v${version}-${target.name}.tar.gz`)
      const archive = readFileSync(archiveOf(target.name))
      assert.equal(p.sha256, sha256(archive))
      const names = untarGz(archive).map((f) => f.name)
      const installed = p.files.flatMap((op) => {
        assert.ok(!op.from.includes('..') && !op.to.includes('..'), `${op.from} -> ${op.to} stays in the plugin's folder`)
        return names.filter((n) => n === op.from).map((n) => path.posix.join(op.to, n))
      })
      assert.ok(installed.includes(p.bin), `bin ${p.bin} is among what the file operations copy: ${installed.join(', ')}`)
    }
    assert.deepEqual([...selected.keys()].sort(), ['linux/amd64', 'linux/arm64'])
  })

  test('krew installs each platform from the manifest and its archive (its sum checked), linking kubectl-pvctl', {skip: skipWithout('go', "krew's own install of the manifest"), timeout: 900_000}, async () => {
    const gobin = path.join(repoRoot, '.tmp', 'krew', KREW)
    const krew = path.join(gobin, 'krew')
    if (!existsSync(krew)) {
      const built = spawnSync(findTool('go')!, ['install', `sigs.k8s.io/krew/cmd/krew@${KREW}`], {env: {...process.env, GOBIN: gobin, GOFLAGS: '-mod=mod'}, encoding: 'utf8'})
      assert.equal(built.status, 0, built.stderr)
    }
    for (const target of TARGETS) {
      const root = tempDir(`krew-${target.arch}`)
      const env = {PATH: process.env.PATH ?? '', HOME: root, KREW_ROOT: root, KREW_OS: target.os, KREW_ARCH: target.arch}
      const r = spawnSync(krew, ['install', `--manifest=${path.join(out, 'pvctl.yaml')}`, `--archive=${archiveOf(target.name)}`], {env, encoding: 'utf8'})
      assert.equal(r.status, 0, `${target.name}: ${r.stdout}${r.stderr}`)
      assert.match(r.stderr + r.stdout, /kubectl pvctl/)
      assert.equal(readlinkSync(path.join(root, 'bin', 'kubectl-pvctl')), path.join(root, 'store', 'pvctl', `v${version}`, 'pvctl'))
      if (target.nodeArch === process.arch) {
        const help = await bare(path.join(root, 'bin', 'kubectl-pvctl'), ['sync', '--help'])
        assert.equal(help.code, 0, help.stderr)
        assert.match(help.stdout, /\$ kubectl pvctl sync --dry-run -f examples\/cluster\.yaml/)
      }
    }
  })

  test('the Homebrew formula installs each platform\'s archive by its sha256, with the kubectl plugin links', () => {
    const rb = readFileSync(path.join(out, 'pvctl.rb'), 'utf8')
    assert.match(rb, /^class Pvctl < Formula$/m)
    assert.match(rb, new RegExp(`^  version "${version}"$`, 'm'))
    for (const [block, name] of [['on_intel', 'linux-amd64'], ['on_arm', 'linux-arm64']]) {
      const file = `pvctl-v${version}-${name}.tar.gz`
      const stanza = `${block} do\n      url "${BASE_URL}/${file}"\n      sha256 "${sha256(readFileSync(archiveOf(name)))}"\n`
      assert.ok(rb.includes(stanza), `${block}: ${file}\n${rb}`)
    }
    assert.match(rb, /bin\.install_symlink "pvctl" => "kubectl-pvctl"/)
    assert.match(rb, /^end$/m)
  })
})
