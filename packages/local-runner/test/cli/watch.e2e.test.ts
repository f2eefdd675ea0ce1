// `start --watch` on a CDK project of our own (fixtures/watch-app.ts) whose functions leave the runtime's SDK out of
// their bundle, as NodejsFunction does on nodejs18.x and later ("Runtime-included SDK versions" in the Lambda guide's
// "Building Lambda functions with Node.js"; aws-cdk-lib's aws-lambda-nodejs README, "Externals"): after a reload they
// import the SDK as at the first start, and the runner leaves no folder behind when it stops, however it stops.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { signalGroup } from 'test-support/process-group';
import { watchProject } from '../fixtures/watch-app.ts';
import { type Launched, launch, launchedUntil, runnerBin, stopStarted } from '../helpers/runner-process.ts';

let project: string;
/** The runner's own temporary folder (its TMPDIR), to see what it leaves there. */
let runnerTmp: string;
let runner: Launched;
let url: string;

beforeAll(async () => {
  project = watchProject();
  runnerTmp = mkdtempSync(join(tmpdir(), 'local-runner-watch-tmp-'));
  runner = launch(join(project, '.local-runner'), {
    cwd: project,
    args: ['--watch'],
    env: { ...process.env, TMPDIR: runnerTmp },
  });
  const output = await launchedUntil(runner, /watching handler\/\*\* for changes/);
  url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? '';
}, 120_000);

afterAll(() => {
  stopStarted();
  for (const dir of [project, runnerTmp]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: await response.text() };
};
const version = (value: number) => JSON.stringify({ version: value, sdk: 'function' });

test('a function leaving the SDK to the runtime imports it after a reload as at the first start', async () => {
  expect(await get('/commonjs')).toEqual({ status: 200, body: version(1) });
  expect(await get('/module')).toEqual({ status: 200, body: version(1) });

  writeFileSync(join(project, 'handler/version.json'), JSON.stringify({ version: 2 }));
  await runner.printed(/serving the new version/);

  expect(await get('/commonjs')).toEqual({ status: 200, body: version(2) });
  expect(await get('/module')).toEqual({ status: 200, body: version(2) });
}, 120_000);

/** The output holds `count` reloads. */
const reloads = (count: number) => new RegExp(Array(count).fill('serving the new version').join('[\\s\\S]*'));

// Editors that save atomically (vim's backupcopy, JetBrains' "safe write") and `sed -i` replace a file by a rename;
// Node's recursive fs.watch on Linux then misses every later in-place write to it (seen on Node 24, serving
// aws-samples/serverless-patterns' lambda-node-esm-cdk with --watch).
test('a source replaced by a rename reloads, and so does each later write to it in place', async () => {
  writeFileSync(join(project, 'version.next'), JSON.stringify({ version: 3 }));
  renameSync(join(project, 'version.next'), join(project, 'handler/version.json'));
  await runner.printed(reloads(2));
  expect(await get('/commonjs')).toEqual({ status: 200, body: version(3) });

  writeFileSync(join(project, 'handler/version.json'), JSON.stringify({ version: 4 }));
  await runner.printed(reloads(3));
  expect(await get('/module')).toEqual({ status: 200, body: version(4) });
}, 120_000);

// But its socket (runner-socket.ts), which SIGKILL leaves no time to remove: the next `env` (or `token`) run in the
// project removes it, finding no runner behind it; the user's folder of the sockets stays, empty, as its other
// per-user folders do.
test('stopped, even by SIGKILL, the runner leaves nothing in its temporary folder', async () => {
  signalGroup(runner.child, 'SIGKILL');
  await runner.exited;
  const sockets = `local-runner-sockets-${process.getuid?.() ?? 'user'}`;
  expect(readdirSync(runnerTmp)).toEqual([sockets]);
  const env = spawnSync(process.execPath, [runnerBin, 'env'], {
    cwd: project,
    env: { ...process.env, TMPDIR: runnerTmp },
    encoding: 'utf8',
  });
  expect(env.stderr).toMatch(/no runner serves this folder/);
  expect(readdirSync(join(runnerTmp, sockets))).toEqual([]);
}, 60_000);
