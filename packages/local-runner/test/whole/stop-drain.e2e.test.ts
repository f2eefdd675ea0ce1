// Stopping the runner answers every request that reached the machine before the stop, however it is stopped: none is
// reset. Requests the runner read before the signal are served (200); those it reads after it are refused with 503
// and `Connection: close` (RFC 9110 section 15.6.4, "503 Service Unavailable"; RFC 9112 section 9.6, "Tearing Down
// Connections"). Node's `server.close()` closes the listening socket at once, and the kernel resets the connections it
// accepted that the server had not yet taken (its listen backlog); since Node 19 it also ends the server's idle
// connections, those whose request it has not read yet among them (Node's HTTP documentation, `server.close()`).
//
// A busy machine, as a fact rather than by timing: the runner is stopped (SIGSTOP) once its first requests are in
// flight; the others are sent while it cannot run (their bytes written to the kernel), then the stop signal is sent
// and seen pending at the runner (sent to npm alone, once npm has forwarded it), and only then does the runner run
// again. Each case starts a runner of its own under `npm start`, as a project's script runs it
// (`LOCAL_RUNNER_PARENT_PID=$PPID exec ...`), so its functions start cold. Every server the runner starts for an app
// (a REST API's above; a function URL's and a WebSocket API's below, in-process) drains the same way.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { launch, launchedUntil, stopStarted } from 'test-support/launched';
import { signalGroup } from 'test-support/process-group';
import { startRunner } from '../../src/runner.ts';
import { synthesizeFunctionUrlApp } from '../fixtures/function-url-app.ts';
import { synthesizeRuntimesApp } from '../fixtures/runtimes-app.ts';
import { synthesizeWebSocketApp } from '../fixtures/websocket-app.ts';
import { startGate } from '../helpers/hold-gate.ts';
import { runnerBin } from '../helpers/runner-process.ts';

let cloudAssemblyDir: string;
/** A project whose `start` script is the one docs/stopping.md describes: npm's child is the runner, no shell between. */
let project: string;
beforeAll(() => {
  cloudAssemblyDir = synthesizeRuntimesApp();
  project = join(dirname(cloudAssemblyDir), 'project');
  mkdirSync(project);
  const start = `LOCAL_RUNNER_PARENT_PID=$PPID exec '${process.execPath}' '${runnerBin}' start`;
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'stopped', private: true, scripts: { start } }));
});
afterAll(() => rmSync(dirname(cloudAssemblyDir), { recursive: true, force: true }));
/** What a case opened, closed whatever happened to it. */
const opened: { close: () => unknown }[] = [];
afterEach(async () => {
  stopStarted();
  await Promise.all(opened.splice(0).map((open) => open.close()));
});

/** Resolves once `fact()` holds, looking every 20 ms: what another process does offers no event to wait on. */
const until = async (fact: () => boolean) => {
  while (!fact()) await new Promise((resolve) => setTimeout(resolve, 20));
};
/** Process `pid`'s state letter (`T`: stopped). */
const stateOf = (pid: number) => /^\d+ \(.*\) (\w)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
/** Whether `signal` is pending at process `pid` (sent to it, not yet delivered: it is stopped). */
const pending = (pid: number, signal: NodeJS.Signals) => {
  const mask = /^ShdPnd:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
  const number = { SIGINT: 2, SIGTERM: 15 }[signal as 'SIGINT' | 'SIGTERM'];
  return (BigInt(`0x${mask}`) >> BigInt(number - 1)) % 2n === 1n;
};
/** The runner npm runs (its child: the script `exec`s it). */
const runnerOf = (npm: ChildProcess) =>
  Number(readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8').trim().split(' ')[0]);

/**
 * `GET url` on a connection of its own: `sent` once its bytes are with the kernel, `outcome` what came back: the
 * status, and for a 503 the Connection header and the body's error shape; or the socket's error (a reset).
 */
const send = (url: string, agent: Agent, headers: Record<string, string> = {}) => {
  let written: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (written = resolve));
  const outcome = new Promise<string>((resolve) => {
    const fail = (error: NodeJS.ErrnoException) => {
      written();
      resolve(error.code ?? error.message);
    };
    request(url, { agent, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('error', fail).on('end', () => {
        if (response.statusCode !== 503) return resolve(String(response.statusCode));
        const { error, message } = JSON.parse(body) as { error: number; message: string };
        resolve(`503 Connection: ${response.headers.connection} ${error} ${typeof message}`);
      });
    })
      .on('error', fail)
      .on('finish', written)
      .end();
  });
  return { sent, outcome };
};

const refused = '503 Connection: close 503 string';

const ways: [string, (npm: ChildProcess, runner: number) => void, 'SIGINT' | 'SIGTERM'][] = [
  ['Ctrl-C to the whole group', (npm) => signalGroup(npm, 'SIGINT'), 'SIGINT'],
  ['SIGTERM to the whole group', (npm) => signalGroup(npm, 'SIGTERM'), 'SIGTERM'],
  ['SIGTERM to npm alone', (npm) => npm.kill('SIGTERM'), 'SIGTERM'],
  ['SIGTERM to the runner alone', (_npm, runner) => process.kill(runner, 'SIGTERM'), 'SIGTERM'],
  ['SIGINT to the runner alone', (_npm, runner) => process.kill(runner, 'SIGINT'), 'SIGINT'],
];

