// S3's event notifications on the whole runner serving a CDK app (fixtures/s3-notifications-app.ts), objects put and
// deleted with the SDK v3's S3 client through the local S3: the TypeScript function notified of objects created under
// `images/` ending `.png` (a prefix and a suffix filter), the Python function notified of the object a parameter names
// (which reads it with boto3 and loads its rows in a table), the queue of objects removed, the topic of reports (with a
// queue subscribed), and the default bus (a rule sending S3's events to a queue). Pages: "Event message structure"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html), "Process Amazon S3 event
// notifications with Lambda" (https://docs.aws.amazon.com/lambda/latest/dg/with-s3.html: an asynchronous invocation),
// "Configuring event notifications using object key name filtering"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-how-to-filtering.html), "Using Amazon SQS, Amazon
// SNS, and Lambda" (the s3:TestEvent), "EventBridge event message structure"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ev-events.html). The run's teardown judges every event
// delivered to a function by Powertools' schemas (aws:s3 by its S3 schema).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3EventNotificationEventBridgeSchema, S3Schema } from '@aws-lambda-powertools/parser/schemas/s3';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { CopyObjectCommand, DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetQueueUrlCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { boto3Source } from 'test-support/python-tools';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedBucketName } from '../../src/app/return-values.ts';
import { s3NotificationsApp as names, synthesizeS3NotificationsApp } from '../fixtures/s3-notifications-app.ts';
import { localClient } from '../helpers/local-clients.ts';
import { s3Client } from '../helpers/s3-services.ts';
import { jsonLine, servedBeforeAll } from '../helpers/served-app.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-s3/package.json'))), '../..');

const runner = servedBeforeAll(synthesizeS3NotificationsApp, { runtimeSdk: installedPackages });
let s3: S3Client;
let sqs: SQSClient;
let dynamodb: DynamoDBClient;
beforeAll(() => {
  s3 = s3Client(runner.api.serviceUrls.s3);
  sqs = localClient(SQSClient, runner.api.serviceUrls.sqs);
  dynamodb = localClient(DynamoDBClient, runner.api.databaseEndpoint);
});
afterAll(() => {
  for (const client of [s3, sqs, dynamodb]) client?.destroy();
});

/** The runner's log and its functions'. */
const log = () => [...runner.log.lines, ...runner.functionLog.lines];
/** Each function's logged JSON lines. */
const logged = () => runner.functionLog.lines.flatMap((line) => jsonLine(line) ?? []);

type Notified = Record<string, unknown> & {
  event: { Records: { eventName: string; s3: { object: Record<string, unknown> } }[] };
};

/** The first line `fn` logs whose event's first record is of `key` (as the record gives it), once it has. */
const loggedFor = (fn: string, key: string) =>
  runner.functionLog.picked((text) => {
    const entry = jsonLine(text);
    const records = (entry?.line.event as { Records?: { s3: { object: { key: string } } }[] } | undefined)?.Records;
    return entry?.fn === fn && records?.[0]?.s3.object.key === key ? (entry.line as Notified) : undefined;
  });

/** The messages a queue gets within a long poll (answered as soon as there is one). */
const received = async (name: string): Promise<Message[]> => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20, MaxNumberOfMessages: 10 }),
  );
  return Messages;
};

/** The bodies a queue gets, parsed, until one passes `until`. */
const receivedUntil = async (name: string, until: (body: Record<string, unknown>) => boolean) => {
  const bodies: Record<string, unknown>[] = [];
  while (!bodies.some(until)) bodies.push(...(await received(name)).map(({ Body }) => JSON.parse(Body ?? '{}')));
  return bodies;
};

const put = (Key: string, Body: string, Bucket: string = names.bucket) =>
  s3.send(new PutObjectCommand({ Bucket, Key, Body }));

test("the handler of the CDK's notifications is no function of the app: neither served nor said", () => {
  expect(log().join('\n')).not.toMatch(/BucketNotificationsHandler/);
});

