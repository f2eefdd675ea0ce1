// Functions fed by SQS queues through event source mappings, served by the runner as Lambda runs them ("Using Lambda
// with Amazon SQS", https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html): a TypeScript function and a Python
// function of our fixture app (fixtures/queue-mappings-app.ts), messages sent with the AWS SDK v3 to the local SQS.
// Each test waits for facts (the functions' printed events, the runner's log lines), never for time.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { signalGroup } from 'test-support/process-group';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { queueArn } from '../../src/services/sqs.ts';
import { mappedQueues, synthesizeQueueMappingsApp } from '../fixtures/queue-mappings-app.ts';
import { launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

interface SqsRecord {
  messageId: string;
  body: string;
  attributes: Record<string, string>;
  eventSourceARN: string;
}

/** The functions' names as Lambda knows them (the fixture gives no FunctionName): what the log and the banner say. */
const consumer = generatedFunctionName('QueueMappings', 'Consumer');
const poisoned = generatedFunctionName('QueueMappings', 'Poisoned');

let dataDir: string | undefined;
let assembly = '';
let runner: Runner | undefined;
let sqs: SQSClient;
const lines: string[] = [];
const said = new EventEmitter();
const say = (line: string) => {
  lines.push(line);
  said.emit('line');
};

/** Resolves with what `found` finds in the lines said so far, once it finds something. */
const until = <T>(found: () => T | undefined) =>
  new Promise<T>((resolve) => {
    const look = () => {
      const value = found();
      if (value === undefined) return;
      said.off('line', look);
      resolve(value);
    };
    said.on('line', look);
    look();
  });

/** The first line said that includes `text`. */
const line = (text: string) => until(() => lines.find((l) => l.includes(text)));

/** The events the functions printed (`BATCH <event>`) for the queue `name`, in the order they began. */
const batchesOf = (name: string) =>
  lines
    .filter((l) => l.includes('BATCH '))
    .map((l) => JSON.parse(l.slice(l.indexOf('BATCH ') + 6)) as { Records: SqsRecord[] })
    .map(({ Records }) => Records)
    .filter((records) => records[0]?.eventSourceARN === queueArn(name));

/** Resolves with the batches of `name` once there are `count`. */
const batches = (name: string, count: number) =>
  until(() => {
    const all = batchesOf(name);
    return all.length >= count ? all : undefined;
  });

const urlOf = (name: string) => runner?.queues().find((queue) => queue.name === name)?.url as string;
const send = (name: string, bodies: string[]) =>
  sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: urlOf(name),
      Entries: bodies.map((MessageBody, index) => ({
        Id: String(index),
        MessageBody,
        ...(name.endsWith('.fifo') && { MessageGroupId: (JSON.parse(MessageBody) as { group: string }).group }),
      })),
    }),
  );