test.each(ways)(
  '%s, 32 requests sent: the 4 in flight 200, the 28 sent while it could not run 503 with Connection: close, none reset',
  async (_how, stop, signal) => {
    const gate = await startGate();
    const agent = new Agent({ keepAlive: true });
    opened.push(gate, { close: () => agent.destroy() });
    const envVars = join(project, `env-${signal}.json`);
    writeFileSync(envVars, JSON.stringify({ CustomFunction: { HOLD_URL: gate.url } }));
    const args = ['--app', cloudAssemblyDir, '--in-memory', '--port', '0', '--env-vars', envVars, '--max-workers', '4'];
    const npm = launch(['npm', 'start', '--', ...args], { cwd: project });
    const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(await launchedUntil(npm, /is serving at/))?.[1];
    const runner = runnerOf(npm.child);

    // Four in flight: each function started cold and holds its invocation at the gate.
    const inFlight = Array.from({ length: 4 }, () => send(`${url}/custom`, agent));
    await gate.holding(4);
    // The runner cannot run; 28 more reach the machine (connected, their bytes written), then the signal.
    process.kill(runner, 'SIGSTOP');
    await until(() => stateOf(runner) === 'T');
    const unread = Array.from({ length: 28 }, () => send(`${url}/custom`, agent));
    await Promise.all(unread.map(({ sent }) => sent));
    stop(npm.child, runner);
    await until(() => pending(runner, signal));
    process.kill(runner, 'SIGCONT');
    await npm.printed(new RegExp(`${signal}: finishing requests in flight`));
    gate.open();

    expect(await Promise.all(inFlight.map(({ outcome }) => outcome))).toEqual(Array(4).fill('200'));
    // Read after the signal, each is refused; one the runner read as the signal came is served.
    const unanswered = (await Promise.all(unread.map(({ outcome }) => outcome))).filter(
      (outcome) => outcome !== refused && outcome !== '200',
    );
    expect(unanswered).toEqual([]);
    expect(await npm.exited).toBe(0);
  },
  60_000,
);

describe('every server of the runner drains alike', () => {
  let urlApp: string;
  let webSocketApp: string;
  beforeAll(() => {
    urlApp = synthesizeFunctionUrlApp();
    webSocketApp = synthesizeWebSocketApp();
  });
  afterAll(() => {
    for (const app of [urlApp, webSocketApp]) rmSync(dirname(app), { recursive: true, force: true });
  });

  test('a function URL: its streamed response in flight finishes, a request it reads while stopping is refused 503', async () => {
    const gate = await startGate();
    const agent = new Agent({ keepAlive: true });
    opened.push(gate, { close: () => agent.destroy() });
    const runner = await startRunner({
      cloudAssemblyDir: urlApp,
      port: 0,
      dataDir: undefined,
      maxWorkers: 1,
      log: () => undefined,
    });
    let stopped: Promise<void> | undefined;
    opened.push({ close: () => stopped ?? runner.close(0) });
    const streamUrl = runner.apis.find(({ app }) => app.apiId === 'StreamUrl')?.url;
    // The streamed function writes its first chunk, then fetches the gate (x-signal): in flight, as a fact.
    const streamed = send(`${streamUrl}/held`, agent, { 'x-signal': gate.url });
    await gate.holding(1);

    stopped = runner.close();
    const refusedThen = send(`${streamUrl}/later`, agent);
    expect(await refusedThen.outcome).toBe(refused);
    gate.open();

    expect(await streamed.outcome).toBe('201');
    await stopped;
  }, 60_000);

  test('a WebSocket API: its open connection closed going away, an upgrade read while stopping refused 503', async () => {
    const agent = new Agent({ keepAlive: true });
    opened.push({ close: () => agent.destroy() });
    // The chat's functions use the SDK: this package's.
    const sdk = join(dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-dynamodb/package.json'))), '../..');
    const runner = await startRunner({
      cloudAssemblyDir: webSocketApp,
      port: 0,
      dataDir: undefined,
      maxWorkers: 1,
      runtimeSdk: sdk,
      log: () => undefined,
    });
    let stopped: Promise<void> | undefined;
    opened.push({ close: () => stopped ?? runner.close(0) });
    const address = runner.apis.find(({ app }) => app.apiId === 'Chat')?.url ?? '';
    const client = new WebSocket(`${address.replace(/^http:/, 'ws:')}/dev`);
    const closed = new Promise<number>((resolve) => client.addEventListener('close', ({ code }) => resolve(code)));
    await new Promise((resolve) => client.addEventListener('open', resolve));
    // An @connections call in flight: its headers sent, the rest of its body to come.
    const call = connect(Number(new URL(address).port), '127.0.0.1');
    opened.push({ close: () => call.destroy() });
    let answer = '';
    call.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    const callEnded = new Promise((resolve) => call.once('end', resolve));
    call.write('POST /dev/@connections/gone HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{');
    // Another call, sent after it, answered: the runner has read the first (connections are taken in order).
    expect(await send(`${address}/dev/@connections/none`, agent).outcome).toBe('410');

    stopped = runner.close();
    expect(await closed).toBe(1001);
    const handshake = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13' };
    const upgrade = send(`${address}/dev`, agent, { ...handshake, 'Sec-WebSocket-Key': 'c3RvcHBpbmcgcnVubmVy' });
    expect(await upgrade.outcome).toBe(refused);
    call.write('}');

    await callEnded;
    expect(answer).toMatch(/^HTTP\/1\.1 410 [\s\S]*\r\nConnection: close\r\n/);
    await stopped;
  }, 60_000);
});
