// The local SNS, driven by the AWS SDK v3 client unchanged over the query protocol it speaks ("Amazon SNS API
// Reference", https://docs.aws.amazon.com/sns/latest/api/welcome.html), its deliveries observed where they arrive: an
// SQS queue (the local SQS, read with its own client), a function (the `lambda` receiver of Targets, as the runner
// registers it) and an HTTP endpoint on loopback; on a data folder, across a restart.
import { execFile } from 'node:child_process';
import { createVerify, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SnsSchema, SnsSqsNotificationSchema } from '@aws-lambda-powertools/parser/schemas/sns';
import type { SnsRecord } from '@aws-lambda-powertools/parser/types';
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTopicsCommand,
  PublishBatchCommand,
  PublishCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { RunnerError } from '../../src/errors.ts';
import { Sha256 } from '../../src/gateway/sigv4.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { topicArn } from '../../src/services/sns.ts';
import { stringToSign } from '../../src/services/sns-signing.ts';
import { queueArn } from '../../src/services/sqs.ts';
import { type Delivery, TargetError, Targets } from '../../src/services/targets.ts';

const functionArn = `arn:aws:lambda:${localAws.region}:${localAws.accountId}:function:Handler`;
const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [
    { source: 'App/Raw', name: 'raw', attributes: {} },
    { source: 'App/Wrapped', name: 'wrapped', attributes: {} },
    { source: 'App/Dead', name: 'dead', attributes: {} },
    { source: 'App/Steps', name: 'steps.fifo', attributes: { FifoQueue: 'true' } },
  ],
  sns: {
    topics: [
      { source: 'App/Orders', name: 'orders', attributes: {} },
      { source: 'App/Steps', name: 'steps.fifo', attributes: { FifoTopic: 'true', ContentBasedDeduplication: 'true' } },
    ],
    subscriptions: [
      {
        source: 'App/RawSub',
        topicArn: topicArn('orders'),
        protocol: 'sqs',
        endpoint: queueArn('raw'),
        attributes: { RawMessageDelivery: 'true' },
      },
      {
        source: 'App/WrappedSub',
        topicArn: topicArn('orders'),
        protocol: 'sqs',
        endpoint: queueArn('wrapped'),
        attributes: {},
      },
      { source: 'App/FnSub', topicArn: topicArn('orders'), protocol: 'lambda', endpoint: functionArn, attributes: {} },
      {
        source: 'App/StepsSub',
        topicArn: topicArn('steps.fifo'),
        protocol: 'sqs',
        endpoint: queueArn('steps.fifo'),
        attributes: { RawMessageDelivery: 'true' },
      },
      {
        source: 'App/Far',
        topicArn: topicArn('orders'),
        protocol: 'https',
        endpoint: 'https://example.com/hook',
        attributes: {},
      },
    ],
  },
};

let dataDir: string;
let targets: Targets;
let services: Awaited<ReturnType<typeof startLocalServices>>;
let sns: SNSClient;
let sqs: SQSClient;
const log: string[] = [];
/** What the `lambda` receiver was handed, as the runner's asynchronous invocation would be. */
const invoked: { arn: string; delivery: Delivery }[] = [];

const start = async () => {
  targets = new Targets();
  targets.register('lambda', async (arn, delivery) => {
    invoked.push({ arn, delivery });
  });
  services = await startLocalServices({ dataDir, seeds, log: (line) => log.push(line), targets });
  const client = { region: localAws.region, credentials: localAws.credentials };
  sns = new SNSClient({ ...client, endpoint: services.endpoints.AWS_ENDPOINT_URL_SNS });
  sqs = new SQSClient({ ...client, endpoint: services.urls.sqs });
};
const stop = async () => {
  sns.destroy();
  sqs.destroy();
  await services.close();
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'local-sns-'));
  await start();
});
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every message now in the queue `name`, each deleted once read. */
const drain = async (name: string) => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  for (const { ReceiptHandle } of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle }));
  return Messages;
};

