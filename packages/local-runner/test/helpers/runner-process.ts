// The runner's start command as a user runs it, for the tests: on a free port, in a process group of its own, its
// output read for what it printed (test-support/launched).
import { fileURLToPath } from 'node:url';
import { type Launched, launch as launchCommand, launchedUntil } from 'test-support/launched';

export { type Launched, launchedUntil, stopStarted } from 'test-support/launched';

/** The runner's command line entry (package.json's `bin`). */
export const runnerBin = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/**
 * Starts `cdk-local-runner start` (`bin`: this package's by default) on a free port with `dataDir` (in memory when
 * undefined), in `cwd`.
 */
export const launch = (
  dataDir: string | undefined,
  { args = [] as string[], cwd = process.cwd(), env = process.env, bin = runnerBin } = {},
): Launched => {
  const runnerArgs = ['--port', '0', ...(dataDir === undefined ? ['--in-memory'] : ['--data-dir', dataDir]), ...args];
  return launchCommand([process.execPath, bin, 'start', ...runnerArgs], { cwd, env });
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
