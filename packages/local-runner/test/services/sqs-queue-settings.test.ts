// What a queue's settings do locally, through the SDK v3 client: MessageRetentionPeriod deletes what is older
// (SetQueueAttributes, https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html:
// "MessageRetentionPeriod – The length of time, in seconds, for which Amazon SQS retains a message"); a queue policy
// ("AWS::SQS::QueuePolicy", https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sqs-queuepolicy.html)
// and encryption settings ("Encryption at rest in Amazon SQS",
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-server-side-encryption.html) are kept
// and shown by GetQueueAttributes, and the start says they are neither enforced nor applied.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, expect, jest, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { queueArn } from '../../src/services/sqs.ts';

const policy = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'sns.amazonaws.com' }, Action: 'sqs:SendMessage' }],
});
const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    { source: 'App/Short', name: 'short', attributes: { MessageRetentionPeriod: '60' } },
    { source: 'App/Guarded', name: 'guarded', attributes: { Policy: policy } },
    { source: 'App/Secret', name: 'secret', attributes: { KmsMasterKeyId: 'alias/aws/sqs' } },
    { source: 'App/Managed', name: 'managed', attributes: { SqsManagedSseEnabled: 'true' } },
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
afterEach(() => {
  jest.restoreAllMocks();
});

const urlOf = async (QueueName: string) => (await sqs.send(new GetQueueUrlCommand({ QueueName }))).QueueUrl as string;
const attributesOf = async (QueueName: string) =>
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: await urlOf(QueueName), AttributeNames: ['All'] })))
    .Attributes ?? {};

test('a message older than MessageRetentionPeriod is gone: neither received nor counted', async () => {
  const QueueUrl = await urlOf('short');
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'soon gone' }));
  expect(await attributesOf('short')).toMatchObject({ ApproximateNumberOfMessages: '1' });
  // 61 seconds later, by the clock the service reads (the SDK signs with the same clock).
  const now = Date.now();
  jest.spyOn(Date, 'now').mockImplementation(() => now + 61_000);
  expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages ?? []).toEqual([]);
  expect(await attributesOf('short')).toMatchObject({
    ApproximateNumberOfMessages: '0',
    ApproximateNumberOfMessagesNotVisible: '0',
  });
});

test("a queue's policy is kept and shown (Policy), and the start says it is not enforced", async () => {
  expect(await attributesOf('guarded')).toMatchObject({ Policy: policy, QueueArn: queueArn('guarded') });
  expect(log).toContainEqual(
    'SQS: queue policies are kept and shown (GetQueueAttributes Policy), not enforced locally: guarded',
  );
});

test('a KMS- or SQS-encrypted queue is served, its settings shown, and the start says it is not encrypted here', async () => {
  expect(await attributesOf('secret')).toMatchObject({ KmsMasterKeyId: 'alias/aws/sqs' });
  expect(await attributesOf('managed')).toMatchObject({ SqsManagedSseEnabled: 'true' });
  const QueueUrl = await urlOf('secret');
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'in the clear' }));
  expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages?.map((m) => m.Body)).toEqual([
    'in the clear',
  ]);
  expect(log).toContainEqual(
    'SQS: queues encrypted on AWS are served unencrypted locally, their messages in the clear in memory: secret (KMS key alias/aws/sqs), managed (SSE-SQS)',
  );
});

test('with a data folder, the start says the messages of an encrypted queue are in the clear there', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'local-runner-sqs-settings-'));
  const kept: string[] = [];
  try {
    const onDisk = await startLocalServices({ dataDir: folder, seeds, log: (line) => kept.push(line) });
    await onDisk.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  expect(kept).toContainEqual(
    'SQS: queues encrypted on AWS are served unencrypted locally, their messages in the clear in the data folder: secret (KMS key alias/aws/sqs), managed (SSE-SQS)',
  );
});
