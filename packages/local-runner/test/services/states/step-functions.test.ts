// The Step Functions API on the local services alone (no functions), through the SDK's client, as the AWS Step
// Functions API Reference describes each operation and error (https://docs.aws.amazon.com/step-functions/latest/apireference/):
// StopExecution of a running execution (ABORTED, ExecutionAborted), StartSyncExecution refused for a standard machine
// (StateMachineTypeNotSupported), StartExecution's ExecutionAlreadyExists, SendTaskSuccess of an unknown token
// (TaskDoesNotExist); a `.waitForTaskToken` task on SQS's optimized integration completed by SendTaskFailure and
// caught ("Wait for a Callback with Task Token",
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token); a Map over
// its items with ToleratedFailureCount ("Map workflow state"); and a resource the runner does not serve, refused at
// start naming the state and the resource.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../../src/app/local-aws.ts';
import { stateMachineArn } from '../../../src/app/return-values.ts';
import type { ServiceSeeds } from '../../../src/app/service-resources.ts';
import type { StateMachineSeed } from '../../../src/app/state-machine-resources.ts';
import { startLocalServices } from '../../../src/services/local-services.ts';

const machine = (
  name: string,
  definition: Record<string, unknown>,
  type: 'STANDARD' | 'EXPRESS' = 'STANDARD',
): StateMachineSeed => ({
  source: `App/${name}`,
  name,
  arn: stateMachineArn(name),
  type,
  definition,
});

const queueUrlMark = 'http://local-sqs.invalid/000000000000/approvals';
const unansweredUrlMark = 'http://local-sqs.invalid/000000000000/unanswered';

const seeds = (machines: StateMachineSeed[]): ServiceSeeds => ({
  parameters: [],
  secrets: [],
  queues: [
    { source: 'App/Approvals', name: 'approvals', attributes: {} },
    { source: 'App/Unanswered', name: 'unanswered', attributes: {} },
  ],
  stateMachines: machines,
  notices: [],
});

/** A Map's items: a negative number fails (`Negative`), any other passes. */
const failingBelowZero = {
  StartAt: 'Check',
  States: {
    Check: { Type: 'Choice', Choices: [{ Variable: '$', NumericLessThan: 0, Next: 'Negative' }], Default: 'Fine' },
    Negative: { Type: 'Fail', Error: 'Negative', Cause: 'below zero' },
    Fine: { Type: 'Pass', End: true },
  },
};

const served = [
  machine('Waiting', { StartAt: 'Hour', States: { Hour: { Type: 'Wait', Seconds: 3600, End: true } } }),
  machine('Approval', {
    StartAt: 'Ask',
    States: {
      Ask: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
        Parameters: { QueueUrl: queueUrlMark, MessageBody: { 'token.$': '$$.Task.Token', 'order.$': '$.order' } },
        Catch: [{ ErrorEquals: ['Rejected'], ResultPath: '$.rejected', Next: 'Refused' }],
        End: true,
      },
      Refused: { Type: 'Pass', End: true },
    },
  }),
  machine('Missing', {
    StartAt: 'Find',
    States: {
      Find: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:sqs:getQueueUrl',
        Parameters: { QueueName: 'nowhere' },
        Catch: [{ ErrorEquals: ['Sqs.QueueDoesNotExistException'], Next: 'Absent' }],
        End: true,
      },
      Absent: { Type: 'Pass', End: true },
    },
  }),
  machine('Heartbeat', {
    StartAt: 'Ask',
    States: {
      Ask: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
        Parameters: { QueueUrl: unansweredUrlMark, MessageBody: { 'token.$': '$$.Task.Token' } },
        HeartbeatSeconds: 1,
        Catch: [{ ErrorEquals: ['States.HeartbeatTimeout'], Next: 'Silent' }],
        End: true,
      },
      Silent: { Type: 'Pass', End: true },
    },
  }),
  machine('SlowTask', {
    StartAt: 'Ask',
    States: {
      Ask: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
        Parameters: { QueueUrl: unansweredUrlMark, MessageBody: { 'token.$': '$$.Task.Token' } },
        TimeoutSeconds: 1,
        End: true,
      },
    },
  }),
  machine('SlowExecution', {
    TimeoutSeconds: 1,
    StartAt: 'Hour',
    States: { Hour: { Type: 'Wait', Seconds: 3600, End: true } },
  }),
  machine('Tolerant', {
    StartAt: 'Each',
    States: {
      Each: {
        Type: 'Map',
        ItemsPath: '$.items',
        ToleratedFailureCountPath: '$.tolerate',
        MaxConcurrencyPath: '$.concurrency',
        ItemProcessor: failingBelowZero,
        End: true,
      },
    },
  }),
  machine('Items', {
    StartAt: 'Each',
    States: {
      Each: {
        Type: 'Map',
        ToleratedFailureCount: 1,
        MaxConcurrency: 1,
        ItemProcessor: failingBelowZero,
        End: true,
      },
    },
  }),
];

