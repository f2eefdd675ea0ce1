// Sample events of the sources that feed functions, in the shapes AWS documents for each (API Gateway's "Input format
// of a Lambda function for proxy integration" and HTTP APIs' payload format 2.0; the "Using Lambda with ..." pages of
// the Lambda developer guide: "Example Amazon SQS message event", "Example SNS message event", "Amazon
// EventBridge events", "Example Amazon S3 notification event", "Example DynamoDB stream event", "Example Kinesis
// event"), with our own values: the runner's region and account (local-aws.ts), fresh ids and the current time.
// `cdk-local-runner generate-event` prints them, as `sam local generate-event` does, to invoke a function with.
import { createHash, randomUUID } from 'node:crypto';
import { localAws } from '../app/local-aws.ts';
import { RunnerError } from '../errors.ts';
import type { ObjectChange } from '../services/s3-change.ts';
import { s3Event } from './s3-events.ts';

/** What a sample may be given: its body (a message, a detail, data), the name of its resource, an object's key. */
export interface SampleOptions {
  body?: string | undefined;
  name?: string | undefined;
  key?: string | undefined;
}

const { region, accountId: account } = localAws;
const arn = (service: string, resource: string) =>
  `arn:${localAws.partition}:${service}:${region}:${account}:${resource}`;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const now = () => new Date();
const digits = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 10)).join('');

/** An SQS message as a record of Lambda's SQS event shows it (the poller's, and the sample's). */
export interface SqsMessageFields {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
  messageAttributes: Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;
  /** The queue's name. */
  queue: string;
}

/**
 * One record of an SQS event, as an event source mapping delivers it ("Using Lambda with Amazon SQS", "Example
 * standard queue message event"): message attributes in the event's camelCase form.
 */
export const sqsRecord = ({
  messageId,
  receiptHandle,
  body,
  attributes,
  messageAttributes,
  queue,
}: SqsMessageFields) => ({
  messageId,
  receiptHandle,
  body,
  attributes,
  messageAttributes: Object.fromEntries(
    Object.entries(messageAttributes).map(([name, { DataType, StringValue, BinaryValue }]) => [
      name,
      {
        ...(StringValue !== undefined && { stringValue: StringValue }),
        ...(BinaryValue !== undefined && { binaryValue: BinaryValue }),
        stringListValues: [],
        binaryListValues: [],
        dataType: DataType,
      },
    ]),
  ),
  md5OfBody: md5(body),
  eventSource: 'aws:sqs',
  eventSourceARN: arn('sqs', queue),
  awsRegion: region,
});

/** An SQS event of one message, as an event source mapping delivers it ("Using Lambda with Amazon SQS"). */
const sqsReceive = ({ body = 'Hello from the local runner', name = 'local-queue' }: SampleOptions) => {
  const sent = String(now().getTime());
  return {
    Records: [
      sqsRecord({
        messageId: randomUUID(),
        receiptHandle: Buffer.from(randomUUID()).toString('base64'),
        body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: sent,
          SenderId: `AIDA${digits(17)}`,
          ApproximateFirstReceiveTimestamp: sent,
        },
        messageAttributes: {},
        queue: name,
      }),
    ],
  };
};

