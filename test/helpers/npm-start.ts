// `npm start` as a user runs it, for the tests: on a free port, its banner read for the URL, the curl line (with the
// development token, or `$TOKEN` where the app trusts another issuer) and the database endpoint.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.ts';
import { spawnInGroup, stopGroups } from './process-group.ts';
export const newDataDir = () => mkdtempSync(join(tmpdir(), 'plant-store-start-'));

/** Kills every runner `start` started, with all it started (for an afterEach). */
export const stopStarted = stopGroups;

export interface Launched {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Resolves once every process holding the output pipes (npm, the runner, its database) has closed them. */
  closed: Promise<void>;
  output: () => string;
  /** Resolves once the output (from its start) matches `pattern`. */
  printed: (pattern: RegExp) => Promise<void>;
}

export interface Started extends Launched {
  url: string;
  curl: string;
  databaseEndpoint: string;
}

/**
 * Starts `npm start`'s script (or `npm start` itself, through npm) on a free port, in a process group of its own.
 * `root`: a project folder to run it in (a copy, for tests that change sources); the project itself by default.
 */
export const launch = (
  dataDir: string | undefined,
  { viaNpm = false, orphaned = false, args = [] as string[], root = projectRoot, env = process.env } = {},
): Launched => {
  const runnerArgs = ['--port', '0', ...(dataDir === undefined ? ['--in-memory'] : ['--data-dir', dataDir]), ...args];
  const options = { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] } satisfies SpawnOptions;
  const runner = [process.execPath, 'infra/local/cli/start.ts', ...runnerArgs];
  // orphaned: started in the background by a shell that then exits, so that its parent is process 1 (or a reaper).
  const child = viaNpm
    ? spawnInGroup('npm', ['start', '--', ...runnerArgs], options)
    : orphaned
      ? spawnInGroup('sh', ['-c', '"$@" &', 'sh', ...runner], options)
      : spawnInGroup(runner[0] as string, runner.slice(1), options);
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
  const closed = Promise.all(
    [child.stdout, child.stderr].map((stream) => new Promise((resolve) => stream?.once('close', resolve))),
  ).then(() => undefined);
  const printed = (pattern: RegExp) =>
    pattern.test(output) ? Promise.resolve() : new Promise<void>((resolve) => watchers.push({ pattern, resolve }));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, closed, output: () => output, printed };
};

/** launch(), then waits for the banner and reads the URL, the curl line and the database endpoint from it. */
export const start = async (dataDir: string, options: Parameters<typeof launch>[1] = {}): Promise<Started> => {
  const launched = launch(dataDir, options);
  await Promise.race([
    launched.printed(/^curl .*$/m),
    launched.exited.then((code) =>
      Promise.reject(new Error(`npm start exited (${code}) before serving:\n${launched.output()}`)),
    ),
  ]);
  const output = launched.output();
  const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  const curl = /^curl .*$/m.exec(output)?.[0];
  const databaseEndpoint = /^Database: (http:\/\/127\.0\.0\.1:\d+)/m.exec(output)?.[1];
  if (!url || !curl || !databaseEndpoint) throw new Error(`no URL, curl line or database in:\n${output}`);
  return { ...launched, url, curl, databaseEndpoint };
};

/**
 * `npm start -- --app DIR`, through npm, in memory: an app synthesized elsewhere (the fixture app), as a user serves
 * their own. Resolves once it serves, with its URL.
 */
export const startApp = async (
  cloudAssemblyDir: string,
  { args = [] as string[], env = process.env } = {},
): Promise<Launched & { url: string }> => {
  const launched = launch(undefined, { viaNpm: true, args: ['--app', cloudAssemblyDir, ...args], env });
  const serving = /is serving at (http:\/\/127\.0\.0\.1:\d+)/;
  await Promise.race([
    launched.printed(serving),
    launched.exited.then((code) =>
      Promise.reject(new Error(`npm start exited (${code}) before serving:\n${launched.output()}`)),
    ),
  ]);
  return { ...launched, url: serving.exec(launched.output())?.[1] ?? '' };
};

export const tokenOf = (server: Started) => /Authorization: Bearer ([\w.-]+)/.exec(server.curl)?.[1] ?? '';
