// Gzipped tar archives in and out, in JavaScript: the release writes its archives with fixed times and
// owners (the same files give the same bytes, so SHA256SUMS can be reproduced), and the npm registry's
// Node.js packages are read without a `tar` program. ustar as POSIX defines it; a pax header's path
// (npm writes one for a long name) names the entry after it.
import {gunzipSync, gzipSync} from 'node:zlib'

const BLOCK = 512

/** files: [{name, data, mode}], in the order given, owned by root, dated 1970. */
export function tarGz(files) {
  const blocks = []
  for (const {name, data, mode} of files) {
    if (Buffer.byteLength(name) > 100) throw new Error(`${name}: longer than ustar's 100 bytes`)
    const header = Buffer.alloc(BLOCK)
    const text = (offset, length, value) => header.write(value, offset, length, 'utf8')
    const octal = (offset, length, value) => text(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`)
    text(0, 100, name)
    octal(100, 8, mode)
    octal(108, 8, 0) // uid
    octal(116, 8, 0) // gid
    octal(124, 12, data.length)
    octal(136, 12, 0) // mtime
    text(148, 8, ' '.repeat(8)) // the checksum counts its own field as spaces
    text(156, 1, '0') // a regular file
    text(257, 8, 'ustar\u000000')
    text(265, 32, 'root')
    text(297, 32, 'root')
    octal(
      148,
      7,
      header.reduce((sum, byte) => sum + byte, 0),
    )
    blocks.push(header, data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK))
  }
  blocks.push(Buffer.alloc(2 * BLOCK))
  return gzipSync(Buffer.concat(blocks))
}

/** The regular files of a .tar.gz: [{name, mode, data}]. */
export function untarGz(archive) {
  const tar = gunzipSync(archive)
  const files = []
  let paxPath
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK)
    if (header.every((byte) => byte === 0)) break
    const field = (offset, length) => header.toString('utf8', offset, offset + length).replace(/\0.*$/s, '')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1) || '0'
    const data = tar.subarray(at + BLOCK, at + BLOCK + size)
    const prefix = field(345, 155)
    const name = paxPath ?? (prefix === '' ? field(0, 100) : `${prefix}/${field(0, 100)}`)
    if (type === 'x') {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1]
    } else {
      if (type === '0') files.push({name, mode: parseInt(field(100, 8).trim(), 8), data: Buffer.from(data)})
      paxPath = undefined
    }
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK
  }
  return files
}
