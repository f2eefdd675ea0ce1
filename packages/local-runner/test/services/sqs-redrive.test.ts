// Redrive back out of a dead-letter queue: the message move tasks of "Learn how to configure a dead-letter queue
// redrive" (Amazon SQS Developer Guide,
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue-redrive.html)
// and the API reference's StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_StartMessageMoveTask.html), driven by the
// SDK v3 client; and a dead-letter queue's RedriveAllowPolicy ("Using dead-letter queues in Amazon SQS",
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CancelMessageMoveTaskCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { queueArn } from '../../src/services/sqs.ts';

const redriveTo = (deadLetter: string) =>
  JSON.stringify({ deadLetterTargetArn: queueArn(deadLetter), maxReceiveCount: 1 });
const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    { source: 'App/Work', name: 'work', attributes: { RedrivePolicy: redriveTo('work-dead') } },
    { source: 'App/WorkDead', name: 'work-dead', attributes: {} },
    { source: 'App/Other', name: 'other', attributes: {} },
    { source: 'App/Slow', name: 'slow', attributes: { RedrivePolicy: redriveTo('slow-dead') } },
    { source: 'App/SlowDead', name: 'slow-dead', attributes: {} },
    { source: 'App/Denied', name: 'denied', attributes: { RedrivePolicy: redriveTo('closed-dead') } },
    {
      source: 'App/ClosedDead',
      name: 'closed-dead',
      attributes: { RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'denyAll' }) },
    },
  ],
};

let services: Awaited<ReturnType<typeof startLocalServices>>;
let sqs: SQSClient;
const log: string[] = [];

beforeAll(async () => {
  services = await startLocalServices({ dataDir: undefined, seeds, log: (line) => log.push(line) });
  sqs = new SQSClient({ endpoint: services.urls.sqs, region: localAws.region, credentials: localAws.credentials });
});
afterAll(async () => {
  sqs.destroy();
  await services.close();
});

const urlOf = async (QueueName: string) => (await sqs.send(new GetQueueUrlCommand({ QueueName }))).QueueUrl as string;
const receive = async (QueueName: string, more: Partial<ConstructorParameters<typeof ReceiveMessageCommand>[0]> = {}) =>
  (
    await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: await urlOf(QueueName),
        MessageSystemAttributeNames: ['All'],
        MaxNumberOfMessages: 10,
        ...more,
      }),
    )
  ).Messages ?? [];

/** Sends `bodies` to `queue` and receives each once without deleting it: past maxReceiveCount 1, the next receive moves them. */
const intoDeadLetterQueue = async (queue: string, bodies: string[]) => {
  const QueueUrl = await urlOf(queue);
  for (const MessageBody of bodies) await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody }));
  expect(await receive(queue, { VisibilityTimeout: 0 })).toHaveLength(bodies.length);
  expect(await receive(queue)).toEqual([]);
};

/** Receives from `queue` until `count` messages came (a long poll each time: a moved message wakes it). */
const receiveAll = async (queue: string, count: number) => {
  const messages: Message[] = [];
  while (messages.length < count) messages.push(...(await receive(queue, { WaitTimeSeconds: 20 })));
  return messages;
};

test('a move task sends the messages of a dead-letter queue back to the queue each came from, as new messages', async () => {
  await intoDeadLetterQueue('work', ['first', 'second']);
  // A message moved to a dead-letter queue names its source (DeadLetterQueueSourceArn, ReceiveMessage's
  // MessageSystemAttributeNames); made visible again so that the task finds it.
  const dead = await receive('work-dead', { VisibilityTimeout: 0 });
  expect(dead.map((m) => m.Attributes?.DeadLetterQueueSourceArn)).toEqual([queueArn('work'), queueArn('work')]);

  const { TaskHandle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: queueArn('work-dead') }));
  expect(TaskHandle).toEqual(expect.any(String));
  // "The redrive task resets the retention period. A new messageID and enqueueTime are assigned to redriven messages."
  const back = await receiveAll('work', 2);
  expect(back.map((m) => m.Body).sort()).toEqual(['first', 'second']);
  expect(back.map((m) => m.MessageId)).not.toContain(dead[0]?.MessageId);
  expect(back.map((m) => m.Attributes?.ApproximateReceiveCount)).toEqual(['1', '1']);
  expect(await receive('work-dead')).toEqual([]);

  const { Results = [] } = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: queueArn('work-dead') }));
  expect(Results).toEqual([
    expect.objectContaining({
      Status: 'COMPLETED',
      SourceArn: queueArn('work-dead'),
      ApproximateNumberOfMessagesMoved: 2,
      ApproximateNumberOfMessagesToMove: 2,
    }),
  ]);
  expect(Results[0]?.TaskHandle).toBeUndefined();
  const QueueUrl = await urlOf('work');
  for (const { ReceiptHandle } of back) await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle }));
});

