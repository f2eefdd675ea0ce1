// S3's event notifications, from an object's change (as the local S3 reports one) to where they arrive: the local SQS
// and SNS (read with their own SDK clients), the local EventBridge (a rule on the default bus), and a recording
// `lambda` receiver standing for the runner's asynchronous invocation (the whole runner, with the local S3 and real
// functions: s3-notifications.e2e.test.ts). Pages: "Event message structure"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html: "The object key name
// value is URL encoded. For example, "red flower.jpg" becomes "red+flower.jpg""), "EventBridge event message structure"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ev-events.html), "Event notification types and destinations"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-how-to-event-types-and-destinations.html), and
// "Using Amazon SQS, Amazon SNS, and Lambda" ("When the notification is first enabled, an s3:TestEvent occurs",
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/how-to-enable-disable-notification-intro.html). Every event is
// judged by @aws-lambda-powertools/parser's S3 schemas.
import {
  S3EventNotificationEventBridgeSchema,
  S3Schema,
  S3SqsEventNotificationSchema,
} from '@aws-lambda-powertools/parser/schemas/s3';
import { GetQueueUrlCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { NotificationTarget, S3NotificationSeeds } from '../../src/app/s3-notification-resources.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { encodedKey } from '../../src/events/s3-events.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import type { ObjectChange } from '../../src/services/s3-change.ts';
import { emptyTested, s3Notifications } from '../../src/services/s3-notifications.ts';
import { topicArn } from '../../src/services/sns.ts';
import { queueArn } from '../../src/services/sqs.ts';
import { stateFile } from '../../src/services/state-file.ts';
import { type Delivery, Targets } from '../../src/services/targets.ts';

const functionArn = (name: string) => `arn:aws:lambda:${localAws.region}:${localAws.accountId}:function:${name}`;

const target = (more: Partial<NotificationTarget> & Pick<NotificationTarget, 'kind' | 'arn'>): NotificationTarget => ({
  id: `${more.kind}-${more.prefix ?? ''}`,
  events: ['s3:ObjectCreated:*'],
  ...more,
});

const notifications: S3NotificationSeeds = {
  buckets: [
    {
      bucket: 'uploads',
      sources: ['App/Notifications'],
      eventBridge: true,
      targets: [
        target({ kind: 'lambda', arn: functionArn('OnText'), prefix: 'in/', suffix: '.txt' }),
        target({ kind: 'lambda', arn: functionArn('OnEquals'), prefix: 'a%3Db/' }),
        target({ kind: 'queue', arn: queueArn('removed'), events: ['s3:ObjectRemoved:Delete'] }),
        target({ kind: 'topic', arn: topicArn('puts'), events: ['s3:ObjectCreated:Put'], prefix: 'out/' }),
        target({ kind: 'queue', arn: queueArn('missing'), events: ['s3:ObjectCreated:Copy'] }),
      ],
    },
  ],
};

const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    { source: 'App/Removed', name: 'removed', attributes: {} },
    { source: 'App/Published', name: 'published', attributes: {} },
  ],
  sns: {
    topics: [{ source: 'App/Puts', name: 'puts', attributes: {} }],
    subscriptions: [
      {
        source: 'App/Sub',
        topicArn: topicArn('puts'),
        protocol: 'sqs',
        endpoint: queueArn('published'),
        attributes: {},
      },
    ],
  },
  events: {
    buses: [],
    rules: [
      {
        source: 'App/OnS3',
        name: 'on-s3',
        bus: 'default',
        state: 'ENABLED',
        pattern: { source: ['aws.s3'], 'detail-type': ['Object Created', 'Object Deleted'] },
        targets: [{ id: 'Fn', arn: functionArn('OnBus') }],
      },
    ],
  },
};

let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let notifier: ReturnType<typeof s3Notifications>;
let sqs: SQSClient;
const log: string[] = [];
const invoked: { arn: string; delivery: Delivery }[] = [];
const waiters = new Set<() => void>();

/** Resolves once `fact` holds, looked at after each invocation recorded. */
const until = (fact: () => boolean) =>
  new Promise<void>((resolve) => {
    const look = () => {
      if (!fact()) return;
      waiters.delete(look);
      resolve();
    };
    waiters.add(look);
    look();
  });
const tested = stateFile(undefined, 's3-notifications', emptyTested);

beforeAll(async () => {
  const targets = new Targets();
  targets.register('lambda', async (arn, delivery) => {
    invoked.push({ arn, delivery });
    for (const wake of waiters) wake();
  });
  services = await startLocalServices({ dataDir: undefined, seeds, log: (line) => log.push(line), targets });
  notifier = s3Notifications(targets, tested, (line) => log.push(line));
  log.push(...notifier.seed(notifications));
  sqs = new SQSClient({ region: localAws.region, credentials: localAws.credentials, endpoint: services.urls.sqs });
});
afterAll(async () => {
  sqs?.destroy();
  await services?.close();
});

