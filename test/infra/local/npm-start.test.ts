// `npm start` and `npm run token` as a user runs them: the banner's curl line creates a plant, stopping lets requests
// in flight finish (however it is stopped), and a restarted server on the same data folder has every plant.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, test } from '@jest/globals';
import { startDatabaseGate } from '../../helpers/database-gate.ts';

const projectRoot = new URL('../../../', import.meta.url).pathname;
const running: ChildProcess[] = [];
const newDataDir = () => mkdtempSync(join(tmpdir(), 'plant-store-start-'));

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

interface Started {
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
const start = async (dataDir: string, { viaNpm = false, args = [] as string[] } = {}): Promise<Started> => {
  const runnerArgs = ['--port', '0', '--data-dir', dataDir, ...args];
  const child = viaNpm
    ? spawn('npm', ['start', '--', ...runnerArgs], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, ['infra/local/start.ts', ...runnerArgs], {
        cwd: projectRoot,
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

const tokenOf = (server: Started) => /Authorization: Bearer ([\w.-]+)/.exec(server.curl)?.[1] ?? '';

const createPlant = (server: Started, token: string, plant: { id: number; name: string }) =>
  fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(plant),
  });

test('the curl line printed at start creates a plant', async () => {
  const server = await start(newDataDir());

  const { stdout } = await promisify(execFile)('sh', ['-c', server.curl]);

  expect(JSON.parse(stdout)).toEqual({ name: 'Monstera deliciosa', tag: 'aroid' });
}, 90_000);

test('SIGINT lets requests held in flight finish with 200, then stops', async () => {
  // createPlant reaches the database through a gate: a request the gate holds is in flight, as a fact.
  const gate = await startDatabaseGate();
  const envVars = join(newDataDir(), 'env.json');
  writeFileSync(envVars, JSON.stringify({ CreatePlantFunction: { AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint } }));
  const server = await start(newDataDir(), { args: ['--env-vars', envVars] });
  gate.forwardTo(server.databaseEndpoint);
  const token = tokenOf(server);

  const inFlight = [1, 2, 3, 4].map((id) => createPlant(server, token, { id, name: 'in flight' }));
  await gate.holding(4);
  server.child.kill('SIGINT');
  await server.printed(/SIGINT: finishing requests in flight/);
  gate.open();

  expect((await Promise.all(inFlight)).map((response) => response.status)).toEqual([200, 200, 200, 200]);
  expect(await server.exited).toBe(0);
  expect(server.output()).toMatch(/SIGINT: finishing requests in flight[^\n]*\n[\s\S]*POST \/plants 200[\s\S]*stopped/);
  await gate.close();
}, 90_000);

test('a restarted server on the same data folder has every plant: same content 200, other content 409', async () => {
  const dataDir = newDataDir();
  // `npm run token` before any server: it creates the issuer's key in the data folder, which servers then use.
  const { stdout } = await promisify(execFile)(process.execPath, ['infra/local/token.ts', '--data-dir', dataDir], {
    cwd: projectRoot,
  });
  expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  const token = stdout.trim();

  const first = await start(dataDir);
  expect((await createPlant(first, token, { id: 300, name: 'Persisted' })).status).toBe(200);
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);

  const second = await start(dataDir);
  expect((await createPlant(second, token, { id: 300, name: 'Persisted' })).status).toBe(200);
  expect((await createPlant(second, token, { id: 300, name: 'Changed' })).status).toBe(409);
}, 90_000);

test('SIGTERM to the npm process alone (as process managers send it) stops the runner and frees the data folder', async () => {
  const dataDir = newDataDir();
  const server = await start(dataDir, { viaNpm: true });
  // The runner writes to the same pipe as npm: the pipe closes once the runner is gone too.
  const pipeClosed = new Promise((resolve) => server.child.stdout?.once('close', resolve));

  server.child.kill('SIGTERM');
  await pipeClosed;

  expect(server.output()).toMatch(/the process that started it is gone: finishing requests in flight[\s\S]*stopped/);
  const again = await start(dataDir);
  expect((await createPlant(again, tokenOf(again), { id: 400, name: 'after' })).status).toBe(200);
}, 90_000);

test('`npm run invoke` runs one function with an event file and prints its result', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['infra/local/invoke.ts', 'CreatePlantFunction', 'examples/events/create-plant.json', '--in-memory'],
    { cwd: projectRoot },
  );
  const result = JSON.parse(stdout);
  expect(result).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'application/json' } });
  expect(JSON.parse(result.body)).toEqual({ name: 'Monstera deliciosa', tag: 'aroid' });
}, 90_000);
