// `npm start` and `npm run token` as a user runs them: the banner's curl line creates a plant, SIGINT lets requests in
// flight finish, and a token from `npm run token` works against a restarted server on the same data folder.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, test } from '@jest/globals';

const projectRoot = new URL('../../../', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-start-'));
const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** Starts `npm start`'s script on a free port and waits for its banner. */
const start = async () => {
  const child = spawn(process.execPath, ['infra/local/start.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/^curl .*$/m.test(output)) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then((code) => reject(new Error(`npm start exited (${code}) before serving:\n${output}`)));
  });
  const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  const curl = /^curl .*$/m.exec(output)?.[0];
  if (!url || !curl) throw new Error(`no URL or curl line in:\n${output}`);
  return { child, url, curl, exited, output: () => output };
};

test('the curl line printed at start creates a plant; SIGINT finishes requests in flight, then stops', async () => {
  const server = await start();

  const { stdout } = await promisify(execFile)('sh', ['-c', server.curl]);
  expect(JSON.parse(stdout)).toEqual({ name: 'Monstera deliciosa', tag: 'aroid' });

  const token = /Authorization: Bearer ([\w.-]+)/.exec(server.curl)?.[1];
  const inFlight = Array.from({ length: 5 }, (_, index) =>
    fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 100 + index, name: 'in flight' }),
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  server.child.kill('SIGINT');

  expect((await Promise.all(inFlight)).map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
  expect(await server.exited).toBe(0);
  expect(server.output()).toMatch(
    /SIGINT: finishing requests in flight, then stopping\n[\s\S]*POST \/plants 200[\s\S]*stopped/,
  );
}, 90_000);

test('`npm run token` prints only a token, which a restarted server on the same data folder accepts', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['infra/local/token.ts', '--data-dir', dataDir, '--sub', 'cli'],
    {
      cwd: projectRoot,
    },
  );
  expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);

  const server = await start();
  const response = await fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stdout.trim()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 100, name: 'in flight' }),
  });
  // Stored before the first server stopped: the same content again is 200, other content 409.
  expect(response.status).toBe(200);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
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
