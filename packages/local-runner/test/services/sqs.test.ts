// The local SQS, driven by the AWS SDK v3 client unchanged over its JSON protocol ("Making query API requests using
// AWS JSON protocol in Amazon SQS", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-making-api-requests-json.html),
// on a data folder: the template's queues served by name, messages kept across a restart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { RunnerError } from '../../src/errors.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { queueArn } from '../../src/services/sqs.ts';
import { TargetError, Targets } from '../../src/services/targets.ts';

const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    { source: 'App/Orders', name: 'orders', attributes: {} },
    { source: 'App/Dead', name: 'orders-dead', attributes: {} },
    {
      source: 'App/Work',
      name: 'work',
      attributes: {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: queueArn('orders-dead'), maxReceiveCount: 2 }),
      },
    },
  ],
};

let dataDir: string;
let targets: Targets;
let services: Awaited<ReturnType<typeof startLocalServices>>;
let sqs: SQSClient;
const log: string[] = [];

const start = async () => {
  targets = new Targets();
  services = await startLocalServices({ dataDir, seeds, log: (line) => log.push(line), targets });
  sqs = new SQSClient({ endpoint: services.urls.sqs, region: localAws.region, credentials: localAws.credentials });
};
const stop = async () => {
  sqs.destroy();
  await services.close();
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'local-sqs-'));
  await start();
});
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const urlOf = async (QueueName: string) => (await sqs.send(new GetQueueUrlCommand({ QueueName }))).QueueUrl as string;
const receive = (QueueUrl: string, more: Partial<ConstructorParameters<typeof ReceiveMessageCommand>[0]> = {}) =>
  sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ['All'], ...more }));

test("the template's queues are served by name; a message sent is received with its attributes, then deleted", async () => {
  const QueueUrl = await urlOf('orders');
  expect(QueueUrl).toBe(`${services.urls.sqs}/${localAws.accountId}/orders`);
  // The SDK checks MD5OfMessageBody and MD5OfMessageAttributes ("Calculating the MD5 message digest for message
  // attributes", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-message-metadata.html).
  await sqs.send(
    new SendMessageCommand({
      QueueUrl,
      MessageBody: '{"order":1}',
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'new' } },
    }),
  );
  const { Messages = [] } = await receive(QueueUrl, { MessageAttributeNames: ['All'], VisibilityTimeout: 30 });
  expect(Messages).toHaveLength(1);
  expect(Messages[0]?.Body).toBe('{"order":1}');
  expect(Messages[0]?.MessageAttributes?.kind?.StringValue).toBe('new');
  expect(Messages[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
  // "Amazon SQS visibility timeout": a message received is hidden from other receives until its timeout ends.
  expect((await receive(QueueUrl)).Messages ?? []).toEqual([]);
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0]?.ReceiptHandle }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
  expect(Attributes).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
});

// The poll waits up to 20 s; this test's own limit is below that, so that a poll the message does not wake fails it.
// What another local service sends to a queue's ARN (an SNS subscription, a rule's target) arrives as SendMessage's
// message would, with its attributes; an ARN no queue has is refused, not dropped.
test('a queue takes what another service sends to its ARN', async () => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'orders' }));
  await targets.deliver(queueArn('orders'), {
    body: '{"from":"a topic"}',
    attributes: { kind: { DataType: 'String', StringValue: 'order' } },
    source: 'sns:Orders',
  });
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }),
  );
  expect(Messages.map(({ Body, MessageAttributes }) => ({ Body, MessageAttributes }))).toEqual([
    { Body: '{"from":"a topic"}', MessageAttributes: { kind: { DataType: 'String', StringValue: 'order' } } },
  ]);
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0]?.ReceiptHandle }));
  await expect(targets.deliver(queueArn('nowhere'), { body: 'x', source: 'test' })).rejects.toThrow(TargetError);
  await expect(
    targets.deliver(`arn:aws:kinesis:${localAws.region}:${localAws.accountId}:stream/Orders`, {
      body: 'x',
      source: 'test',
    }),
  ).rejects.toThrow(/kinesis is not served locally/);
});

test('a long poll is answered when a message arrives', async () => {
  // "Amazon SQS short and long polling"
  // (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-short-and-long-polling.html): a
  // long poll returns a message as soon as one is available.
  const QueueUrl = await urlOf('orders');
  const polled = receive(QueueUrl, { WaitTimeSeconds: 20 });
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'late' }));
  const { Messages = [] } = await polled;
  expect(Messages.map((m) => m.Body)).toEqual(['late']);
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0]?.ReceiptHandle }));
}, 15_000);

