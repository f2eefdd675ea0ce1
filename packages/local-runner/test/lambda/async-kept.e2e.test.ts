// "Invoking a Lambda function asynchronously" (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html):
// Lambda queues the event and answers 202 at once; the runner keeps that queue in the data folder, so an event it
// accepted is run after the runner was killed (SIGKILL) in the middle of its attempt, with the same request id ("your
// function may receive the same event multiple times": the page's "Duplicate invocations").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { signalGroup } from 'test-support/process-group';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { synthesizeNoApiApp } from '../fixtures/no-api-app.ts';
import { launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

afterEach(stopStarted);

let app = '';
let folder = '';
beforeAll(() => {
  app = synthesizeNoApiApp();
  folder = mkdtempSync(join(tmpdir(), 'local-runner-async-kept-'));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(dirname(app), { recursive: true, force: true });
});

const start = async () => {
  const started = launch(join(folder, 'data'), { args: ['--app', app, '--port', '0'], cwd: folder });
  const output = await launchedUntil(started, /functions and services are serving/);
  return { started, endpoint: /Lambda: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] };
};

test('an event accepted (202) is run again after a SIGKILL cut its attempt off, with its request id', async () => {
  const first = await start();
  const lambda = new LambdaClient({
    endpoint: first.endpoint,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  const answer = await lambda.send(
    new InvokeCommand({
      FunctionName: generatedFunctionName('Workers', 'SlowFunction'),
      InvocationType: 'Event',
      Payload: JSON.stringify({ waitMs: 3000 }),
    }),
  );
  lambda.destroy();
  expect(answer.StatusCode).toBe(202);
  await first.started.printed(/ATTEMPT \S+\n/);
  const attempt = /ATTEMPT (\S+)\n/.exec(first.started.output())?.[1];
  expect(attempt).toMatch(/^[0-9a-f-]{36}$/);
  signalGroup(first.started.child, 'SIGKILL');
  await first.started.exited;
  expect(first.started.output()).not.toContain(`DONE ${attempt}`);
  const second = await start();
  await second.started.printed(new RegExp(`DONE ${attempt}`));
  expect(second.started.output()).toContain(`ATTEMPT ${attempt}`);
}, 120_000);
