// Step Functions as a user's SDK and an app's functions reach it, on the whole runner serving a CDK app
// (fixtures/state-machine-app.ts) with waits skipped (--skip-waits): each state type in JSONPath ("State machine
// structure in Amazon States Language", https://docs.aws.amazon.com/step-functions/latest/dg/statemachine-structure.html;
// Amazon States Language specification, https://states-language.net/spec.html) and in JSONata with variables
// ("Transforming data with JSONata in Step Functions", https://docs.aws.amazon.com/step-functions/latest/dg/transforming-data.html;
// "Passing data between states with variables", https://docs.aws.amazon.com/step-functions/latest/dg/workflow-variables.html),
// a Retry succeeding on the third try and a Catch ("Handling errors in Step Functions workflows",
// https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html), and a `.waitForTaskToken` task
// completed by a function calling SendTaskSuccess ("Wait for a Callback with Task Token",
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token); the history's
// event types as the API names them ("HistoryEvent", https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
} from '@aws-sdk/client-sfn';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { stateMachineArn } from '../../../src/app/return-values.ts';
import { stateMachineApp, synthesizeStateMachineApp } from '../../fixtures/state-machine-app.ts';
import { localClient } from '../../helpers/local-clients.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-sfn/package.json'))),
  '../..',
);

const runner = servedBeforeAll(synthesizeStateMachineApp, { runtimeSdk: installedPackages, skipWaits: true });
let sfn: SFNClient;
let sqs: SQSClient;
beforeAll(() => {
  // StartSyncExecution's endpoint trait prefixes the host with `sync-`: a local endpoint takes none
  // (docs/step-functions.md).
  sfn = localClient(SFNClient, runner.api.serviceUrls.states, { disableHostPrefix: true });
  sqs = localClient(SQSClient, runner.api.serviceUrls.sqs);
});
afterAll(() => {
  sfn?.destroy();
  sqs?.destroy();
});

/** The runner's log. */
const log = runner.log.lines;

/** Once the log says that `execution` ended (names here are letters and dashes alone). */
const ended = (execution: string) => runner.log.seen(new RegExp(` ${execution}: execution (?!started)`));

/** Starts an execution of `machine` named `name` and answers DescribeExecution once it has ended. */
const run = async (machine: string, name: string, input: unknown) => {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: stateMachineArn(machine), name, input: JSON.stringify(input) }),
  );
  await ended(name);
  return sfn.send(new DescribeExecutionCommand({ executionArn }));
};

const historyOf = async (executionArn: string | undefined) =>
  (await sfn.send(new GetExecutionHistoryCommand({ executionArn }))).events ?? [];

test('the template’s state machines are listed, each by the name it gives and its type', async () => {
  const { stateMachines = [] } = await sfn.send(new ListStateMachinesCommand({}));
  const listed = Object.fromEntries(stateMachines.map(({ name, type }) => [name, type]));
  expect(listed).toEqual({
    [stateMachineApp.everyState]: 'STANDARD',
    [stateMachineApp.jsonata]: 'EXPRESS',
    [stateMachineApp.retrying]: 'STANDARD',
    [stateMachineApp.catching]: 'STANDARD',
    [stateMachineApp.callback]: 'STANDARD',
    [stateMachineApp.integrations]: 'STANDARD',
    [stateMachineApp.onStored]: 'STANDARD',
  });
});

test('every state type in JSONPath: an hour’s Wait skipped, Parallel and Map results, each state logged', async () => {
  const described = await run(stateMachineApp.everyState, 'every-state', { plant: 'fern' });
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toEqual({
    plant: 'fern',
    given: { value: 21 },
    items: ['fern', 'ivy'],
    doubled: { value: 42 },
    both: [{ text: 'doubled to 42' }, { count: 2 }],
    each: [{ label: '0:fern' }, { label: '1:ivy' }],
  });
  const types = (await historyOf(described.executionArn)).map(({ type }) => type);
  for (const type of [
    'ExecutionStarted',
    'PassStateEntered',
    'TaskStateEntered',
    'TaskScheduled',
    'TaskStarted',
    'TaskSucceeded',
    'ChoiceStateEntered',
    'WaitStateEntered',
    'ParallelStateStarted',
    'ParallelStateSucceeded',
    'MapStateStarted',
    'MapIterationStarted',
    'MapIterationSucceeded',
    'MapStateSucceeded',
    'SucceedStateEntered',
    'ExecutionSucceeded',
  ])
    expect(types).toContain(type);
  const said = log.filter((line) => line.includes('EveryState every-state:'));
  expect(said).toEqual(expect.arrayContaining([expect.stringContaining('Double (Task) succeeded -> Keep')]));
  expect(said).toEqual(expect.arrayContaining([expect.stringContaining('Pause (Wait) would wait 3600 s')]));
});

