// A command the tests start, in a process group of its own, its output read for what it printed (a fact to wait for,
// never a sleep): the runner's start command as a user runs it, from its own tests (the runner's
// test/helpers/runner-process.ts) or from an app's (`npm start`).
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { spawnInGroup, stopGroups } from './process-group.ts';

/** Kills every process group `launch` started, with all it started (for an afterEach). */
export const stopStarted = stopGroups;

export interface Launched {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Resolves once every process holding the output pipes (npm, the runner, its database) has closed them. */
  closed: Promise<void>;
  output: () => string;
  /**
   * Resolves once the output (from its start) matches `pattern` (a RegExp, or anything that tests the output); rejects,
   * with the output, once the output pipes closed without it (a command that ended, or failed, never prints it).
   */
  printed: (pattern: Pick<RegExp, 'test'>) => Promise<void>;
}

/**
 * Starts `command` with `args` in `cwd`, leading a process group of its own. `orphaned`: started in the background by
 * a shell that then exits, so that its parent is process 1 (or a reaper).
 */
export const launch = (
  [command, ...args]: [string, ...string[]],
  { orphaned = false, cwd = process.cwd(), env = process.env } = {},
): Launched => {
  const options = { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] } satisfies SpawnOptions;
  const child = orphaned
    ? spawnInGroup('sh', ['-c', '"$@" &', 'sh', command, ...args], options)
    : spawnInGroup(command, args, options);
  let output = '';
  let ended = false;
  const watchers: { pattern: Pick<RegExp, 'test'>; resolve: () => void; reject: (error: Error) => void }[] = [];
  const notPrinted = (pattern: Pick<RegExp, 'test'>) =>
    new Error(`\`${[command, ...args].join(' ')}\` ended without printing ${String(pattern)}; it printed:\n${output}`);
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
  ).then(() => {
    ended = true;
    for (const watcher of watchers.splice(0)) watcher.reject(notPrinted(watcher.pattern));
  });
  const printed = (pattern: Pick<RegExp, 'test'>) => {
    if (pattern.test(output)) return Promise.resolve();
    if (ended) return Promise.reject(notPrinted(pattern));
    return new Promise<void>((resolve, reject) => watchers.push({ pattern, resolve, reject }));
  };
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, closed, output: () => output, printed };
};

/** launch(), then waits until the output matches `pattern` (or rejects with the output, if the command exits first). */
export const launchedUntil = async (launched: Launched, pattern: RegExp) => {
  await Promise.race([
    launched.printed(pattern),
    launched.exited.then((code) =>
      Promise.reject(new Error(`the runner exited (${code}) before serving:\n${launched.output()}`)),
    ),
  ]);
  return launched.output();
};
