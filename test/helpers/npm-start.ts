// `npm start` as a user runs it, for the tests: on a free port, its banner read for the URL, the curl line (with the
// development token) and the database endpoint.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const projectRoot = new URL('../../', import.meta.url).pathname;
const running: ChildProcess[] = [];
export const newDataDir = () => mkdtempSync(join(tmpdir(), 'plant-store-start-'));

/** Kills every runner `start` started (for an afterEach). */
export const stopStarted = () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
};

export interface Started {
  child: ChildProcess;
  url: string;
  curl: string;
  databaseEndpoint: string;
  exited: Promise<number | null>;
  output: () => string;
  /** Resolves once the output (from its start) matches `pattern`. */
  printed: (pattern: RegExp) => Promise<void>;
}

/** Starts `npm start`'s script (or `npm start` itself, through npm) on a free port and waits for its banner. */
/** `root`: a project folder to run it in (a copy, for tests that change sources); the project itself by default. */
export const start = async (
  dataDir: string,
  { viaNpm = false, args = [] as string[], root = projectRoot } = {},
): Promise<Started> => {
  const runnerArgs = ['--port', '0', '--data-dir', dataDir, ...args];
  const child = viaNpm
    ? spawn('npm', ['start', '--', ...runnerArgs], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, ['infra/local/start.ts', ...runnerArgs], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  running.push(child);
  let output = '';
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString();
    for (const watcher of watchers.filter(({ pattern }) => pattern.test(output))) {
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.resolve();
    }
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  const printed = (pattern: RegExp) =>
    pattern.test(output) ? Promise.resolve() : new Promise<void>((resolve) => watchers.push({ pattern, resolve }));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await Promise.race([
    printed(/^curl .*$/m),
    exited.then((code) => Promise.reject(new Error(`npm start exited (${code}) before serving:\n${output}`))),
  ]);
  const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  const curl = /^curl .*$/m.exec(output)?.[0];
  const databaseEndpoint = /^Database: (http:\/\/127\.0\.0\.1:\d+)/m.exec(output)?.[1];
  if (!url || !curl || !databaseEndpoint) throw new Error(`no URL, curl line or database in:\n${output}`);
  return { child, url, curl, databaseEndpoint, exited, output: () => output, printed };
};

export const tokenOf = (server: Started) => /Authorization: Bearer ([\w.-]+)/.exec(server.curl)?.[1] ?? '';