let sequence = 0x100;
const change = (key: string, more: Partial<ObjectChange> = {}): ObjectChange => ({
  bucket: 'uploads',
  key,
  eventName: 'ObjectCreated:Put',
  size: 11,
  eTag: '5eb63bbbe01eeed093cb22bb8f5acdc3',
  sequencer: `00${(sequence++).toString(16).toUpperCase().padStart(16, '0')}`,
  time: new Date('2026-11-29T06:00:00.123Z'),
  sourceIp: '::ffff:127.0.0.1',
  requestId: 'C3D13FE58DE4C810',
  ...more,
});

/** The messages of a queue within a long poll (answered as soon as one is there). */
const received = async (name: string): Promise<Message[]> => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
  );
  return Messages;
};

/** What the recording `lambda` receiver got for `name`, parsed. */
const invocationsOf = (name: string) =>
  invoked.filter(({ arn }) => arn === functionArn(name)).map(({ delivery }) => JSON.parse(delivery.body) as unknown);

describe('the key, encoded as S3 encodes it', () => {
  test('a space is +, / stays, other characters %XX of their UTF-8 (aws/aws-sdk-net#640, aws/aws-sdk-js#837)', () => {
    expect(encodedKey('red flower.jpg')).toBe('red+flower.jpg');
    expect(encodedKey('this im + age blah.txt')).toBe('this+im+%2B+age+blah.txt');
    expect(encodedKey('test/10:47:07.log')).toBe('test/10%3A47%3A07.log');
    expect(encodedKey('dt=2018-05-04/_SUCCESS')).toBe('dt%3D2018-05-04/_SUCCESS');
    expect(encodedKey('café/(1) copy*.txt')).toBe('caf%C3%A9/%281%29+copy*.txt');
  });
});

test('the s3:TestEvent reaches each queue and topic configured once, when first put; not again for the same', async () => {
  const [removed, published] = await Promise.all([received('removed'), received('published')]);
  const test = { Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'uploads' };
  expect(removed.map(({ Body }) => JSON.parse(Body ?? ''))).toEqual([expect.objectContaining(test)]);
  expect(published.map(({ Body }) => JSON.parse(JSON.parse(Body ?? '').Message))).toEqual([
    expect.objectContaining(test),
  ]);
  expect(JSON.parse(published[0]?.Body ?? '').Subject).toBe('Amazon S3 Notification');
  // A queue the runner does not have: its test message is refused, said at start (on AWS the deployment fails).
  expect(log).toContainEqual(
    expect.stringMatching(new RegExp(`^S3: the s3:TestEvent was not delivered to ${queueArn('missing')}: `)),
  );
  expect(tested.read().tested).toHaveLength(3);
  notifier.seed(notifications);
  await notifier.settled();
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'removed' }));
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0 }));
  expect(Messages).toEqual([]);
});

test('an object created under the prefix and with the suffix reaches the function, its record as documented', async () => {
  notifier.notify(change('in/red flower.txt'));
  notifier.notify(change('in/red flower.png'));
  notifier.notify(change('other/red flower.txt'));
  await notifier.settled();
  const events = invocationsOf('OnText');
  expect(events).toEqual([
    {
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          awsRegion: localAws.region,
          eventTime: '2026-11-29T06:00:00.123Z',
          eventName: 'ObjectCreated:Put',
          userIdentity: { principalId: expect.stringMatching(/^AWS:AIDA[0-9A-F]{17}$/) },
          requestParameters: { sourceIPAddress: '127.0.0.1' },
          responseElements: { 'x-amz-request-id': 'C3D13FE58DE4C810', 'x-amz-id-2': expect.any(String) },
          s3: {
            s3SchemaVersion: '1.0',
            configurationId: 'lambda-in/',
            bucket: {
              name: 'uploads',
              ownerIdentity: { principalId: expect.stringMatching(/^A[0-9A-F]{13}$/) },
              arn: 'arn:aws:s3:::uploads',
            },
            object: {
              key: 'in/red+flower.txt',
              size: 11,
              eTag: '5eb63bbbe01eeed093cb22bb8f5acdc3',
              sequencer: expect.stringMatching(/^[0-9A-F]{18}$/),
            },
          },
        },
      ],
    },
  ]);
  expect(S3Schema.safeParse(events[0]).error).toBeUndefined();
});

test('a filter with a special character matches it URL-encoded, as S3 compares them', async () => {
  notifier.notify(change('a=b/report.csv'));
  await notifier.settled();
  expect(invocationsOf('OnEquals')).toEqual([
    { Records: [expect.objectContaining({ s3: expect.objectContaining({ configurationId: 'lambda-a%3Db/' }) })] },
  ]);
});

