// After the whole run: no process a test started may be left. Each carries the run's mark in its environment (set by
// global-setup.ts, inherited by every process started after it); any still running is killed, and the run fails
// naming it, rather than holding a pipe that would keep jest (and CI) waiting. Then the run's temporary folder is
// removed, and the run fails naming anything it left in the system's temporary folder besides.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { endTemporaryFolder, testRunMark } from './helpers/test-run.ts';

/** The processes carrying this run's mark, but jest's own workers: their pid and command line. */
const leftOver = (mark: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((pid) => {
      try {
        const environment = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
        const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
        if (!environment.includes(mark) || commandLine === '' || commandLine.includes('jest-worker')) return [];
        return [{ pid: Number(pid), commandLine }];
      } catch {
        return []; // gone meanwhile, or not ours to read
      }
    });

const checkTemporaryFolder = () => {
  const left = endTemporaryFolder() ?? [];
  if (left.length > 0) {
    throw new Error(`the run left these in ${tmpdir()}, outside its own temporary folder: ${left.join(', ')}`);
  }
};

const checkProcesses = () => {
  const mark = testRunMark();
  // Where there is no /proc (macOS), nothing is checked: CI and the project's machines are Linux.
  if (mark === undefined || !existsSync('/proc')) return;
  const left = leftOver(mark);
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  if (left.length > 0) {
    throw new Error(
      `processes started by the tests were still running (killed now; find the test that left them):\n${left
        .map(({ pid, commandLine }) => `  ${pid} ${commandLine}`)
        .join('\n')}`,
    );
  }
};

export default () => {
  try {
    checkProcesses();
  } finally {
    checkTemporaryFolder();
  }
};
