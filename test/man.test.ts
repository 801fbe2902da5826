// The committed man pages are generated from the commands' help: a changed flag or summary must be
// followed by `npm run man`. Needs the oclif manifest (npm test builds first).
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

const root = path.resolve(import.meta.dirname, '..')

test('man pages are up to date with the help', () => {
  assert.ok(existsSync(path.join(root, 'oclif.manifest.json')), 'run npm run build first (npm test does)')
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/gen-man.js'), '--check'], {
    cwd: root,
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
})

// npm installs the pages package.json's "man" names, and only those: a command whose page is missing from
// the list has no `man pvctl-<command>` after a global install, although its page is in the tarball.
test('package.json "man" lists a page for every command, and every listed page exists', async () => {
  const pkg = (await import(path.join(root, 'package.json'), {with: {type: 'json'}})).default
  const manifest = JSON.parse(readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, {hidden?: boolean}>
  }
  const listed = new Set(pkg.man as string[])
  const rows = [
    {page: './man/pvctl.1', why: 'the root page'},
    ...Object.entries(manifest.commands)
      .filter(([, command]) => command.hidden !== true)
      .map(([id]) => ({
        page: `./man/pvctl-${id.replace(/:/g, '-')}.1`,
        why: `the page of pvctl ${id.replace(/:/g, ' ')}`,
      })),
  ]
  for (const {page, why} of rows)
    assert.ok(listed.has(page), `${page} (${why}) is not listed in package.json "man" (run npm run man)`)
  for (const page of listed)
    assert.ok(existsSync(path.join(root, page)), `${page} is listed in package.json "man" but missing`)
})

// man pvctl is where a script's author looks for what the exit codes mean and what the environment changes.
test('man pvctl has an EXIT STATUS section and lists KUBECONFIG under ENVIRONMENT', () => {
  const page = readFileSync(path.join(root, 'man', 'pvctl.1'), 'utf8')
  const section = (name: string) =>
    new RegExp(`^\\.SH "?${name}"?\\n([\\s\\S]*?)(?=^\\.SH )`, 'm').exec(page)?.[1] ?? ''
  const exit = section('EXIT STATUS')
  for (const code of ['0', '1', '2', '3', '130'])
    assert.match(exit, new RegExp(`^\\\\fB${code}\\\\fP:$`, 'm'), `EXIT STATUS names ${code}`)
  const environment = section('ENVIRONMENT')
  for (const name of ['KUBECONFIG', 'NO_COLOR', 'PVCTL_DEBUG'])
    assert.match(environment, new RegExp(`^\\\\fB${name}\\\\fP:$`, 'm'), `ENVIRONMENT names ${name}`)
})