/** Whether `message` (an envelope) verifies against the certificate its SigningCertURL serves. */
const verifies = async (message: Record<string, string>) => {
  const certificate = new X509Certificate(await (await fetch(message.SigningCertURL as string)).text());
  const algorithm = message.SignatureVersion === '2' ? 'RSA-SHA256' : 'RSA-SHA1';
  return createVerify(algorithm)
    .update(stringToSign(message))
    .verify(certificate.publicKey, message.Signature as string, 'base64');
};

test("the template's topics and subscriptions are served; a non-loopback endpoint is said, not subscribed", async () => {
  const { Topics = [] } = await sns.send(new ListTopicsCommand({}));
  expect(Topics.map(({ TopicArn }) => TopicArn).sort()).toEqual([topicArn('orders'), topicArn('steps.fifo')]);
  const { Subscriptions = [] } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn('orders') }));
  expect(Subscriptions.map(({ Protocol, Endpoint }) => `${Protocol} ${Endpoint}`).sort()).toEqual([
    `lambda ${functionArn}`,
    `sqs ${queueArn('raw')}`,
    `sqs ${queueArn('wrapped')}`,
  ]);
  expect(log).toContainEqual(
    expect.stringMatching(/App\/Far: SNS subscription not served: .*https:\/\/example.com\/hook.*loopback/),
  );
  expect(services.endpoints.AWS_ENDPOINT_URL_SNS).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

// "Amazon SNS raw message delivery": a raw subscription's queue gets the message itself, its attributes as the
// queue's message attributes; another gets the JSON envelope ("Parsing message formats",
// https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html), signed and verifiable
// ("Verifying the signatures of Amazon SNS messages", https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
test('a message published reaches a raw queue, an enveloped queue and a function, each signed', async () => {
  const { MessageId } = await sns.send(
    new PublishCommand({
      TopicArn: topicArn('orders'),
      Message: '{"order":7}',
      Subject: 'New order',
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'new' } },
    }),
  );
  const [raw] = await drain('raw');
  expect(raw?.Body).toBe('{"order":7}');
  expect(raw?.MessageAttributes?.kind).toEqual({ DataType: 'String', StringValue: 'new' });
  const [wrapped] = await drain('wrapped');
  const envelope = JSON.parse(wrapped?.Body ?? '{}') as Record<string, string>;
  expect(SnsSqsNotificationSchema.parse(envelope)).toMatchObject({
    Type: 'Notification',
    MessageId,
    TopicArn: topicArn('orders'),
    Subject: 'New order',
    Message: '{"order":7}',
    SignatureVersion: '1',
    MessageAttributes: { kind: { Type: 'String', Value: 'new' } },
  });
  expect(await verifies(envelope)).toBe(true);
  expect(await verifies({ ...envelope, Message: 'forged' })).toBe(false);
  // "Invoking Lambda functions with Amazon SNS notifications" (https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html):
  // the function gets one record, its Sns fields as the sample event's.
  const event = JSON.parse(invoked.at(-1)?.delivery.body ?? '{}');
  expect(invoked.at(-1)?.arn).toBe(functionArn);
  const [record] = SnsSchema.parse(event).Records as [SnsRecord];
  expect(record.Sns).toMatchObject({ MessageId, Message: '{"order":7}', Subject: 'New order' });
  expect(record.EventSubscriptionArn).toMatch(new RegExp(`^${topicArn('orders')}:`));
  const { Message, Timestamp, TopicArn, Type, Signature = '', SignatureVersion = '', SigningCertUrl = '' } = record.Sns;
  const signed = { Message, MessageId: record.Sns.MessageId, Subject: 'New order', Timestamp, TopicArn, Type };
  expect(await verifies({ ...signed, Signature, SignatureVersion, SigningCertURL: SigningCertUrl })).toBe(true);
  expect(log).toContainEqual(`SNS: orders -> sqs raw (raw): delivered message ${MessageId}`);
});

