// kubectl takes flags before the command as well as after it (`kubectl -n shop get pvc`, `kubectl --context
// demo apply ...`), as cobra finds a command among the words by skipping flags and their values. oclif
// looks for the command in the first word only; bin/run.js and completion move it first.

/** Whether a flag word (`-n`, `--context`) takes the next word as its value; unknown flags take none. */
export type TakesValue = (flag: string) => boolean

/**
 * The words with the command first: the flags before it (and their values) are moved after it, where the
 * command parses them. Unchanged when the first word is no flag, or no command follows the flags
 * (`pvctl --help`, `pvctl -n shop`). After `--` nothing is a flag.
 */
export function commandFirst(words: readonly string[], takesValue: TakesValue): string[] {
  const at = commandIndex(words, takesValue)
  if (at === undefined || at === 0) return [...words]
  return [words[at], ...words.slice(0, at), ...words.slice(at + 1)]
}

/** Where the command is among `words` (the first word that is neither a flag nor a flag's value); undefined when none is. */
export function commandIndex(words: readonly string[], takesValue: TakesValue): number | undefined {
  let i = 0
  while (i < words.length && isFlag(words[i])) {
    if (words[i] === '--') return undefined
    // `--namespace=shop` and `-nshop` hold their value.
    const glued = words[i].includes('=') || /^-[^-]./.test(words[i])
    i += !glued && takesValue(words[i]) ? 2 : 1
  }
  return i < words.length ? i : undefined
}

const isFlag = (word: string) => word.startsWith('-') && word !== '-'

/** The flags that take a value, by the words that name them (`--namespace`, `-n`), from every command's flags. */
export function valueFlags(
  commands: Iterable<{flags: Iterable<{name: string; char?: string; takesValue: boolean}>}>,
): TakesValue {
  const words = new Set<string>()
  for (const c of commands) {
    for (const f of c.flags) {
      if (!f.takesValue) continue
      words.add(`--${f.name}`)
      if (f.char !== undefined) words.add(`-${f.char}`)
    }
  }
  return (flag) => words.has(flag)
}
