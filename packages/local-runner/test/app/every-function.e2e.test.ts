// "Every function is servable and invokable, whatever reaches it" (issue 52): an app with no API starts and serves
// its functions; `invoke` runs a function no API reaches (Node.js and Python), its queue's URL the local SQS's; one
// whose variable has no local value is said not served, and the others serve.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { synthesizeNoApiApp } from '../fixtures/no-api-app.ts';
import { launch, launchedUntil, runnerBin, stopStarted } from '../helpers/runner-process.ts';

afterEach(stopStarted);

let app = '';
let folder = '';
beforeAll(() => {
  app = synthesizeNoApiApp();
  folder = mkdtempSync(join(tmpdir(), 'local-runner-every-function-'));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(dirname(app), { recursive: true, force: true });
});

test('an app with no API starts: its functions are listed, the one that cannot run said', async () => {
  const launched = launch(undefined, { args: ['--app', app, '--in-memory', '--port', '0'], cwd: folder });
  const output = await launchedUntil(launched, /Functions no API reaches .*\n(?: {2}.*\n){2}/);
  expect(output).toMatch(/The app has no API: its functions and services are serving/);
  // Each by the runner's name, then Lambda's (the template gives no FunctionName: CloudFormation's generated one).
  expect(output).toMatch(
    /\n {2}ConsumerFunction: Workers-ConsumerFunction-\w{12}\n {2}PyWorkerFunction: Workers-PyWorkerFunction-\w{12}\n/,
  );
  expect(output).toMatch(/BrokenFunction is not served: BrokenFunction: environment variable QUEUE_URL is /);
});

test.each(['ConsumerFunction', 'PyWorkerFunction'])('invoke runs %s, which no API reaches', (name) => {
  const run = spawnSync(process.execPath, [runnerBin, 'invoke', name, '-', '--app', app, '--in-memory'], {
    cwd: folder,
    encoding: 'utf8',
    input: '{"job":1}',
  });
  expect(run.stderr).not.toMatch(/failed/);
  const result = JSON.parse(run.stdout) as { event: unknown; name: string; queue: string };
  expect(result).toEqual({
    event: { job: 1 },
    // Its name as Lambda knows it: with no FunctionName, CloudFormation's generated one.
    name: generatedFunctionName('Workers', name),
    queue: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/000000000000\/jobs$/),
  });
});

test('invoke refuses the function that cannot run, saying why', () => {
  const run = spawnSync(process.execPath, [runnerBin, 'invoke', 'BrokenFunction', '-', '--app', app, '--in-memory'], {
    cwd: folder,
    encoding: 'utf8',
    input: '{}',
  });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toMatch(
    /^cdk-local-runner invoke failed: BrokenFunction: environment variable QUEUE_URL is .*no local value/m,
  );
});