test('a topic with SignatureVersion 2 signs with SHA256', async () => {
  await sns.send(
    new SetTopicAttributesCommand({
      TopicArn: topicArn('orders'),
      AttributeName: 'SignatureVersion',
      AttributeValue: '2',
    }),
  );
  await sns.send(new PublishCommand({ TopicArn: topicArn('orders'), Message: 'signed anew' }));
  const envelope = JSON.parse((await drain('wrapped'))[0]?.Body ?? '{}') as Record<string, string>;
  expect(envelope.SignatureVersion).toBe('2');
  expect(await verifies(envelope)).toBe(true);
  await drain('raw');
  await sns.send(
    new SetTopicAttributesCommand({
      TopicArn: topicArn('orders'),
      AttributeName: 'SignatureVersion',
      AttributeValue: '1',
    }),
  );
});

// "Amazon SNS message filtering" (https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html): a
// subscription's FilterPolicy, on the message's attributes (the default scope) or on its body (MessageBody).
test('filter policies on the attributes and on the body choose what a subscription gets', async () => {
  const [raw, wrapped] =
    (await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn('orders') }))).Subscriptions?.filter(
      ({ Protocol }) => Protocol === 'sqs',
    )
      .sort((a, b) => (a.Endpoint ?? '').localeCompare(b.Endpoint ?? ''))
      .map(({ SubscriptionArn }) => SubscriptionArn) ?? [];
  const set = (SubscriptionArn: string | undefined, AttributeName: string, AttributeValue: string) =>
    sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn, AttributeName, AttributeValue }));
  await set(raw, 'FilterPolicy', JSON.stringify({ price_usd: [{ numeric: ['>=', 100] }], tags: ['rugby'] }));
  await set(wrapped, 'FilterPolicyScope', 'MessageBody');
  await set(wrapped, 'FilterPolicy', JSON.stringify({ order: { store: [{ prefix: 'example' }] } }));
  const publish = (Message: string, price: string, tags: string) =>
    sns.send(
      new PublishCommand({
        TopicArn: topicArn('orders'),
        Message,
        MessageAttributes: {
          price_usd: { DataType: 'Number', StringValue: price },
          tags: { DataType: 'String.Array', StringValue: tags },
        },
      }),
    );
  await publish('{"order":{"store":"example_corp"}}', '210.75', '["soccer","rugby"]');
  await publish('{"order":{"store":"other"}}', '99', '["rugby"]');
  await publish('not json', '100', '["hockey"]');
  expect((await drain('raw')).map(({ Body }) => Body)).toEqual(['{"order":{"store":"example_corp"}}']);
  expect((await drain('wrapped')).map(({ Body }) => JSON.parse(Body ?? '{}').Message)).toEqual([
    '{"order":{"store":"example_corp"}}',
  ]);
  const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: wrapped }));
  expect(Attributes).toMatchObject({ FilterPolicyScope: 'MessageBody', TopicArn: topicArn('orders') });
  await expect(set(raw, 'FilterPolicy', '{"a": "not a list"}')).rejects.toMatchObject({
    name: 'InvalidParameterException',
  });
  await set(raw, 'FilterPolicy', '');
  await set(wrapped, 'FilterPolicy', '');
});

// "Message ordering and deduplication for FIFO topics"
// (https://docs.aws.amazon.com/sns/latest/dg/fifo-message-dedup.html): a FIFO topic passes the group on to its FIFO
// queue in order, and drops a duplicate (content-based) within the 5-minute interval.
test('a FIFO topic delivers in order to its FIFO queue and drops a content-based duplicate', async () => {
  const TopicArn = topicArn('steps.fifo');
  const first = await sns.send(new PublishCommand({ TopicArn, Message: 'one', MessageGroupId: 'g' }));
  const again = await sns.send(new PublishCommand({ TopicArn, Message: 'one', MessageGroupId: 'g' }));
  const batch = await sns.send(
    new PublishBatchCommand({
      TopicArn,
      PublishBatchRequestEntries: [
        { Id: 'a', Message: 'two', MessageGroupId: 'g' },
        { Id: 'b', Message: 'three', MessageGroupId: 'h' },
      ],
    }),
  );
  expect(again.MessageId).toBe(first.MessageId);
  expect(first.SequenceNumber).toMatch(/^\d{20}$/);
  expect(batch.Successful?.map(({ Id }) => Id)).toEqual(['a', 'b']);
  const messages = await drain('steps.fifo');
  expect(messages.map(({ Body, Attributes }) => [Body, Attributes?.MessageGroupId])).toEqual([
    ['one', 'g'],
    ['two', 'g'],
    ['three', 'h'],
  ]);
  await expect(sns.send(new PublishCommand({ TopicArn, Message: 'no group' }))).rejects.toMatchObject({
    name: 'InvalidParameterException',
  });
});

