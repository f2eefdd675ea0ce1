// `npm start` and `npm run token` as a user runs them: the banner's curl line creates a plant, stopping lets requests
// in flight finish (however it is stopped), and a restarted server on the same data folder has every plant.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, test } from '@jest/globals';
import { startDatabaseGate } from '../../helpers/database-gate.ts';
import { newDataDir, type Started, start, stopStarted, tokenOf } from '../../helpers/npm-start.ts';

const projectRoot = new URL('../../../', import.meta.url).pathname;

afterEach(stopStarted);

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
