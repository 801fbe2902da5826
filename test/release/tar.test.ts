// scripts/tar.js, which writes the release's archives and reads the npm registry's Node.js packages: the
// same files give the same bytes, what it writes it reads back, the system's tar reads it too, and a pax
// header's long path names the entry after it (as npm writes them).
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {gzipSync} from 'node:zlib'

import {tarGz, untarGz} from '../../scripts/tar.js'
import {tempDir} from '../temp-dir.js'
import {skipWithout} from '../tools.js'

const files = [
  {name: 'pvctl', data: Buffer.from('#!/bin/sh\necho pvctl\n'), mode: 0o755},
  {name: 'LICENSE', data: Buffer.alloc(1500, 'L'), mode: 0o644},
  {name: 'examples/cluster.yaml', data: Buffer.from(''), mode: 0o644},
]

test('the same files give the same bytes; they read back as written', () => {
  const archive = tarGz(files)
  assert.ok(archive.equals(tarGz(structuredClone(files).map((f) => ({...f, data: Buffer.from(f.data)})))))
  assert.deepEqual(untarGz(archive), files)
})

test('the system tar lists the archive as written: names, modes, sizes, owner root', {skip: skipWithout('tar', 'the check of the archives with the system tar')}, () => {
  const file = path.join(tempDir('tar'), 'a.tar.gz')
  writeFileSync(file, tarGz(files))
  const r = spawnSync('tar', ['-tvzf', file, '--numeric-owner'], {encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
  const listed = r.stdout.trim().split('\n').map((line) => line.split(/\s+/))
  assert.deepEqual(listed.map((l) => [l[0], l[1], l[2], l.at(-1)]), [
    ['-rwxr-xr-x', '0/0', '21', 'pvctl'],
    ['-rw-r--r--', '0/0', '1500', 'LICENSE'],
    ['-rw-r--r--', '0/0', '0', 'examples/cluster.yaml'],
  ])
})

test("a pax header's path names the entry after it", () => {
  const long = `package/include/node/${'deep/'.repeat(30)}header.h`
  const record = (text: string) => {
    let n = text.length + 3
    while (`${n} ${text}\n`.length !== n) n = `${n} ${text}\n`.length
    return `${n} ${text}\n`
  }
  const pax = Buffer.from(record(`path=${long}`))
  const header = (name: string, size: number, type: string) => {
    const h = Buffer.alloc(512)
    h.write(name, 0, 100)
    h.write('0000644\0', 100)
    h.write(`${size.toString(8).padStart(11, '0')}\0`, 124)
    h.write(type, 156)
    h.write('ustar\u000000', 257)
    return h
  }
  const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)])
  const data = Buffer.from('#define X 1\n')
  const archive = gzipSync(Buffer.concat([header('PaxHeader', pax.length, 'x'), pad(pax), header('package/include/node/deep/header.h', data.length, '0'), pad(data), Buffer.alloc(1024)]))
  assert.deepEqual(untarGz(archive), [{name: long, mode: 0o644, data}])
})