const counts = async (name: string) => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: urlOf(name), AttributeNames: ['All'] }),
  );
  return {
    visible: Attributes.ApproximateNumberOfMessages,
    inFlight: Attributes.ApproximateNumberOfMessagesNotVisible,
  };
};
const bodiesOf = (records: SqsRecord[]) => records.map(({ body }) => body);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'queue-mappings-e2e-'));
  assembly = await synthesizeQueueMappingsApp();
  runner = await startRunner({
    cloudAssemblyDir: assembly,
    port: 0,
    dataDir,
    // One execution environment per function: a batch waiting for another's cold start would outlive a 2 s visibility
    // timeout on a busy machine, and come back.
    maxWorkers: 1,
    log: say,
    functionLog: (id, text) => say(`${id}: ${text}`),
  });
  sqs = new SQSClient({
    endpoint: runner.serviceUrls.sqs,
    region: localAws.region,
    credentials: localAws.credentials,
  });
}, 120_000);
afterAll(async () => {
  await stopStarted();
  sqs?.destroy();
  await runner?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

// "Example standard queue message event" (with-sqs.html): the record's fields, message attributes in camelCase.
test('a message sent is delivered to the function at once, in the documented record shape', async () => {
  const body = '{"action":"ok","n":1}';
  const { MessageId } = await sqs.send(
    new SendMessageCommand({
      QueueUrl: urlOf(mappedQueues.partial),
      MessageBody: body,
      MessageAttributes: { color: { DataType: 'String', StringValue: 'red' } },
    }),
  );
  const [records = []] = await batches(mappedQueues.partial, 1);
  expect(records).toEqual([
    {
      messageId: MessageId,
      receiptHandle: expect.any(String),
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {
        color: { stringValue: 'red', stringListValues: [], binaryListValues: [], dataType: 'String' },
      },
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn(mappedQueues.partial),
      awsRegion: localAws.region,
    },
  ]);
  await line(`SQS ${mappedQueues.partial} -> ${consumer}: batch of 1: ok`);
  expect(await counts(mappedQueues.partial)).toEqual({ visible: '0', inFlight: '0' });
});

// "Handling errors for an SQS event source in Lambda", "Implementing partial batch responses"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html): with ReportBatchItemFailures, only
// the messages named in batchItemFailures become visible again; the others are deleted.
test('a partial batch failure: only the failed message comes back, after the visibility timeout', async () => {
  const bodies = ['{"action":"ok","n":2}', '{"action":"fail-once","n":3}', '{"action":"ok","n":4}'];
  const before = batchesOf(mappedQueues.partial).length;
  await send(mappedQueues.partial, bodies);
  const all = await batches(mappedQueues.partial, before + 2);
  expect(all.slice(before).map(bodiesOf)).toEqual([bodies, ['{"action":"fail-once","n":3}']]);
  expect(all[before + 1]?.[0]?.attributes.ApproximateReceiveCount).toBe('2');
  await line(`SQS ${mappedQueues.partial} -> ${consumer}: batch of 3: 1 failed`);
  await until(() => lines.filter((l) => l.includes(`${mappedQueues.partial} -> ${consumer}: batch of 1: ok`))[1]);
  expect(await counts(mappedQueues.partial)).toEqual({ visible: '0', inFlight: '0' });
});

// "Using dead-letter queues in Amazon SQS" and "Handling errors for an SQS event source in Lambda": a function error
// returns the batch after the visibility timeout; past the queue's maxReceiveCount, SQS moves it to the dead-letter
// queue (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html).
test('a Python function failing a message: it goes to the dead-letter queue after maxReceiveCount receives', async () => {
  const { MessageId } = await sqs.send(
    new SendMessageCommand({ QueueUrl: urlOf(mappedQueues.poison), MessageBody: 'poison' }),
  );
  await line(`went to its dead-letter queue ${mappedQueues.poisonDlq} after 2 receives`);
  const received = (await batches(mappedQueues.poison, 2)).map((records) =>
    records.map(({ messageId, attributes }) => [messageId, attributes.ApproximateReceiveCount]),
  );
  expect(received).toEqual([[[MessageId, '1']], [[MessageId, '2']]]);
  expect(
    lines.filter((l) => l.includes(`SQS ${mappedQueues.poison} -> ${poisoned}: batch of 1: error (ValueError`)),
  ).toHaveLength(2);
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: urlOf(mappedQueues.poisonDlq) }));
  expect(Messages.map(({ MessageId: id, Body }) => ({ id, Body }))).toEqual([{ id: MessageId, Body: 'poison' }]);
});

// "Configuring scaling behavior for SQS event source mappings"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html): a FIFO queue's messages reach the function
// in order within a group; after an error, the group's messages are retried before any later one of that group.
test('FIFO: each group in order across batches, a failed batch retried before the group goes on', async () => {
  const message = (group: string, n: number, action = 'ok') => JSON.stringify({ group, n, action });
  await send(mappedQueues.ordered, [
    message('g1', 1, 'throw-once'),
    message('g1', 2),
    message('g2', 1),
    message('g2', 2),
    message('g1', 3),
    message('g2', 3),
  ]);
  const succeeded = (all: SqsRecord[][]) =>
    all.filter((records) =>
      records.every(
        ({ body, attributes }) => !body.includes('throw-once') || attributes.ApproximateReceiveCount !== '1',
      ),
    );
  const all = await until(() => {
    const done = batchesOf(mappedQueues.ordered);
    return succeeded(done).flat().length >= 6 ? done : undefined;
  });
  expect(all.every((records) => records.length <= 2)).toBe(true);
  const order = (group: string) =>
    succeeded(all)
      .flat()
      .map(({ body }) => JSON.parse(body) as { group: string; n: number })
      .filter((m) => m.group === group)
      .map(({ n }) => n);
  expect({ g1: order('g1'), g2: order('g2') }).toEqual({ g1: [1, 2, 3], g2: [1, 2, 3] });
  // g1's 3rd message is delivered only after the failed batch's retry.
  const firstOf = (n: number, count: string) =>
    all.findIndex((records) =>
      records.some(
        ({ body, attributes }) =>
          body === message('g1', n, n === 1 ? 'throw-once' : 'ok') && attributes.ApproximateReceiveCount === count,
      ),
    );
  expect(firstOf(3, '1')).toBeGreaterThan(firstOf(1, '2'));
  expect(all[0]?.[0]?.attributes).toMatchObject({
    MessageGroupId: 'g1',
    SequenceNumber: expect.stringMatching(/^\d+$/),
    MessageDeduplicationId: expect.any(String),
  });
});

