// A terminal's Ctrl-C (SIGINT) or `kill -- -PGID` (SIGTERM) reaches every process of the runner's group. The
// execution environments are the runner's to stop: none takes the group's signal, so every request in flight is
// answered before the runner stops. The environments here run a custom runtime that leaves signals to their default
// action (SIGINT or SIGTERM ends it), as a Node.js environment does in the moments it starts, before its runtime
// ignores them; each holds its invocation at the test's gate while the signal is sent.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { signalGroup } from 'test-support/process-group';
import { synthesizeRuntimesApp } from '../fixtures/runtimes-app.ts';
import { startGate } from '../helpers/hold-gate.ts';
import { startApp, stopStarted } from '../helpers/runner-process.ts';

let cloudAssemblyDir: string;
beforeAll(() => {
  cloudAssemblyDir = synthesizeRuntimesApp();
});
afterAll(() => rmSync(dirname(cloudAssemblyDir), { recursive: true, force: true }));
afterEach(stopStarted);

test.each(['SIGINT', 'SIGTERM'] as const)(
  '%s to the whole group with 32 requests in flight: all 32 answered 200, then the runner stops',
  async (signal) => {
    const gate = await startGate();
    const envVars = join(dirname(cloudAssemblyDir), `env-${signal}.json`);
    writeFileSync(envVars, JSON.stringify({ CustomFunction: { HOLD_URL: gate.url } }));
    const workers = 4;
    const runner = await startApp(cloudAssemblyDir, {
      args: ['--env-vars', envVars, '--max-workers', String(workers)],
    });

    // Four held in the environments at the gate, the others waiting for one.
    const inFlight = Array.from({ length: 32 }, () =>
      fetch(`${runner.url}/custom`).then((response) => response.status),
    );
    await gate.holding(workers);
    signalGroup(runner.child, signal);
    await runner.printed(new RegExp(`${signal}: finishing requests in flight`));
    gate.open();

    expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 32 }, () => 200));
    expect(await runner.exited).toBe(0);
    expect(runner.output()).not.toMatch(/ended by SIG|exited with code/);
    await gate.close();
  },
  90_000,
);

/** The runner's child processes whose command line includes `name`. */
const childrenOf = (pid: number, name: string) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .filter(Boolean)
    .filter((child) => readFileSync(`/proc/${child}/cmdline`, 'latin1').includes(name))
    .map(Number);
/** Resolves once process `pid` has ended (gone, or a zombie), looking every 50 ms: Node offers no wait on a non-child. */
const ended = async (pid: number) => {
  while (existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')))
    await new Promise((resolve) => setTimeout(resolve, 50));
};

test('SIGKILL to the whole group: the environments, out of it, end with the runner all the same', async () => {
  // Held at the gate, which never answers: the runtime waits there, and would not see its Runtime API go.
  const gate = await startGate();
  const envVars = join(dirname(cloudAssemblyDir), 'env-SIGKILL.json');
  writeFileSync(envVars, JSON.stringify({ CustomFunction: { HOLD_URL: gate.url } }));
  const runner = await startApp(cloudAssemblyDir, { args: ['--env-vars', envVars, '--max-workers', '2'] });
  const inFlight = [1, 2].map(() => fetch(`${runner.url}/custom`).catch((error: unknown) => error));
  await gate.holding(2);
  const environments = childrenOf(runner.child.pid ?? 0, 'bootstrap');
  expect(environments).toHaveLength(2);

  signalGroup(runner.child, 'SIGKILL');

  // The jest timeout is the bound: each ends, though neither is in the group the signal went to.
  await Promise.all(environments.map(ended));
  await Promise.all(inFlight);
  await gate.close();
}, 90_000);
