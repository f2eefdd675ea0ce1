// The runner's start command as a user runs it, for the tests: in a process group of its own, on a free port, its
// output read for what it printed (a fact to wait for, never a sleep).
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnInGroup, stopGroups } from './process-group.ts';

/** The runner's command line entry (package.json's `bin`). */
export const runnerBin = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Kills every runner `launch` started, with all it started (for an afterEach). */
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

/**
 * Starts `cdk-local-runner start` (`bin`: this package's by default) on a free port with `dataDir` (in memory when
 * undefined), in `cwd`. `viaNpm`: through
 * the project's `npm start` (whose script runs the runner); `orphaned`: started in the background by a shell that then
 * exits, so that its parent is process 1 (or a reaper).
 */
export const launch = (
  dataDir: string | undefined,
  {
    viaNpm = false,
    orphaned = false,
    args = [] as string[],
    cwd = process.cwd(),
    env = process.env,
    bin = runnerBin,
  } = {},
): Launched => {
  const runnerArgs = ['--port', '0', ...(dataDir === undefined ? ['--in-memory'] : ['--data-dir', dataDir]), ...args];
  const options = { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] } satisfies SpawnOptions;
  const runner = [process.execPath, bin, 'start', ...runnerArgs];
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

/** launch(), then waits until the output matches `pattern` (or rejects with the output, if the runner exits first). */
export const launchedUntil = async (launched: Launched, pattern: RegExp) => {
  await Promise.race([
    launched.printed(pattern),
    launched.exited.then((code) =>
      Promise.reject(new Error(`the runner exited (${code}) before serving:\n${launched.output()}`)),
    ),
  ]);
  return launched.output();
};

/**
 * `cdk-local-runner start --app DIR`, in memory: an app synthesized elsewhere, as a user serves their own. Resolves once
 * it serves, with its URL.
 */
export const startApp = async (
  cloudAssemblyDir: string,
  { args = [] as string[], env = process.env, cwd = process.cwd() } = {},
): Promise<Launched & { url: string }> => {
  const launched = launch(undefined, { args: ['--app', cloudAssemblyDir, ...args], env, cwd });
  const serving = /is serving at (http:\/\/127\.0\.0\.1:\d+)/;
  const output = await launchedUntil(launched, serving);
  return { ...launched, url: serving.exec(output)?.[1] ?? '' };
};
