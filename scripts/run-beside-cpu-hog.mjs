#!/usr/bin/env node
// Runs a command while one busy process per core keeps every core of the machine busy, and exits
// as the command did. `pnpm test:stress` runs the test suite this way: no test may depend on the
// machine's speed, and this is a machine that is slow because others use it.
//
//   node scripts/run-beside-cpu-hog.mjs <command> [arguments...]
import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';

const [command, ...commandArguments] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node scripts/run-beside-cpu-hog.mjs <command> [arguments...]');
  process.exit(2);
}

// Each hog spins at the tests' own priority, and ends itself if this script dies without
// stopping it (its parent changes).
const hogSource = `const parent = process.ppid;
for (let turn = 1; ; turn++) if (turn % 50000000 === 0 && process.ppid !== parent) process.exit(0);`;
const cores = availableParallelism();
const hogs = Array.from({ length: cores }, () =>
  spawn(process.execPath, ['-e', hogSource], { stdio: 'ignore' }),
);
let finished = false;
for (const hog of hogs) {
  hog.on('exit', (code, signal) => {
    if (!finished) {
      console.error(
        `run-beside-cpu-hog: a busy process ended early (${signal ?? `exit ${code}`}); the run is no longer under load`,
      );
      process.exitCode = 1;
    }
  });
}
console.error(
  `run-beside-cpu-hog: ${cores} busy processes (one per core) beside: ${command} ${commandArguments.join(' ')}`,
);

const stopHogs = () => {
  finished = true;
  for (const hog of hogs) hog.kill('SIGKILL');
};
const child = spawn(command, commandArguments, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (error) => {
  stopHogs();
  console.error(`run-beside-cpu-hog: could not start ${command}: ${error.message}`);
  process.exitCode = 127;
});
child.on('exit', (code, signal) => {
  stopHogs();
  // A command killed by a signal exits as a shell reports it: 128 + the signal's number.
  const status = code ?? 128 + (constants.signals[signal] ?? 0);
  if (status !== 0 || process.exitCode === undefined) process.exitCode = status;
});
