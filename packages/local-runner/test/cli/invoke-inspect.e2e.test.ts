// `cdk-local-runner invoke FUNCTION event.json --inspect`: the function's runtime waits for a debugger before it loads
// the code (node --inspect-wait), so a breakpoint anywhere, its initialization included, can be set first; once one
// attaches over the inspector protocol and lets it run, the invocation runs and its result is printed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, test } from '@jest/globals';
import { spawnInGroup, stopGroups } from 'test-support/process-group';
import { synthesizeRestShapesApp } from '../fixtures/rest-shapes-app.ts';
import { restProxyEvent } from '../helpers/rest-event.ts';
import { runnerBin } from '../helpers/runner-process.ts';

afterEach(stopGroups);

// A function of the REST shapes fixture, answering a fixed text.
let app = '';
beforeAll(() => {
  app = synthesizeRestShapesApp();
});
const functionId = 'WelcomeFunction';

test('the invocation waits for a debugger to attach, then runs', async () => {
  // A REST API proxy event, as a file of its own.
  const event = join(mkdtempSync(join(tmpdir(), 'local-runner-invoke-')), 'event.json');
  writeFileSync(event, JSON.stringify(restProxyEvent('/', { accept: '*/*' })));
  const child = spawnInGroup(
    process.execPath,
    [runnerBin, 'invoke', functionId, event, '--app', app, '--in-memory', '--inspect', '--inspect-port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const listening = new Promise<string>((resolve) =>
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
      if (url) resolve(url);
    }),
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await listening;
  // The port the runner chose, the one the inspector listens on.
  expect(stderr).toContain(
    `Debugger: ${functionId} on 127.0.0.1:${new URL(url).port}, waiting for a debugger to attach`,
  );
  // Nothing ran yet: no result, and the function's module is not loaded (its init would be logged as an invocation).
  expect(stdout).toBe('');
  const socket = new WebSocket(url);
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
  // What a debugger sends once its breakpoints are set (VS Code and Chrome DevTools do).
  socket.send(JSON.stringify({ id: 1, method: 'Runtime.runIfWaitingForDebugger' }));
  expect(await exited).toBe(0);
  socket.close();
  expect(JSON.parse(stdout)).toEqual({ statusCode: 200, body: 'welcome, gardener' });
});