test('MaxNumberOfMessagesPerSecond paces the moves to a DestinationArn; a second task on the queue is refused', async () => {
  await intoDeadLetterQueue('slow', ['a', 'b']);
  const { TaskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({
      SourceArn: queueArn('slow-dead'),
      DestinationArn: queueArn('other'),
      MaxNumberOfMessagesPerSecond: 1,
    }),
  );
  // "Only one active message movement task is supported per queue at any given time."
  await expect(sqs.send(new StartMessageMoveTaskCommand({ SourceArn: queueArn('slow-dead') }))).rejects.toMatchObject({
    name: 'UnsupportedOperation',
  });
  const moved = await receiveAll('other', 2);
  expect(moved.map((m) => m.Body).sort()).toEqual(['a', 'b']);
  // One a second: the second was sent (its new enqueue time) a second after the first, at least.
  const [first, second] = moved.map((m) => Number(m.Attributes?.SentTimestamp)).sort();
  expect((second as number) - (first as number)).toBeGreaterThanOrEqual(900);
  // Done, it can no longer be cancelled ("A message movement can only be cancelled when the current status is RUNNING").
  await expect(sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle }))).rejects.toMatchObject({
    name: 'UnsupportedOperation',
  });
  const QueueUrl = await urlOf('other');
  for (const { ReceiptHandle } of moved) await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle }));
}, 30_000);

test('a cancelled task stops: what it moved stays moved, the rest stays in the dead-letter queue', async () => {
  await intoDeadLetterQueue('slow', ['x', 'y', 'z']);
  const { TaskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({ SourceArn: queueArn('slow-dead'), MaxNumberOfMessagesPerSecond: 1 }),
  );
  const { ApproximateNumberOfMessagesMoved = -1 } = await sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle }));
  expect(ApproximateNumberOfMessagesMoved).toBeGreaterThanOrEqual(1);
  const { Results = [] } = await sqs.send(
    new ListMessageMoveTasksCommand({ SourceArn: queueArn('slow-dead'), MaxResults: 10 }),
  );
  expect(Results.map((r) => r.Status)).toEqual(['CANCELLED', 'COMPLETED']);
  const back = await receive('slow');
  const left = await receive('slow-dead');
  expect(back).toHaveLength(ApproximateNumberOfMessagesMoved);
  expect([...back, ...left].map((m) => m.Body).sort()).toEqual(['x', 'y', 'z']);
});

test('a move task is refused a queue that is no dead-letter queue, and an unknown queue', async () => {
  await expect(sqs.send(new StartMessageMoveTaskCommand({ SourceArn: queueArn('other') }))).rejects.toMatchObject({
    name: 'InvalidParameterValue',
  });
  await expect(sqs.send(new StartMessageMoveTaskCommand({ SourceArn: queueArn('nowhere') }))).rejects.toMatchObject({
    name: 'ResourceNotFoundException',
  });
  await expect(
    sqs.send(
      new StartMessageMoveTaskCommand({ SourceArn: queueArn('work-dead'), DestinationArn: queueArn('nowhere') }),
    ),
  ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
});

test('a dead-letter queue whose RedriveAllowPolicy denies the source takes none of its messages, said', async () => {
  const QueueUrl = await urlOf('denied');
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept' }));
  await receive('denied', { VisibilityTimeout: 0 });
  expect((await receive('denied')).map((m) => m.Body)).toEqual(['kept']);
  expect(await receive('closed-dead')).toEqual([]);
  expect(log).toContainEqual(expect.stringMatching(/denied names closed-dead .* RedriveAllowPolicy does not allow it/));
});

test('a task running when the services stop goes on at their next start on the same data folder', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqs-redrive-'));
  const start = () => startLocalServices({ dataDir, seeds, log: () => undefined });
  let restarted: Awaited<ReturnType<typeof startLocalServices>> | undefined;
  const first = await start();
  const client = (url: string) =>
    new SQSClient({ endpoint: url, region: localAws.region, credentials: localAws.credentials });
  const before = client(first.urls.sqs);
  try {
    const QueueUrl = `${first.urls.sqs}/${localAws.accountId}/slow-dead`;
    for (const MessageBody of ['p', 'q', 'r']) await before.send(new SendMessageCommand({ QueueUrl, MessageBody }));
    await before.send(
      new StartMessageMoveTaskCommand({
        SourceArn: queueArn('slow-dead'),
        DestinationArn: queueArn('other'),
        MaxNumberOfMessagesPerSecond: 1,
      }),
    );
    before.destroy();
    await first.close();
    restarted = await start();
    const after = client(restarted.urls.sqs);
    try {
      const messages: Message[] = [];
      const url = `${restarted.urls.sqs}/${localAws.accountId}/other`;
      while (messages.length < 3)
        messages.push(
          ...((
            await after.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 20 }))
          ).Messages ?? []),
        );
      expect(messages.map((m) => m.Body).sort()).toEqual(['p', 'q', 'r']);
      const { Results = [] } = await after.send(new ListMessageMoveTasksCommand({ SourceArn: queueArn('slow-dead') }));
      expect(Results.map((r) => [r.Status, r.ApproximateNumberOfMessagesMoved])).toEqual([['COMPLETED', 3]]);
    } finally {
      after.destroy();
    }
  } finally {
    await restarted?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 30_000);