test('an object put under images/ ending .png reaches the TypeScript function, its record as documented', async () => {
  // Put first, in the same bucket: a key outside the prefix, then one outside the suffix. The function runs its
  // asynchronous invocations one after the other (one environment), so had either reached it, it would have been
  // logged before the one that matches.
  await put('docs/chart.png', 'x');
  await put('images/chart.jpg', 'x');
  const { ETag } = await put('images/red flower.png', 'hello world');
  const { event } = await loggedFor(names.onImage, 'images/red+flower.png');
  expect(S3Schema.safeParse(event).error).toBeUndefined();
  expect(event.Records[0]).toMatchObject({
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: localAws.region,
    eventName: 'ObjectCreated:Put',
    requestParameters: { sourceIPAddress: '127.0.0.1' },
    s3: {
      bucket: { name: names.bucket, arn: `arn:aws:s3:::${names.bucket}` },
      object: {
        key: 'images/red+flower.png',
        size: 11,
        eTag: ETag?.replaceAll('"', ''),
        sequencer: expect.stringMatching(/^[0-9A-F]+$/),
      },
    },
  });
  expect(logged().filter(({ fn }) => fn === names.onImage)).toHaveLength(1);
});

test('a copy is ObjectCreated:Copy', async () => {
  await s3.send(
    new CopyObjectCommand({
      Bucket: names.bucket,
      Key: 'images/copy.png',
      CopySource: `${names.bucket}/${encodeURIComponent('images/red flower.png')}`,
    }),
  );
  const { event } = await loggedFor(names.onImage, 'images/copy.png');
  expect(event.Records[0]?.eventName).toBe('ObjectCreated:Copy');
});

(boto3Source() === 'machine' ? describe : describe.skip)('the Python function of the public shape', () => {
  test('the object its parameter names, put in the unnamed bucket, is loaded into the table by the function', async () => {
    const bucket = generatedBucketName(names.stack, names.loader);
    await put(`${names.table}.csv`, 'id,name,price\nfern,Fern,12\nivy,Ivy,8\n', bucket);
    const { loaded } = await loggedFor(names.loadCsv, `${names.table}.csv`);
    expect(loaded).toBe(2);
    const { Items = [] } = await dynamodb.send(new ScanCommand({ TableName: names.table }));
    expect(Items.map((item) => item.id?.S).sort()).toEqual(['fern', 'ivy']);
  });
});

test('an object deleted reaches the queue of removals, after the s3:TestEvent its configuration was sent', async () => {
  await s3.send(new DeleteObjectCommand({ Bucket: names.bucket, Key: 'images/chart.jpg' }));
  const bodies = await receivedUntil(names.removed, (body) => Array.isArray(body.Records));
  expect(bodies[0]).toMatchObject({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: names.bucket });
  const record = (bodies.at(-1) as { Records: Record<string, unknown>[] }).Records[0];
  expect(record).toMatchObject({ eventName: 'ObjectRemoved:Delete', s3: { object: { key: 'images/chart.jpg' } } });
});

test('an object put under reports/ reaches the topic, and its queue, as S3 notifies a topic', async () => {
  await put('reports/q1 2026.csv', 'a,b');
  const bodies = await receivedUntil(names.reports, (body) => String(body.Message).includes('"Records"'));
  const notification = bodies.at(-1) as { Subject: string; Message: string };
  expect(notification.Subject).toBe('Amazon S3 Notification');
  expect(JSON.parse(notification.Message).Records[0].s3.object.key).toBe('reports/q1+2026.csv');
  expect(JSON.parse(String(bodies[0]?.Message))).toMatchObject({ Event: 's3:TestEvent' });
});

test('every change is an event on the default bus, which a rule sends to its queue', async () => {
  const bodies = await receivedUntil(
    names.busSeen,
    (body) => (body.detail as { object?: { key?: string } })?.object?.key === 'images/red flower.png',
  );
  const event = bodies.find(
    (body) => (body.detail as { object: { key: string } }).object.key === 'images/red flower.png',
  );
  expect(S3EventNotificationEventBridgeSchema.safeParse(event).error).toBeUndefined();
  expect(event).toMatchObject({
    source: 'aws.s3',
    'detail-type': 'Object Created',
    resources: [`arn:aws:s3:::${names.bucket}`],
    detail: { bucket: { name: names.bucket }, object: { size: 11 }, reason: 'PutObject' },
  });
});
