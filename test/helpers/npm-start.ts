// `npm start` as a user runs it, for the tests: on a free port, its banner read for the URL, the curl line (with the
// development token, or `$TOKEN` where the app trusts another issuer) and the database endpoint.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Launched, launch as launchCommand, launchedUntil } from 'test-support/launched';
import { projectRoot } from '../../infra/project-root.ts';

export { type Launched, stopStarted } from 'test-support/launched';

export const newDataDir = () => mkdtempSync(join(tmpdir(), 'plant-store-start-'));

/**
 * `cdk-local-runner start` as `npm start` runs it (the installed runner: its build), on a free port with `dataDir`,
 * in `cwd`. `viaNpm`: `npm start` itself; `orphaned`: started in the background by a shell that then exits, so that
 * its parent is process 1 (or a reaper).
 */
export const launch = (
  dataDir: string,
  { viaNpm = false, orphaned = false, args = [] as string[], cwd = process.cwd(), env = process.env } = {},
): Launched => {
  const runnerArgs = ['--port', '0', '--data-dir', dataDir, ...args];
  return viaNpm
    ? launchCommand(['npm', 'start', '--', ...runnerArgs], { cwd, env })
    : launchCommand(
        [process.execPath, join(projectRoot, 'node_modules/.bin/cdk-local-runner'), 'start', ...runnerArgs],
        {
          orphaned,
          cwd,
          env,
        },
      );
};

export interface Started extends Launched {
  url: string;
  curl: string;
  databaseEndpoint: string;
}

/**
 * The runner started in this project (`npm start`'s script, or `npm start` itself with viaNpm); then waits for the
 * banner and reads the URL, the curl line and the database endpoint from it. `root`: a project folder to run it in (a
 * copy, for tests that change sources); the project itself by default.
 */
export const start = async (
  dataDir: string,
  { root = projectRoot, ...options }: Parameters<typeof launch>[1] & { root?: string } = {},
): Promise<Started> => {
  const launched = launch(dataDir, { ...options, cwd: root });
  const output = await launchedUntil(launched, /^curl .*$/m);
  const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  const curl = /^curl .*$/m.exec(output)?.[0];
  const databaseEndpoint = /^Database: (http:\/\/127\.0\.0\.1:\d+)/m.exec(output)?.[1];
  if (!url || !curl || !databaseEndpoint) throw new Error(`no URL, curl line or database in:\n${output}`);
  return { ...launched, url, curl, databaseEndpoint };
};

export const tokenOf = (server: Started) => /Authorization: Bearer ([\w.-]+)/.exec(server.curl)?.[1] ?? '';