let dataDir = '';
let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let sfn: SFNClient;
let sqs: SQSClient;
const log: string[] = [];
/** Who waits for the next log line. */
const waiters = new Set<() => void>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'step-functions-'));
  services = await startLocalServices({
    dataDir,
    seeds: seeds(served),
    log: (line) => {
      log.push(line);
      for (const wake of waiters) wake();
    },
  });
  const client = { region: localAws.region, credentials: localAws.credentials };
  sfn = new SFNClient({ ...client, endpoint: services.urls.states, disableHostPrefix: true });
  sqs = new SQSClient({ ...client, endpoint: services.urls.sqs });
});
afterAll(async () => {
  sfn?.destroy();
  sqs?.destroy();
  await services?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** DescribeExecution of `executionArn`, once the log says it ended. */
const endOf = async (executionArn: string | undefined) => {
  const name = String(executionArn).split(':').at(-1);
  await new Promise<void>((resolve) => {
    const look = () => {
      if (!log.some((line) => line.includes(` ${name}: execution `) && !line.includes('execution started'))) return;
      waiters.delete(look);
      resolve();
    };
    waiters.add(look);
    look();
  });
  return sfn.send(new DescribeExecutionCommand({ executionArn }));
};

test('StopExecution aborts a running execution with the error and cause given', async () => {
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('Waiting') }));
  await sfn.send(new StopExecutionCommand({ executionArn, error: 'Manual', cause: 'stopped by the test' }));
  const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  expect([described.status, described.error, described.cause]).toEqual(['ABORTED', 'Manual', 'stopped by the test']);
  const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true }));
  expect(events[0]).toMatchObject({
    type: 'ExecutionAborted',
    executionAbortedEventDetails: { error: 'Manual', cause: 'stopped by the test' },
  });
});

test('the API’s errors: a standard machine run synchronously, a name taken with another input, an unknown token', async () => {
  await expect(
    sfn.send(new StartSyncExecutionCommand({ stateMachineArn: stateMachineArn('Waiting') })),
  ).rejects.toMatchObject({ name: 'StateMachineTypeNotSupported' });
  const start = (input: string) =>
    sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('Waiting'), name: 'once', input }));
  const { executionArn } = await start('{"a":1}');
  await expect(start('{"a":2}')).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  await sfn.send(new StopExecutionCommand({ executionArn }));
  await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: 'nobody', output: '{}' }))).rejects.toMatchObject({
    name: 'TaskDoesNotExist',
  });
  await expect(
    sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('NotInTheTemplate') })),
  ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
});

test('a callback task sends its token in an SQS message; SendTaskFailure fails it, and its Catch takes the error', async () => {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: stateMachineArn('Approval'), input: '{"order":"o-1"}' }),
  );
  const queueUrl = services?.queues().find(({ name }) => name === 'approvals')?.url;
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 5 }));
  const body = JSON.parse(Messages[0]?.Body ?? '{}') as { token: string; order: string };
  expect(body.order).toBe('o-1');
  await sfn.send(new SendTaskFailureCommand({ taskToken: body.token, error: 'Rejected', cause: 'out of stock' }));
  const described = await endOf(executionArn);
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toEqual({
    order: 'o-1',
    rejected: { Error: 'Rejected', Cause: 'out of stock' },
  });
});

// "Learning to use AWS service SDK integrations in Step Functions"
// (https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html): an SDK integration's error is
// `<Service>.<Error>` in Pascal case, `Exception` added where the service's name lacks it.
test('an AWS SDK integration’s error is named <Service>.<Error>Exception, as Catch names it', async () => {
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('Missing') }));
  const described = await endOf(executionArn);
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toMatchObject({ Error: 'Sqs.QueueDoesNotExistException' });
});

test('a Map tolerates ToleratedFailureCount failed items, each one’s result its error output', async () => {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: stateMachineArn('Items'), input: '[1, -2, 3]' }),
  );
  const described = await endOf(executionArn);
  expect(described.status).toBe('SUCCEEDED');
  expect(JSON.parse(described.output ?? '')).toEqual([1, { Error: 'Negative', Cause: 'below zero' }, 3]);
  const again = await endOf(
    (await sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('Items'), input: '[-1, -2]' })))
      .executionArn,
  );
  expect(again.error).toBe('States.ExceedToleratedFailureThreshold');
});

test('a Map’s ToleratedFailureCountPath and MaxConcurrencyPath are read from its input', async () => {
  // "Map workflow state" (https://docs.aws.amazon.com/step-functions/latest/dg/state-map.html) lists both paths.
  const ran = async (tolerate: number) =>
    endOf(
      (
        await sfn.send(
          new StartExecutionCommand({
            stateMachineArn: stateMachineArn('Tolerant'),
            input: JSON.stringify({ items: [1, -2, 3], tolerate, concurrency: 1 }),
          }),
        )
      ).executionArn,
    );
  expect(JSON.parse((await ran(1)).output ?? '')).toEqual([1, { Error: 'Negative', Cause: 'below zero' }, 3]);
  expect((await ran(0)).error).toBe('Negative');
});