/** An SNS event of one notification, as a subscription delivers it to a function ("Using Lambda with Amazon SNS"). */
const snsNotification = ({ body = 'Hello from the local runner', name = 'local-topic' }: SampleOptions) => {
  const topicArn = arn('sns', name);
  const subscriptionArn = `${topicArn}:${randomUUID()}`;
  return {
    Records: [
      {
        EventVersion: '1.0',
        EventSubscriptionArn: subscriptionArn,
        EventSource: 'aws:sns',
        Sns: {
          SignatureVersion: '1',
          Timestamp: now().toISOString(),
          Signature: Buffer.from(`local signature of ${randomUUID()}`).toString('base64'),
          SigningCertUrl: `https://sns.${region}.${localAws.urlSuffix}/SimpleNotificationService-local.pem`,
          MessageId: randomUUID(),
          Message: body,
          MessageAttributes: {},
          Type: 'Notification',
          UnsubscribeUrl: `https://sns.${region}.${localAws.urlSuffix}/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
          TopicArn: topicArn,
          Subject: 'Local sample',
        },
      },
    ],
  };
};

/** An event's detail: a JSON object. */
const detailOf = (body: string) => {
  try {
    const detail = JSON.parse(body) as unknown;
    if (typeof detail === 'object' && detail !== null && !Array.isArray(detail)) return detail;
  } catch {
    // said below
  }
  throw new RunnerError(`--body ${body}: an event's detail is a JSON object`);
};

/** An event of a bus, as a rule's target gets it ("Amazon EventBridge events": the envelope's fields). */
const eventBridgeEvent = ({ body = '{"message":"Hello from the local runner"}', name }: SampleOptions) => ({
  version: '0',
  id: randomUUID(),
  'detail-type': name ?? 'Local Sample',
  source: 'local.sample',
  account,
  time: now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z'),
  region,
  resources: [],
  detail: detailOf(body),
});

/** A schedule rule's event ("Creating an Amazon EventBridge rule that runs on a schedule"). */
const scheduledEvent = ({ name = 'local-schedule' }: SampleOptions) => ({
  ...eventBridgeEvent({ body: '{}' }),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  resources: [arn('events', `rule/${name}`)],
});

/** An object's change as the local S3 would report it: `--name` the bucket, `--key` the key, `--body` its content. */
const objectChange = (
  eventName: ObjectChange['eventName'],
  { name = 'local-bucket', key = 'sample/object.txt', body = 'Hello from the local runner' }: SampleOptions,
): ObjectChange => ({
  bucket: name,
  key,
  eventName,
  size: Buffer.byteLength(body),
  eTag: md5(body),
  sequencer: now().getTime().toString(16).toUpperCase().padStart(18, '0'),
  time: now(),
  sourceIp: '127.0.0.1',
  requestId: digits(16),
});

/** S3's notification of an object created by a PUT ("Event message structure" of S3 event notifications). */
const s3Put = (options: SampleOptions) => s3Event(objectChange('ObjectCreated:Put', options), 'local-notification');

/** S3's notification of an object deleted (no size, no ETag). */
const s3Delete = (options: SampleOptions) =>
  s3Event(objectChange('ObjectRemoved:Delete', options), 'local-notification');

/** A record as the DynamoDB Streams API's GetRecords gives it (its wire JSON: the time in epoch seconds). */
interface DynamodbStreamsRecord {
  eventID: string;
  eventName: string;
  eventVersion: string;
  eventSource: string;
  awsRegion: string;
  dynamodb: Record<string, unknown>;
  userIdentity?: { PrincipalId: string; Type: string };
}

/**
 * One record of a DynamoDB stream event, as an event source mapping delivers it ("Using Lambda with DynamoDB",
 * "Example event"): the API's record with the stream's ARN, and its userIdentity (a TTL deletion's, "DynamoDB Streams
 * and Time to Live") in the event's camelCase form. (A stream poller may export it and share it, as sqsRecord is.)
 */
const dynamodbEventRecord = ({ userIdentity, ...record }: DynamodbStreamsRecord, streamArn: string) => ({
  ...record,
  eventSourceARN: streamArn,
  ...(userIdentity && { userIdentity: { type: userIdentity.Type, principalId: userIdentity.PrincipalId } }),
});

/**
 * A DynamoDB stream event of one record, NEW_AND_OLD_IMAGES ("Using Lambda with DynamoDB"): an item inserted, modified
 * or removed, or removed by TTL (its userIdentity the service's).
 */
const dynamodbChange =
  (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', byTtl = false) =>
  ({ name = 'local-table', key = 'sample-id', body = 'Hello from the local runner' }: SampleOptions) => {
    const keys = { id: { S: key } };
    const newImage = { ...keys, message: { S: body } };
    const oldImage = { ...keys, message: { S: 'Before the change' } };
    const images = {
      ...(eventName !== 'REMOVE' && { NewImage: newImage }),
      ...(eventName !== 'INSERT' && { OldImage: eventName === 'REMOVE' ? newImage : oldImage }),
    };
    const record: DynamodbStreamsRecord = {
      eventID: randomUUID().replaceAll('-', ''),
      eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(now().getTime() / 1000),
        Keys: keys,
        ...images,
        SequenceNumber: `1${digits(20)}`,
        SizeBytes: Buffer.byteLength(JSON.stringify({ keys, ...images })),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
      ...(byTtl && { userIdentity: { PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' } }),
    };
    const streamArn = arn('dynamodb', `table/${name}/stream/${now().toISOString().replace(/Z$/, '')}`);
    return { Records: [dynamodbEventRecord(record, streamArn)] };
  };

/** A Kinesis event of one record, its data base64 ("Using Lambda with Kinesis Data Streams"). */
const kinesisRecord = ({
  name = 'local-stream',
  key = 'sample-partition',
  body = 'Hello from the local runner',
}: SampleOptions) => {
  const sequenceNumber = digits(56);
  return {
    Records: [
      {
        kinesis: {
          kinesisSchemaVersion: '1.0',
          partitionKey: key,
          sequenceNumber,
          data: Buffer.from(body).toString('base64'),
          approximateArrivalTimestamp: now().getTime() / 1000,
        },
        eventSource: 'aws:kinesis',
        eventVersion: '1.0',
        eventID: `shardId-000000000000:${sequenceNumber}`,
        eventName: 'aws:kinesis:record',
        invokeIdentityArn: `arn:${localAws.partition}:iam::${account}:role/local-function-role`,
        awsRegion: region,
        eventSourceARN: arn('kinesis', `stream/${name}`),
      },
    ],
  };
};

/** The headers a sample request carries, as a client's would be. */
const requestHeaders = (body: string | undefined) => ({
  accept: '*/*',
  host: 'abcdef1234.execute-api.us-east-1.amazonaws.com',
  'user-agent': 'curl/8.5.0',
  ...(body !== undefined && { 'content-type': 'application/json' }),
});

/** The `[day/Mon/year:hh:mm:ss +0000]` time API Gateway's events give, of `date`. */
const gatewayTime = (date: Date) => {
  const [, day, month, year, time] = /^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/.exec(date.toUTCString()) ?? [];
  return `${day}/${month}/${year}:${time} +0000`;
};

/**
 * A REST API's Lambda proxy event of one request ("Input format of a Lambda function for proxy integration", API
 * Gateway developer guide): `--name` is the path, `--body` the body.
 */
const restProxy = ({ body, name = '/plants' }: SampleOptions) => {
  const date = now();
  const headers = requestHeaders(body);
  const method = body === undefined ? 'GET' : 'POST';
  return {
    resource: name,
    path: name,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([header, value]) => [header, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      accountId: account,
      apiId: 'abcdef1234',
      domainName: headers.host,
      domainPrefix: 'abcdef1234',
      extendedRequestId: randomUUID(),
      httpMethod: method,
      identity: {
        sourceIp: '127.0.0.1',
        userAgent: headers['user-agent'],
        accessKey: null,
        accountId: null,
        caller: null,
        user: null,
        userArn: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
      },
      path: `/prod${name}`,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTime: gatewayTime(date),
      requestTimeEpoch: date.getTime(),
      resourceId: 'a1b2c3',
      resourcePath: name,
      stage: 'prod',
    },
    body: body ?? null,
    isBase64Encoded: false,
  };
};

/**
 * An HTTP API's Lambda event, payload format 2.0 ("Create AWS Lambda proxy integrations for HTTP APIs in API
 * Gateway"), of one request: `--name` is the path, `--body` the body.
 */
const httpApiProxy = ({ body, name = '/plants' }: SampleOptions) => {
  const date = now();
  const headers = requestHeaders(body);
  const method = body === undefined ? 'GET' : 'POST';
  return {
    version: '2.0',
    routeKey: `${method} ${name}`,
    rawPath: name,
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: account,
      apiId: 'abcdef1234',
      domainName: headers.host,
      domainPrefix: 'abcdef1234',
      http: { method, path: name, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent'] },
      requestId: randomUUID(),
      routeKey: `${method} ${name}`,
      stage: '$default',
      time: gatewayTime(date),
      timeEpoch: date.getTime(),
    },
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  };
};

/** Each service's samples, by kind: what `generate-event <service> <kind>` prints. */
export const sampleEvents: Record<string, Record<string, (options: SampleOptions) => unknown>> = {
  apigateway: { 'aws-proxy': restProxy, 'http-api-proxy': httpApiProxy },
  sqs: { 'receive-message': sqsReceive },
  sns: { notification: snsNotification },
  eventbridge: { event: eventBridgeEvent, scheduled: scheduledEvent },
  s3: { put: s3Put, delete: s3Delete },
  dynamodb: {
    insert: dynamodbChange('INSERT'),
    modify: dynamodbChange('MODIFY'),
    remove: dynamodbChange('REMOVE'),
    'ttl-remove': dynamodbChange('REMOVE', true),
  },
  kinesis: { 'get-records': kinesisRecord },
};