// "Amazon SNS dead-letter queues (DLQs)" (https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html): a
// message the subscription's endpoint does not take goes to the queue its RedrivePolicy names.
test("a delivery that fails goes to the subscription's dead-letter queue", async () => {
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn('orders'),
      Protocol: 'sqs',
      Endpoint: queueArn('deleted'),
      Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: queueArn('dead') }) },
    }),
  );
  const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn('orders'), Message: 'lost' }));
  const [dead] = await drain('dead');
  expect(JSON.parse(dead?.Body ?? '{}')).toMatchObject({ MessageId, Message: 'lost' });
  expect(log).toContainEqual(expect.stringMatching(/not delivered .*: sent to its dead-letter queue dead$/));
  await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
  await Promise.all([drain('raw'), drain('wrapped')]);
});

/** A loopback HTTP endpoint recording what SNS POSTs to it. */
const endpoint = async () => {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const waiting: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.end();
      for (const wake of waiting.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const next = async (count: number) => {
    while (received.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
    return received[count - 1] as (typeof received)[number];
  };
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, next, close: () => new Promise((resolve) => server.close(resolve)) };
};

// "Subscribing an HTTPS endpoint to an Amazon SNS topic"
// (https://docs.aws.amazon.com/sns/latest/dg/sns-subscribe-https-s-endpoints-to-topic.html): the endpoint gets a
// SubscriptionConfirmation, confirms by visiting its SubscribeURL, then gets each notification with x-amz-sns-* headers.
test('an HTTP endpoint on loopback confirms its subscription, then gets notifications', async () => {
  const hook = await endpoint();
  try {
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn('orders'), Protocol: 'http', Endpoint: hook.url }),
    );
    expect(SubscriptionArn).toBe('pending confirmation');
    const confirmation = await hook.next(1);
    expect(confirmation.headers['x-amz-sns-message-type']).toBe('SubscriptionConfirmation');
    const message = JSON.parse(confirmation.body) as Record<string, string>;
    expect(await verifies(message)).toBe(true);
    expect((await fetch(message.SubscribeURL as string)).status).toBe(200);
    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn('orders'), Message: 'to the hook' }));
    const notification = await hook.next(2);
    expect(notification.headers).toMatchObject({
      'x-amz-sns-message-type': 'Notification',
      'x-amz-sns-message-id': MessageId,
      'x-amz-sns-topic-arn': topicArn('orders'),
    });
    expect(JSON.parse(notification.body)).toMatchObject({ Type: 'Notification', Message: 'to the hook' });
    await expect(
      sns.send(
        new SubscribeCommand({ TopicArn: topicArn('orders'), Protocol: 'https', Endpoint: 'https://example.com/' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringMatching(/loopback/) });
    const confirmed = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn('orders') }));
    const hooked = confirmed.Subscriptions?.find(({ Endpoint }) => Endpoint === hook.url);
    await sns.send(new UnsubscribeCommand({ SubscriptionArn: hooked?.SubscriptionArn }));
    await Promise.all([drain('raw'), drain('wrapped')]);
  } finally {
    await hook.close();
  }
});