// "Using event filtering with an Amazon SQS event source" (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs-filtering.html)
// and "Control which events Lambda sends to your function" (invocation-eventfiltering.html): the filter is matched
// on the body parsed as JSON; a message no filter matches is deleted, not delivered.
test('FilterCriteria: a message the filter does not match is deleted, never delivered', async () => {
  await send(mappedQueues.filtered, ['{"kind":"keep"}', '{"kind":"drop"}', 'kind keep, as plain text']);
  await line(`SQS ${mappedQueues.filtered} -> ${consumer}: 2 filtered out (deleted)`);
  expect((await batches(mappedQueues.filtered, 1)).map(bodiesOf)).toEqual([['{"kind":"keep"}']]);
  await line(`SQS ${mappedQueues.filtered} -> ${consumer}: batch of 1: ok`);
  expect(await counts(mappedQueues.filtered)).toEqual({ visible: '0', inFlight: '0' });
});

// "Lambda parameters for Amazon SQS event source mappings" (services-sqs-parameters.html) and "Batching behavior"
// (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventsourcemapping.html#invocation-eventsourcemapping-batching):
// a batch is sent when it holds BatchSize messages or when MaximumBatchingWindowInSeconds ends.
test('BatchSize and MaximumBatchingWindowInSeconds: full batches at once, the rest once the window ends', async () => {
  await send(mappedQueues.windowed, ['1', '2', '3', '4', '5', '6', '7']);
  const sizes = (await batches(mappedQueues.windowed, 3)).map((records) => records.length);
  expect(sizes).toEqual([3, 3, 1]);
  // Two messages sent one after the other, within the window: one batch.
  await sqs.send(new SendMessageCommand({ QueueUrl: urlOf(mappedQueues.windowed), MessageBody: '8' }));
  await sqs.send(new SendMessageCommand({ QueueUrl: urlOf(mappedQueues.windowed), MessageBody: '9' }));
  expect((await batches(mappedQueues.windowed, 4))[3]?.map(({ body }) => body)).toEqual(['8', '9']);
});

// "Lambda parameters for Amazon SQS event source mappings": Enabled false, the mapping does not poll.
test('Enabled false: said at start, and the queue is not polled', async () => {
  await line(`Enabled is false: ${queueArn(mappedQueues.disabled)} is not polled`);
  // The banner's queue lines name the functions a queue feeds (cli/serve.ts).
  const feeds = Object.fromEntries(runner?.queues().map(({ name, feeds }) => [name, feeds]) ?? []);
  expect(feeds).toMatchObject({ [mappedQueues.partial]: [consumer], [mappedQueues.disabled]: [] });
  await sqs.send(new SendMessageCommand({ QueueUrl: urlOf(mappedQueues.disabled), MessageBody: 'kept' }));
  // A later message on another queue, delivered: the runner had its chance to poll the first.
  const before = batchesOf(mappedQueues.partial).length;
  await sqs.send(
    new SendMessageCommand({ QueueUrl: urlOf(mappedQueues.partial), MessageBody: '{"after":"disabled"}' }),
  );
  await batches(mappedQueues.partial, before + 1);
  expect(batchesOf(mappedQueues.disabled)).toEqual([]);
  expect(await counts(mappedQueues.disabled)).toEqual({ visible: '1', inFlight: '0' });
});

// "Amazon SQS visibility timeout" (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html):
// a message received and not deleted becomes visible again when its timeout ends. The batch a runner killed by SIGKILL
// held is in the data folder, in flight: the next start delivers it once its visibility timeout ends.
test('a batch in flight when the runner is killed (SIGKILL) is delivered again after its visibility timeout', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'queue-mappings-kill-'));
  try {
    const start = async () => {
      const started = launch(join(folder, 'data'), { args: ['--app', assembly], cwd: folder });
      const output = await launchedUntil(started, /functions and services are serving/);
      const endpoint = /SQS: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      return { started, endpoint };
    };
    const first = await start();
    const client = new SQSClient({
      endpoint: first.endpoint,
      region: localAws.region,
      credentials: localAws.credentials,
    });
    const { MessageId } = await client.send(
      new SendMessageCommand({
        QueueUrl: `${first.endpoint}/${localAws.accountId}/${mappedQueues.durable}`,
        MessageBody: '{"action":"hang-once"}',
      }),
    );
    client.destroy();
    await first.started.printed(/BATCH [^\n]*hang-once/);
    signalGroup(first.started.child, 'SIGKILL');
    await first.started.exited;
    const second = await start();
    await second.started.printed(/BATCH [^\n]*hang-once/);
    await second.started.printed(new RegExp(`SQS ${mappedQueues.durable} -> ${consumer}: batch of 1: ok`));
    const [delivered] = second.started
      .output()
      .split('\n')
      .filter((l) => l.includes('BATCH '))
      .map((l) => JSON.parse(l.slice(l.indexOf('BATCH ') + 6)) as { Records: SqsRecord[] });
    expect(
      delivered?.Records.map(({ messageId, attributes }) => [messageId, attributes.ApproximateReceiveCount]),
    ).toEqual([[MessageId, '2']]);
  } finally {
    await stopStarted();
    rmSync(folder, { recursive: true, force: true });
  }
}, 60_000);
