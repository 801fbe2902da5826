// Every command by its id, for oclif's "explicit" command discovery: the single-file release
// (scripts/release.js) has no dist/commands/ to scan, so it hands oclif this table instead. The npm
// install keeps discovering dist/commands/ through its manifest. test/cli/command-index.test.ts holds the
// two to the same commands.
import Complete from './commands/__complete.js'
import Audit from './commands/audit.js'
import Completion from './commands/completion.js'
import Explain from './commands/explain.js'
import Help from './commands/help.js'
import Reclaim from './commands/reclaim.js'
import Relink from './commands/relink.js'
import Sync from './commands/sync.js'
import Version from './commands/version.js'

export const COMMANDS = {
  __complete: Complete,
  audit: Audit,
  completion: Completion,
  explain: Explain,
  help: Help,
  reclaim: Reclaim,
  relink: Relink,
  sync: Sync,
  version: Version,
}