test('every state type in JSONata with variables, run synchronously: Assign, Arguments, Output, Condition, Items', async () => {
  const answer = await sfn.send(
    new StartSyncExecutionCommand({
      stateMachineArn: stateMachineArn(stateMachineApp.jsonata),
      input: JSON.stringify({ plant: 'fern', prices: [2, 3, 4] }),
    }),
  );
  expect(answer.status).toBe('SUCCEEDED');
  expect(JSON.parse(answer.output ?? '')).toEqual({ plant: 'FERN', doubled: 18, taxed: [4, 6, 8], range: [8, 4] });
  const small = await sfn.send(
    new StartSyncExecutionCommand({
      stateMachineArn: stateMachineArn(stateMachineApp.jsonata),
      input: JSON.stringify({ plant: 'ivy', prices: [1, 2] }),
    }),
  );
  expect([small.status, small.error, small.cause]).toEqual(['FAILED', 'Small', 'only 6']);
});

test('a Retry succeeds on the third try, its 30 s and 60 s back-off skipped', async () => {
  const described = await run(stateMachineApp.retrying, 'third-try', {});
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '').Payload).toEqual({ attempts: 3 });
  const events = await historyOf(described.executionArn);
  expect(events.filter(({ type }) => type === 'TaskFailed').map((e) => e.taskFailedEventDetails?.error)).toEqual([
    'Flaky',
    'Flaky',
  ]);
  expect(events.filter(({ type }) => type === 'TaskScheduled')).toHaveLength(3);
  expect(log).toEqual(expect.arrayContaining([expect.stringContaining('Flaky (Task) failed: Flaky: retry 2 of 5')]));
});

test('a Catch puts the error output where its ResultPath says and moves on', async () => {
  const described = await run(stateMachineApp.catching, 'caught', { order: 'o-7' });
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toEqual({ refunded: 'o-7', why: 'Declined' });
});

test('a .waitForTaskToken task waits until the function it invoked calls SendTaskSuccess', async () => {
  const described = await run(stateMachineApp.callback, 'approval', {});
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toEqual({ approved: true, by: 'function' });
  const types = (await historyOf(described.executionArn)).map(({ type }) => type);
  expect(types).toEqual(expect.arrayContaining(['TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded']));
});

// "Integrating services with Step Functions" (https://docs.aws.amazon.com/step-functions/latest/dg/integrate-services.html):
// the optimized integrations of DynamoDB, SQS, SNS, EventBridge and Step Functions (`.sync:2`,
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-stepfunctions.html) and an AWS SDK integration, each
// answered by the local service over its own endpoint.
test('tasks call the served services: DynamoDB, SQS, SNS, EventBridge, an SDK integration and a child execution', async () => {
  const described = await run(stateMachineApp.integrations, 'integrated', { id: 'p-1' });
  expect([described.status, described.error, described.cause]).toEqual(['SUCCEEDED', undefined, undefined]);
  const output = JSON.parse(described.output ?? '');
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: stateMachineApp.queue }));
  expect(output).toEqual({
    id: 'p-1',
    read: { name: 'fern' },
    queued: { messageId: expect.any(String) },
    published: { published: expect.any(String) },
    announced: { failed: 0 },
    found: { url: QueueUrl },
    child: { output: { refunded: 'o-9', why: 'Declined' } },
  });
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
  expect(Messages.map(({ MessageId, Body }) => [MessageId, JSON.parse(Body ?? '')])).toEqual([
    [output.queued.messageId, { id: 'p-1', name: 'fern' }],
  ]);
});

// "Amazon EventBridge targets" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-targets.html): a rule
// whose target is a state machine starts an execution, its input the event.
test('the event a task puts on the bus starts the state machine its rule targets', async () => {
  const started = runner.log.seen(new RegExp(`^Step Functions ${stateMachineApp.onStored}: execution`));
  await run(stateMachineApp.integrations, 'announced', { id: 'p-2' });
  await started;
  const { executions = [] } = await sfn.send(
    new ListExecutionsCommand({ stateMachineArn: stateMachineArn(stateMachineApp.onStored) }),
  );
  const [{ executionArn } = {}] = executions;
  const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  expect(JSON.parse(execution.input ?? '')).toMatchObject({
    source: 'plant.workflow',
    'detail-type': 'Plant Stored',
    detail: { name: 'fern' },
  });
});
