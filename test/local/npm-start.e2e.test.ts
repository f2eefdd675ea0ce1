// `npm start` and `npm run token` as a user runs them: the banner's curl line creates a plant, stopping lets requests
// in flight finish (however it is stopped), no process outlives npm, and a restarted server on the same data folder
// has every plant.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, test } from '@jest/globals';
import { signalGroup } from 'test-support/process-group';
import { projectRoot } from '../../infra/project-root.ts';
import { closeGates, startDatabaseGate } from '../helpers/database-gate.ts';
import { type Launched, launch, newDataDir, type Started, start, stopStarted, tokenOf } from '../helpers/npm-start.ts';
import { postPlant } from '../helpers/post-plant.ts';

afterEach(async () => {
  stopStarted();
  await closeGates();
});

test('the curl line printed at start creates a plant', async () => {
  const server = await start(newDataDir());
  // The banner names the command for more tokens, as README.md shows it.
  expect(server.output()).toContain('A token (12 h; more with `npx cdk-local-runner token`):');

  const { stdout } = await promisify(execFile)('sh', ['-c', server.curl]);

  expect(JSON.parse(stdout)).toEqual({ name: 'Monstera deliciosa', tag: 'aroid' });
  // A client configured with the deployed base URL's shape (its stage, v1) works by changing the host alone.
  const staged = await postPlant(`${server.url}/v1`, tokenOf(server), { id: 2, name: 'Ficus lyrata' });
  expect([staged.status, await staged.json()]).toEqual([200, { name: 'Ficus lyrata' }]);
}, 90_000);

test('a restarted server on the same data folder has every plant: same content 200, other content 409', async () => {
  const dataDir = newDataDir();
  // `npm run token` before any server: it creates the issuer's key in the data folder, which servers then use.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['node_modules/.bin/cdk-local-runner', 'token', '--data-dir', dataDir],
    {
      cwd: projectRoot,
    },
  );
  expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  const token = stdout.trim();

  const first = await start(dataDir);
  expect((await postPlant(first.url, token, { id: 300, name: 'Persisted' })).status).toBe(200);
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);

  const second = await start(dataDir);
  expect((await postPlant(second.url, token, { id: 300, name: 'Persisted' })).status).toBe(200);
  expect((await postPlant(second.url, token, { id: 300, name: 'Changed' })).status).toBe(409);
}, 90_000);

/** The runner npm started (npm runs it with exec: no shell in between). */
const runnerOf = (server: Started) => {
  const pid = spawnSync('pgrep', ['-P', String(server.child.pid), '-f', 'cdk-local-runner'], {
    encoding: 'utf8',
  });
  return Number(pid.stdout.trim());
};
/**
 * The processes of the group `server` leads that have not exited. Left out: zombies (exited, not yet reaped), and a
 * process whose command line is empty, which ps shows as its name in brackets: an exiting process releases its memory
 * (and with it the command line) just before it closes its files (the pipes `closed` waits for), so it holds nothing
 * and only its last steps remain (seen once in CI: `19104 R [MainThread]`, the runner between its pipes and its end).
 */
const groupLeft = (server: Launched) =>
  spawnSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(server.child.pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*\d+\s+Z/.test(line) && !/^\s*\d+\s+\S+\s+\[[^\]]*\]$/.test(line));

// Each way docs/local-runner.md says `npm start` may be stopped. A signal to the whole group reaches the runner twice (from the
// sender, and forwarded by npm): one stop all the same.
const stops: [string, (server: Started) => void, string][] = [
  ['Ctrl-C to the whole group (a terminal)', (server) => signalGroup(server.child, 'SIGINT'), 'SIGINT'],
  ['SIGTERM to the whole group (kill -- -PGID)', (server) => signalGroup(server.child, 'SIGTERM'), 'SIGTERM'],
  ['SIGINT to npm alone', (server) => server.child.kill('SIGINT'), 'SIGINT'],
  ['SIGTERM to npm alone (process managers)', (server) => server.child.kill('SIGTERM'), 'SIGTERM'],
  ['SIGKILL to npm alone', (server) => server.child.kill('SIGKILL'), 'the process that started it is gone'],
  ['SIGINT to the runner alone', (server) => process.kill(runnerOf(server), 'SIGINT'), 'SIGINT'],
];

