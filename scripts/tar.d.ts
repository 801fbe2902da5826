// The types of tar.js, for the tests that use it.
export interface TarFile {
  name: string
  data: Buffer
  mode: number
}
export function tarGz(files: readonly TarFile[]): Buffer
export function untarGz(archive: Buffer): TarFile[]