// An EventBridge target, a Lambda destination: another local service publishes to a topic by its ARN (targets.ts).
test("a topic takes what another service sends to its ARN; an unknown topic's ARN is refused", async () => {
  await targets.deliver(topicArn('orders'), {
    body: '{"from":"a rule"}',
    attributes: { kind: { DataType: 'String', StringValue: 'event' } },
    source: 'events:rule/Orders',
  });
  const [raw] = await drain('raw');
  expect([raw?.Body, raw?.MessageAttributes?.kind?.StringValue]).toEqual(['{"from":"a rule"}', 'event']);
  await drain('wrapped');
  await expect(targets.deliver(topicArn('nowhere'), { body: 'x', source: 'test' })).rejects.toThrow(TargetError);
});

/** A POST of the form-encoded `body` to the local SNS at `url`, signed with SigV4 as the SDKs sign it. */
const signedPost = async (url: string, body: string, extra: Record<string, string> = {}) => {
  const signer = new SignatureV4({ ...localAws, service: 'sns', sha256: Sha256 });
  const { host, hostname, port } = new URL(url);
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname,
    port: Number(port),
    path: '/',
    headers: { host, 'content-type': 'application/x-www-form-urlencoded', ...extra },
    body,
  });
  const headers = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'));
  return fetch(url, { method: 'POST', headers, body });
};

// "Common Errors" of the Amazon SNS API Reference (https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html): a
// call not signed is MissingAuthenticationToken, one signed with another secret SignatureDoesNotMatch (both 403), an
// action the service does not have InvalidAction (400); each an XML ErrorResponse.
test('the query protocol refuses an unsigned call, a wrong signature and an unknown action', async () => {
  const url = services.endpoints.AWS_ENDPOINT_URL_SNS;
  const unsigned = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'Action=ListTopics&Version=2010-03-31',
  });
  expect(unsigned.status).toBe(403);
  expect(await unsigned.text()).toMatch(
    /^<ErrorResponse[^>]*><Error><Type>Sender<\/Type><Code>MissingAuthenticationToken<\/Code>/,
  );
  const other = new SNSClient({
    endpoint: url,
    region: localAws.region,
    credentials: { accessKeyId: localAws.credentials.accessKeyId, secretAccessKey: 'another' },
  });
  await expect(other.send(new ListTopicsCommand({}))).rejects.toMatchObject({
    name: 'SignatureDoesNotMatch',
    $metadata: { httpStatusCode: 403 },
  });
  other.destroy();
  const unknown = await signedPost(url, 'Action=Fly&Version=2010-03-31');
  expect(unknown.status).toBe(400);
  expect(await unknown.text()).toMatch(/<Code>InvalidAction<\/Code><Message>The action Fly is not valid .*Publish/);
});

// "Tutorial: Create a REST API with an AWS integration"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/getting-started-aws-proxy.html): SNS's ListTopics
// through API Gateway, which asks for JSON, answers `{"ListTopicsResponse": {"ListTopicsResult": {"Topics": [...]},
// "ResponseMetadata": {...}}}`; a response template reads it with `$input.path`.
test('asked for JSON (Accept: application/json, as API Gateway asks), an answer and an error are JSON', async () => {
  const url = services.endpoints.AWS_ENDPOINT_URL_SNS;
  const accept = { accept: 'application/json' };
  const listed = await signedPost(url, 'Action=ListTopics&Version=2010-03-31', accept);
  expect(listed.headers.get('content-type')).toBe('application/json');
  expect(await listed.json()).toEqual({
    ListTopicsResponse: {
      ListTopicsResult: { Topics: expect.arrayContaining([{ TopicArn: topicArn('orders') }]) },
      ResponseMetadata: { RequestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    },
  });
  const form = `Action=Publish&Version=2010-03-31&TopicArn=${encodeURIComponent(topicArn('orders'))}&Message=m`;
  const empty = `${form}&MessageAttributes.entry.1.Name=status&MessageAttributes.entry.1.Value.DataType=String&MessageAttributes.entry.1.Value.StringValue=`;
  const refused = await signedPost(url, empty, accept);
  expect({ status: refused.status, body: await refused.json() }).toEqual({
    status: 400,
    body: {
      Error: {
        Code: 'ParameterValueInvalid',
        Message:
          "The message attribute 'status' must contain non-empty message attribute value for message attribute type 'String'.",
        Type: 'Sender',
      },
      RequestId: expect.any(String),
    },
  });
});

test('a parameter named __proto__ is a key like any other, and changes no object', async () => {
  const url = services.endpoints.AWS_ENDPOINT_URL_SNS;
  const answer = await signedPost(url, 'Action=ListTopics&Version=2010-03-31&__proto__.polluted=yes');
  expect(answer.status).toBe(200);
  expect(await answer.text()).toContain(`<TopicArn>${topicArn('orders')}</TopicArn>`);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('topics are created, described and deleted; an unknown topic is NotFound', async () => {
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'made', Attributes: { DisplayName: 'Made' } }));
  expect(TopicArn).toBe(topicArn('made'));
  const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn }));
  expect(Attributes).toMatchObject({ TopicArn, DisplayName: 'Made', Owner: localAws.accountId });
  await sns.send(new DeleteTopicCommand({ TopicArn }));
  // "Publish" Errors: NotFound (404), which the SDK names NotFoundException.
  await expect(sns.send(new PublishCommand({ TopicArn, Message: 'x' }))).rejects.toMatchObject({
    name: 'NotFoundException',
    $metadata: { httpStatusCode: 404 },
  });
});