test.each(stops)(
  '%s: requests in flight answered 200, then a clean exit, the data folder reusable',
  async (_how, stop, reason) => {
    // createPlant reaches the database through a gate: a request the gate holds is in flight, as a fact.
    const gate = await startDatabaseGate();
    const dataDir = newDataDir();
    const envVars = join(newDataDir(), 'env.json');
    writeFileSync(envVars, JSON.stringify({ CreatePlantFunction: { AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint } }));
    const server = await start(dataDir, { viaNpm: true, args: ['--env-vars', envVars] });
    gate.forwardTo(server.databaseEndpoint);
    const token = tokenOf(server);

    const inFlight = [1, 2, 3, 4].map((id) => postPlant(server.url, token, { id, name: 'in flight' }));
    await gate.holding(4);
    stop(server);
    await server.printed(new RegExp(`${reason}: finishing requests in flight`));
    gate.open();

    expect((await Promise.all(inFlight)).map((response) => response.status)).toEqual([200, 200, 200, 200]);
    await server.closed;
    expect(groupLeft(server)).toEqual([]);
    expect(server.output()).toMatch(/finishing requests in flight[^\n]*\n[\s\S]*POST \/plants 200[\s\S]*stopped/);
    expect(server.output()).not.toMatch(/stopping now|npm start failed/);
    await gate.close();

    const again = await start(dataDir);
    const same = await Promise.all([1, 2, 3, 4].map((id) => postPlant(again.url, token, { id, name: 'in flight' })));
    expect(same.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect((await postPlant(again.url, token, { id: 1, name: 'changed' })).status).toBe(409);
  },
  90_000,
);

/**
 * The runner's runtime processes: its children running the Lambda runtime's loop (lambda/runtime.mjs), the execution
 * environments and the spares started ahead for the next cold starts.
 */
const runtimeProcessesOf = (runner: number) =>
  readFileSync(`/proc/${runner}/task/${runner}/children`, 'utf8')
    .split(' ')
    .filter(Boolean)
    .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('lambda/runtime.mjs'))
    .map(Number);
/** Resolves once process `pid` has ended (gone, or a zombie), looking every 50 ms: Node offers no wait on a non-child. */
const ended = async (pid: number) => {
  while (existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

test('SIGKILL to the runner alone: its execution environments and spares, a process each, end with it', async () => {
  const server = await start(newDataDir(), { viaNpm: true });
  expect((await postPlant(server.url, tokenOf(server), { id: 1, name: 'Pilea' })).status).toBe(200);
  const runner = runnerOf(server);
  const processes = runtimeProcessesOf(runner);
  // The authorizer's and createPlant's environments, and at least one spare waiting for the next cold start.
  expect(processes.length).toBeGreaterThanOrEqual(3);
  process.kill(runner, 'SIGKILL');
  // Their IPC channel closes with the runner: each exits (the test's time-out is the bound).
  await Promise.all(processes.map(ended));
}, 90_000);

test('a second signal, later than the first, stops at once', async () => {
  const gate = await startDatabaseGate();
  const envVars = join(newDataDir(), 'env.json');
  writeFileSync(envVars, JSON.stringify({ CreatePlantFunction: { AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint } }));
  const server = await start(newDataDir(), { viaNpm: true, args: ['--env-vars', envVars] });
  gate.forwardTo(server.databaseEndpoint);
  const held = postPlant(server.url, tokenOf(server), { id: 1, name: 'held' }).catch((error: unknown) => error);
  await gate.holding(1);

  signalGroup(server.child, 'SIGINT');
  await server.printed(/SIGINT: finishing requests in flight/);
  // The drain waits on the held request (the gate holds it: a fact). A second signal counts only when it comes later
  // than the runner's window for the first one's copies (npm forwards each signal once more), so this waits past it.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  signalGroup(server.child, 'SIGINT');

  await server.closed;
  expect(server.output()).toMatch(/SIGINT again: stopping now/);
  expect(String(await held)).toMatch(/fetch failed/); // the connection closed unanswered
  await gate.close();
}, 90_000);

test('npm stopped just as it starts the runner or as the banner appears, round after round: the runner always stops', async () => {
  const moments: [RegExp, NodeJS.Signals][] = [
    [/^> .*exec cdk-local-runner start/m, 'SIGKILL'],
    [/^curl /m, 'SIGKILL'],
    [/^> .*exec cdk-local-runner start/m, 'SIGTERM'],
    [/^curl /m, 'SIGTERM'],
    [/^curl /m, 'SIGKILL'],
    [/^curl /m, 'SIGKILL'],
  ];
  for (const [moment, signal] of moments) {
    const launched = launch(newDataDir(), { viaNpm: true });
    await Promise.race([launched.printed(moment), launched.closed]);
    expect(launched.output()).toMatch(moment);
    launched.child.kill(signal);

    await launched.closed;
    expect(groupLeft(launched)).toEqual([]);
  }
}, 180_000);

test('npm gone before its shell read $PPID (the shell handed to process 1): the runner stops at its first look', async () => {
  // What the round above meets now and then: npm killed as it starts the script, the shell's $PPID is 1.
  const launched = launch(newDataDir(), { orphaned: true, env: { ...process.env, LOCAL_RUNNER_PARENT_PID: '1' } });

  await launched.closed;
  expect(launched.output()).toMatch(/the process that started it is gone: finishing requests in flight/);
  expect(groupLeft(launched)).toEqual([]);
}, 90_000);

test('`npm run invoke` runs one function with an event file and prints its result', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      'node_modules/.bin/cdk-local-runner',
      'invoke',
      'CreatePlantFunction',
      'examples/events/create-plant.json',
      '--in-memory',
    ],
    { cwd: projectRoot },
  );
  const result = JSON.parse(stdout);
  expect(result).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'application/json' } });
  expect(JSON.parse(result.body)).toEqual({ name: 'Monstera deliciosa', tag: 'aroid' });
}, 90_000);
