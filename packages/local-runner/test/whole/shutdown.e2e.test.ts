// Stopping the local runner: requests in flight may finish, but one stuck in a function does not hold the stop past
// the grace period.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { RunnerError } from '../../src/errors.ts';
import { startRunner } from '../../src/runner.ts';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';

/** Synthesized once: the fixture's code assets belong to one stack. */
let cloudAssemblyDir: string;
beforeAll(() => {
  cloudAssemblyDir = synthesizeFixtureApp();
});
afterAll(() => rmSync(cloudAssemblyDir, { recursive: true, force: true }));

test('a request still in flight after the grace period is cut off, and the runner says so', async () => {
  const logLines: string[] = [];
  const api = await startRunner({
    cloudAssemblyDir,
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    log: (line) => logLines.push(line),
  });
  // This function runs far past both the grace period and its 1 s integration timeout.
  const stuck = fetch(`${api.url}/faults/slow-integration`).then(
    (response) => response.status,
    (error: unknown) => error,
  );
  // In flight once the runner has invoked the function.
  while (api.invocations('SlowIntegrationFunction') === 0) await new Promise((resolve) => setImmediate(resolve));

  await api.close(100);

  expect(logLines).toContain('requests still in flight after 0.1 s: stopping anyway');
  expect(await stuck).toHaveProperty('message', 'fetch failed');
}, 30_000);

// What it started before (the database process) is stopped: test/global-teardown.ts fails the run on a leftover.
test("a port in use is the user's to fix: a RunnerError naming the port", async () => {
  const options = { cloudAssemblyDir, dataDir: undefined, maxWorkers: 1, log: () => undefined };
  const first = await startRunner({ ...options, port: 0 });
  const port = Number(new URL(first.url).port);
  try {
    const second = startRunner({ ...options, port });
    await expect(second).rejects.toThrow(RunnerError);
    await expect(second).rejects.toThrow(`port ${port} is in use: the runner wanted it for the `);
  } finally {
    await first.close();
  }
}, 30_000);