test('a Task whose resource the runner does not serve refuses the start, naming the state and the resource', async () => {
  const refused = machine('Batch', {
    StartAt: 'Submit',
    States: { Submit: { Type: 'Task', Resource: 'arn:aws:states:::batch:submitJob.sync', End: true } },
  });
  await expect(
    startLocalServices({ dataDir: undefined, seeds: seeds([refused]), log: () => undefined }),
  ).rejects.toThrow(
    "App/Batch: its state Submit's Resource arn:aws:states:::batch:submitJob.sync: the optimized integration batch:submitJob is not served locally",
  );
});

test('a Map the runner does not reproduce as written refuses the start, naming the state and the field', async () => {
  // "ItemReader (Map)", https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itemreader.html: PARQUET
  // is one of AWS's input types; ItemReader belongs to a Distributed Map.
  const distributed = {
    ProcessorConfig: { Mode: 'DISTRIBUTED' },
    StartAt: 'P',
    States: { P: { Type: 'Pass', End: true } },
  };
  const reader = (InputType: string) => ({
    Resource: 'arn:aws:states:::s3:getObject',
    ReaderConfig: { InputType },
    Parameters: { Bucket: 'b', Key: 'k' },
  });
  const refusal = (processor: Record<string, unknown>, InputType: string) =>
    startLocalServices({
      dataDir: undefined,
      seeds: seeds([
        machine('Rows', {
          StartAt: 'Each',
          States: { Each: { Type: 'Map', ItemReader: reader(InputType), ItemProcessor: processor, End: true } },
        }),
      ]),
      log: () => undefined,
    });
  await expect(refusal(distributed, 'PARQUET')).rejects.toThrow(
    'App/Rows: its Map state Each: ItemReader.ReaderConfig.InputType PARQUET is not reproduced (JSON, JSONL and CSV are)',
  );
  await expect(refusal({ ...distributed, ProcessorConfig: { Mode: 'INLINE' } }, 'CSV')).rejects.toThrow(
    'App/Rows: its Map state Each: ItemReader is for a Distributed Map (ItemProcessor.ProcessorConfig.Mode DISTRIBUTED)',
  );
});

test('an ended execution is kept in the data folder: described, with its history, after a restart', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'step-functions-kept-'));
  const quick = machine('Quick', { StartAt: 'Hello', States: { Hello: { Type: 'Pass', Result: 'hi', End: true } } });
  const { promise: ended, resolve: succeeded } = Promise.withResolvers<void>();
  try {
    const first = await startLocalServices({
      dataDir: folder,
      seeds: seeds([quick]),
      log: (line) => {
        if (line.includes(' kept: execution succeeded')) succeeded();
      },
    });
    const client = new SFNClient({
      region: localAws.region,
      credentials: localAws.credentials,
      endpoint: first.urls.states,
    });
    const { executionArn } = await client.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn('Quick'), name: 'kept' }),
    );
    await ended;
    client.destroy();
    await first.close();
    const second = await startLocalServices({ dataDir: folder, seeds: seeds([quick]), log: () => undefined });
    const again = new SFNClient({
      region: localAws.region,
      credentials: localAws.credentials,
      endpoint: second.urls.states,
    });
    try {
      const described = await again.send(new DescribeExecutionCommand({ executionArn }));
      expect([described.status, described.output]).toEqual(['SUCCEEDED', '"hi"']);
      const { events = [] } = await again.send(new GetExecutionHistoryCommand({ executionArn }));
      expect(events.map(({ type }) => type)).toEqual([
        'ExecutionStarted',
        'PassStateEntered',
        'PassStateExited',
        'ExecutionSucceeded',
      ]);
    } finally {
      again.destroy();
      await second.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

// "Task workflow state" (https://docs.aws.amazon.com/step-functions/latest/dg/state-task.html): HeartbeatSeconds
// (States.HeartbeatTimeout) and TimeoutSeconds (States.Timeout); a machine's TimeoutSeconds ends it TIMED_OUT
// ("State machine structure in Amazon States Language"). Each waits one second, the shortest these take.
test('HeartbeatSeconds, a task’s TimeoutSeconds and the machine’s: each ends what it times, its token no longer taken', async () => {
  const start = async (name: string) =>
    (await sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn(name) }))).executionArn;
  const [heartbeat, slowTask, slowExecution] = await Promise.all(
    ['Heartbeat', 'SlowTask', 'SlowExecution'].map(async (name) => endOf(await start(name))),
  );
  expect(JSON.parse(heartbeat?.output ?? '')).toMatchObject({ Error: 'States.HeartbeatTimeout' });
  expect([slowTask?.status, slowTask?.error]).toEqual(['FAILED', 'States.Timeout']);
  expect([slowExecution?.status, slowExecution?.error]).toEqual(['TIMED_OUT', 'States.Timeout']);
  const queueUrl = services?.queues().find(({ name }) => name === 'unanswered')?.url;
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
  );
  expect(Messages).toHaveLength(2);
  for (const { Body } of Messages)
    await expect(
      sfn.send(new SendTaskSuccessCommand({ taskToken: JSON.parse(Body ?? '{}').token, output: '{}' })),
    ).rejects.toMatchObject({ name: 'TaskDoesNotExist' });
});