test('an object deleted reaches the queue, its record without size or ETag; a delete marker does not', async () => {
  notifier.notify(change('in/gone.txt', { eventName: 'ObjectRemoved:DeleteMarkerCreated', versionId: 'v2' }));
  notifier.notify(change('in/gone.txt', { eventName: 'ObjectRemoved:Delete', size: undefined, eTag: undefined }));
  await notifier.settled();
  const messages = await received('removed');
  expect(messages).toHaveLength(1);
  const record = JSON.parse(messages[0]?.Body ?? '').Records[0];
  expect(record).toMatchObject({ eventName: 'ObjectRemoved:Delete', s3: { object: { key: 'in/gone.txt' } } });
  expect(Object.keys(record.s3.object)).toEqual(['key', 'sequencer']);
  const asSqsEvent = {
    Records: messages.map(({ MessageId, ReceiptHandle, Body }) => ({
      messageId: MessageId,
      receiptHandle: ReceiptHandle,
      body: Body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '1',
        SenderId: 'AIDA',
        ApproximateFirstReceiveTimestamp: '1',
      },
      messageAttributes: {},
      md5OfBody: 'x',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn('removed'),
      awsRegion: localAws.region,
    })),
  };
  expect(S3SqsEventNotificationSchema.safeParse(asSqsEvent).error).toBeUndefined();
});

test('an object put under out/ reaches the topic, then its queue, subject "Amazon S3 Notification"', async () => {
  notifier.notify(change('out/a b.json'));
  await notifier.settled();
  const [message] = await received('published');
  const notification = JSON.parse(message?.Body ?? '');
  expect(notification).toMatchObject({ Type: 'Notification', Subject: 'Amazon S3 Notification' });
  expect(JSON.parse(notification.Message).Records[0].s3.object.key).toBe('out/a+b.json');
});

test('a destination that refuses is said in the log, the others delivered', async () => {
  notifier.notify(change('copied.bin', { eventName: 'ObjectCreated:Copy' }));
  await notifier.settled();
  expect(log).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^S3: the ObjectCreated:Copy notification of uploads/copied.bin was not delivered to ${queueArn('missing')}: `,
      ),
    ),
  );
});

test('every change goes to the default bus as Object Created or Object Deleted, its key as stored', async () => {
  const before = invocationsOf('OnBus').length;
  notifier.notify(change('in/red flower.txt', { versionId: 'v1' }));
  notifier.notify(change('in/red flower.txt', { eventName: 'ObjectRemoved:DeleteMarkerCreated', versionId: 'v2' }));
  await until(() => invocationsOf('OnBus').length === before + 2);
  const events = invocationsOf('OnBus').slice(before) as Record<string, unknown>[];
  for (const event of events) expect(S3EventNotificationEventBridgeSchema.safeParse(event).error).toBeUndefined();
  expect(events).toEqual([
    expect.objectContaining({
      'detail-type': 'Object Created',
      source: 'aws.s3',
      account: localAws.accountId,
      region: localAws.region,
      time: '2026-11-29T06:00:00Z',
      resources: ['arn:aws:s3:::uploads'],
      detail: {
        version: '0',
        bucket: { name: 'uploads' },
        object: {
          key: 'in/red flower.txt',
          size: 11,
          etag: '5eb63bbbe01eeed093cb22bb8f5acdc3',
          'version-id': 'v1',
          sequencer: expect.any(String),
        },
        'request-id': 'C3D13FE58DE4C810',
        requester: localAws.accountId,
        'source-ip-address': '127.0.0.1',
        reason: 'PutObject',
      },
    }),
    expect.objectContaining({
      'detail-type': 'Object Deleted',
      detail: expect.objectContaining({
        object: { key: 'in/red flower.txt', 'version-id': 'v2', sequencer: expect.any(String) },
        reason: 'DeleteObject',
        'deletion-type': 'Delete Marker Created',
      }),
    }),
  ]);
});

test('a bucket with no notifications sends nothing', async () => {
  const count = invoked.length;
  notifier.notify(change('in/x.txt', { bucket: 'elsewhere' }));
  await notifier.settled();
  expect(invoked).toHaveLength(count);
});

test("the banner lists each bucket's notifications, with their filters and where they send", () => {
  expect(notifier.banner()).toEqual([
    `bucket uploads: s3:ObjectCreated:* (prefix in/, suffix .txt) -> ${functionArn('OnText')}`,
    `bucket uploads: s3:ObjectCreated:* (prefix a%3Db/) -> ${functionArn('OnEquals')}`,
    `bucket uploads: s3:ObjectRemoved:Delete -> ${queueArn('removed')}`,
    `bucket uploads: s3:ObjectCreated:Put (prefix out/) -> ${topicArn('puts')}`,
    `bucket uploads: s3:ObjectCreated:Copy -> ${queueArn('missing')}`,
    'bucket uploads: every change -> the default event bus (EventBridge)',
  ]);
});
