// EventBridge Scheduler's schedules as a user serves them (`cdk-local-runner start`): a one-time schedule a few seconds
// ahead fires once, reaching a Lambda function (invoked asynchronously) and an SQS queue, its Input as given with the
// context attributes replaced ("Schedule types on EventBridge Scheduler",
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html, one-time schedules; "Adding context
// attributes in EventBridge Scheduler",
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-context-attributes.html). `fire` fires one
// now through the running runner's socket; a universal target is refused by name; a restart on the same data folder
// does not fire a one-time schedule again. Every wait is for a fact (a log line, a message), never for time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { inboxName, setOneTimeSchedules, synthesizeSchedulerApp } from '../fixtures/scheduler-app.ts';
import { type Launched, launch, launchedUntil, runnerBin, stopStarted } from '../helpers/runner-process.ts';

const serving = /is serving at (http:\/\/127\.0\.0\.1:\d+)/;
const scheduleArn = (name: string) => `arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}`;

let project = '';
let dataDir = '';
let assembly = '';
let at = '';
let runner: Launched | undefined;
let sqs: SQSClient | undefined;
let sqsEndpoint = '';

/** The queue's next message, long polling until one comes. */
const nextMessage = async (): Promise<Message> => {
  for (;;) {
    const { Messages } = await (sqs as SQSClient).send(
      new ReceiveMessageCommand({
        QueueUrl: `${sqsEndpoint}/${localAws.accountId}/${inboxName}`,
        WaitTimeSeconds: 5,
      }),
    );
    const [message] = Messages ?? [];
    if (message) return message;
  }
};

const start = async () => {
  const launched = launch(dataDir, { args: ['--app', assembly], cwd: project });
  await launchedUntil(launched, serving);
  return launched;
};

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'scheduler-e2e-'));
  dataDir = join(project, 'data');
  assembly = synthesizeSchedulerApp();
  // A few seconds ahead: enough for the runner to read it first (a one-time schedule already passed when first read
  // is not fired), to the second as at() takes it.
  at = setOneTimeSchedules(assembly, new Date(Date.now() + 15_000));
  runner = await start();
  sqsEndpoint = /SQS: (http:\/\/127\.0\.0\.1:\d+)/.exec(runner.output())?.[1] ?? '';
  sqs = new SQSClient({ endpoint: sqsEndpoint, region: localAws.region, credentials: localAws.credentials });
}, 120_000);
afterAll(async () => {
  sqs?.destroy();
  await stopStarted();
  if (project) rmSync(project, { recursive: true, force: true });
}, 60_000);

test('the banner lists each schedule with its next fire time and target; a universal target is refused by name', () => {
  const output = runner?.output() ?? '';
  expect(output).toContain(
    'Scheduler/Universal: schedule not served: its universal target arn:aws:scheduler:::aws-sdk:sqs:sendMessage',
  );
  expect(output).toMatch(
    new RegExp(`schedule default/at-function: ${at.replace(/[()]/g, '\\$&')}, next \\S+Z -> arn:aws:lambda:`),
  );
  expect(output).toMatch(
    /schedule default\/Scheduler-Nightly-\w+: cron\(0 3 \* \* \? \*\) Europe\/Berlin, next \S+Z -> arn:aws:sqs:us-east-1:000000000000:scheduler-inbox/,
  );
  expect(output).toMatch(/schedule default\/paused: rate\(5 minutes\), DISABLED/);
});

test('the one-time schedule reaches the function, invoked asynchronously with the Input, context attributes replaced', async () => {
  const line = /SCHEDULED (\{.*"to":"function".*\})/;
  await runner?.printed(line);
  const event = JSON.parse(line.exec(runner?.output() ?? '')?.[1] ?? '{}') as Record<string, string>;
  expect(event).toEqual({
    to: 'function',
    arn: scheduleArn('at-function'),
    time: `${at.slice(3, -1)}Z`,
    execution: expect.stringMatching(/^[0-9a-f]{16}$/),
    attempt: '1',
  });
}, 60_000);

test('the one-time schedule reaches the queue', async () => {
  const message = await nextMessage();
  expect(JSON.parse(message.Body ?? '')).toEqual({
    to: 'queue',
    arn: scheduleArn('at-queue'),
    time: `${at.slice(3, -1)}Z`,
    execution: expect.stringMatching(/^[0-9a-f]{16}$/),
    attempt: '1',
  });
}, 60_000);

test('`fire` fires a schedule now, by its logical id, through the running runner', async () => {
  const fired = spawnSync(process.execPath, [runnerBin, 'fire', 'Nightly'], { cwd: project, encoding: 'utf8' });
  expect({ status: fired.status, stderr: fired.stderr }).toEqual({ status: 0, stderr: '' });
  expect(fired.stdout).toMatch(/^fired schedule default\/Scheduler-Nightly-\w+\n$/);
  const message = await nextMessage();
  expect(JSON.parse(message.Body ?? '')).toMatchObject({ to: 'nightly', attempt: '1' });
}, 60_000);

test('`fire` with a name no schedule has fails, listing those it times', () => {
  const fired = spawnSync(process.execPath, [runnerBin, 'fire', 'Nope'], { cwd: project, encoding: 'utf8' });
  expect(fired.status).toBe(1);
  expect(fired.stderr).toMatch(
    /^cdk-local-runner fire failed: no schedule or scheduled rule is named Nope; the runner times: .*schedule default\/at-function/,
  );
});

test('a restart on the same data folder does not fire a one-time schedule that fired', async () => {
  // Both one-time schedules have fired (the tests above saw them).
  await stopStarted();
  runner = await start();
  expect(runner.output()).toMatch(/schedule default\/at-function: at\([^)]+\), no firing to come/);
  expect(runner.output()).toMatch(/schedule default\/at-queue: at\([^)]+\), no firing to come/);
}, 120_000);