// boto3 speaks the same query protocol and reads AWS_ENDPOINT_URL_SNS ("Service-specific endpoints", AWS SDKs and
// Tools Reference Guide, https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html).
test('boto3 publishes to a topic through AWS_ENDPOINT_URL_SNS', async () => {
  const script = [
    'import boto3',
    'sns = boto3.client("sns")',
    `print(sns.publish(TopicArn="${topicArn('orders')}", Message="from python")["MessageId"])`,
  ].join('\n');
  const { stdout } = await promisify(execFile)('python3', ['-c', script], {
    env: {
      PATH: process.env.PATH,
      AWS_ENDPOINT_URL_SNS: services.endpoints.AWS_ENDPOINT_URL_SNS,
      AWS_REGION: localAws.region,
      AWS_DEFAULT_REGION: localAws.region,
      AWS_ACCESS_KEY_ID: localAws.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localAws.credentials.secretAccessKey,
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    },
  });
  expect((await drain('raw')).map(({ Body, MessageId }) => [Body, MessageId])).toEqual([
    ['from python', expect.any(String)],
  ]);
  expect(stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
  await drain('wrapped');
}, 30_000);

test('topics, subscriptions and the signing key survive a restart; a damaged file of either refuses the start', async () => {
  await sns.send(new CreateTopicCommand({ Name: 'kept' }));
  await sns.send(new PublishCommand({ TopicArn: topicArn('orders'), Message: 'signed before the restart' }));
  const [wrapped] = await drain('wrapped');
  await drain('raw');
  await stop();
  await start();
  const { Topics = [] } = await sns.send(new ListTopicsCommand({}));
  expect(Topics.map(({ TopicArn }) => TopicArn)).toContain(topicArn('kept'));
  // The key is the data folder's (sns-signing.ts): the certificate served now, on this start's port, signed it.
  const envelope = JSON.parse(wrapped?.Body ?? '{}') as Record<string, string>;
  const { pathname } = new URL(envelope.SigningCertURL ?? '');
  const SigningCertURL = `${services.endpoints.AWS_ENDPOINT_URL_SNS}${pathname}`;
  expect(await verifies({ ...envelope, SigningCertURL })).toBe(true);
  await stop();
  for (const name of ['sns.json', 'sns-signing.json']) {
    const file = join(dataDir, 'services', name);
    const kept = readFileSync(file, 'utf8');
    writeFileSync(file, '{ not json');
    const refused = startLocalServices({ dataDir, seeds, log: () => undefined });
    await expect(refused).rejects.toThrow(RunnerError);
    await expect(refused).rejects.toThrow(file);
    writeFileSync(file, kept);
  }
  await start();
});
