// Runs a command on this terminal and prints how it ended: `exit=CODE signal=SIGNAL`. A shell (or `script
// -e`) reports a process killed by SIGINT as 130, the same status pvctl gives an interrupt it handled;
// this tells them apart. The terminal's signals (Ctrl-C) reach this process too: it waits for the command.
const {spawn} = require('node:child_process')

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {})
const child = spawn(process.argv[2], process.argv.slice(3), {stdio: 'inherit'})
process.stderr.write(`pid=${child.pid}\n`)
child.on('exit', (code, signal) => {
  process.stderr.write(`\nexit=${code} signal=${signal}\n`)
  process.exit(code ?? 128)
})