test('a message received maxReceiveCount times goes to the dead-letter queue', async () => {
  // "Using dead-letter queues in Amazon SQS"
  // (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html): past
  // the RedrivePolicy's maxReceiveCount, the message moves to the dead-letter queue.
  const QueueUrl = await urlOf('work');
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
  for (const count of ['1', '2']) {
    const { Messages = [] } = await receive(QueueUrl, { VisibilityTimeout: 0 });
    expect(Messages.map((m) => m.Attributes?.ApproximateReceiveCount)).toEqual([count]);
  }
  expect((await receive(QueueUrl)).Messages ?? []).toEqual([]);
  const { Messages = [] } = await receive(await urlOf('orders-dead'));
  expect(Messages.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['poison', '3']]);
  expect(log).toContainEqual(expect.stringMatching(/went to its dead-letter queue orders-dead/));
});

test('a FIFO queue drops a duplicate of the same content within the interval', async () => {
  // SendMessage, MessageDeduplicationId (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html):
  // with ContentBasedDeduplication, the id is the body's SHA-256, and a duplicate within the 5-minute interval is
  // accepted but not delivered.
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: 'steps.fifo',
      Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
    }),
  );
  const first = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'one', MessageGroupId: 'g' }));
  const again = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'one', MessageGroupId: 'g' }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'two', MessageGroupId: 'g' }));
  expect(again.MessageId).toBe(first.MessageId);
  const { Messages = [] } = await receive(QueueUrl as string, { MaxNumberOfMessages: 10 });
  expect(Messages.map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([
    ['one', 'g'],
    ['two', 'g'],
  ]);
});

test('messages survive a restart; a damaged queue file refuses the start, naming it', async () => {
  const QueueUrl = await urlOf('orders');
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept' }));
  await stop();
  await start();
  const { Messages = [] } = await receive(await urlOf('orders'));
  expect(Messages.map((m) => m.Body)).toEqual(['kept']);
  await stop();
  const file = join(dataDir, 'services', 'sqs.json');
  writeFileSync(file, '{ not json');
  const refused = startLocalServices({ dataDir, seeds, log: () => undefined });
  await expect(refused).rejects.toThrow(RunnerError);
  await expect(refused).rejects.toThrow(file);
  rmSync(file);
  await start();
});

// The queue's own operations and the batch ones, as the SQS API reference describes them: ListQueues with a prefix,
// SetQueueAttributes then GetQueueAttributes, SendMessageBatch / DeleteMessageBatch / ChangeMessageVisibilityBatch
// answering each entry (Successful, Failed), ChangeMessageVisibility 0 making a message visible again at once,
// PurgeQueue emptying it, DeleteQueue removing it (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/).
test('queues are listed, set, purged and deleted; batches answer each entry', async () => {
  const { QueueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: 'batch-work' }));
  expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'batch-' }))).QueueUrls).toEqual([QueueUrl]);
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { VisibilityTimeout: '45' } }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
  expect(Attributes).toMatchObject({ VisibilityTimeout: '45', QueueArn: queueArn('batch-work') });

  const sent = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: ['a', 'b', 'c'].map((Id) => ({ Id, MessageBody: `body ${Id}` })),
    }),
  );
  expect(sent.Successful?.map(({ Id }) => Id).sort()).toEqual(['a', 'b', 'c']);
  const { Messages = [] } = await receive(QueueUrl, { MaxNumberOfMessages: 10 });
  expect(Messages.map(({ Body }) => Body).sort()).toEqual(['body a', 'body b', 'body c']);
  const [first, second, third] = Messages as [(typeof Messages)[0], (typeof Messages)[0], (typeof Messages)[0]];

  // Made visible again at once, the first is received again; the others wait out their visibility timeout.
  await sqs.send(
    new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 0 }),
  );
  expect((await receive(QueueUrl)).Messages?.map(({ Body }) => Body)).toEqual([first.Body]);
  const changed = await sqs.send(
    new ChangeMessageVisibilityBatchCommand({
      QueueUrl,
      Entries: [
        { Id: 'second', ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 60 },
        { Id: 'unknown', ReceiptHandle: 'not-a-receipt-handle', VisibilityTimeout: 60 },
      ],
    }),
  );
  expect(changed.Successful?.map(({ Id }) => Id)).toEqual(['second']);
  expect(changed.Failed?.map(({ Id }) => Id)).toEqual(['unknown']);
  const deleted = await sqs.send(
    new DeleteMessageBatchCommand({ QueueUrl, Entries: [{ Id: 'third', ReceiptHandle: third.ReceiptHandle }] }),
  );
  expect(deleted.Successful?.map(({ Id }) => Id)).toEqual(['third']);

  await sqs.send(new PurgeQueueCommand({ QueueUrl }));
  const purged = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  expect(purged.Attributes).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  await sqs.send(new DeleteQueueCommand({ QueueUrl }));
  expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'batch-' }))).QueueUrls ?? []).toEqual([]);
});
