// Sample events of the sources that feed functions, in the shapes AWS documents for each (the "Using Lambda with ..."
// pages of the Lambda developer guide: "Example Amazon SQS message event", "Example SNS message event", "Amazon
// EventBridge events", "Example Amazon S3 notification event", "Example DynamoDB stream event", "Example Kinesis
// event"), with our own values: the runner's region and account (local-aws.ts), fresh ids and the current time.
// `cdk-local-runner generate-event` prints them, as `sam local generate-event` does, to invoke a function with.
import { createHash, randomUUID } from 'node:crypto';
import { localAws } from '../app/local-aws.ts';
import { RunnerError } from '../errors.ts';

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

/** An SQS event of one message, as an event source mapping delivers it ("Using Lambda with Amazon SQS"). */
const sqsReceive = ({ body = 'Hello from the local runner', name = 'local-queue' }: SampleOptions) => {
  const sent = String(now().getTime());
  return {
    Records: [
      {
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
        md5OfBody: md5(body),
        eventSource: 'aws:sqs',
        eventSourceARN: arn('sqs', name),
        awsRegion: region,
      },
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

/** An S3 notification of an object created by a PUT ("Event message structure" of S3 event notifications). */
const s3Put = ({
  name = 'local-bucket',
  key = 'sample/object.txt',
  body = 'Hello from the local runner',
}: SampleOptions) => ({
  Records: [
    {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: region,
      eventTime: now().toISOString(),
      eventName: 'ObjectCreated:Put',
      userIdentity: { principalId: `AWS:AIDA${digits(17)}` },
      requestParameters: { sourceIPAddress: '127.0.0.1' },
      responseElements: { 'x-amz-request-id': digits(16), 'x-amz-id-2': Buffer.from(randomUUID()).toString('base64') },
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'local-notification',
        bucket: {
          name,
          ownerIdentity: { principalId: `A${digits(13)}` },
          arn: `arn:${localAws.partition}:s3:::${name}`,
        },
        object: {
          key: encodeURIComponent(key).replaceAll('%2F', '/'),
          size: Buffer.byteLength(body),
          eTag: md5(body),
          sequencer: now().getTime().toString(16).toUpperCase(),
        },
      },
    },
  ],
});

/** A DynamoDB stream record of an item inserted, NEW_AND_OLD_IMAGES ("Using Lambda with DynamoDB"). */
const dynamodbInsert = ({
  name = 'local-table',
  key = 'sample-id',
  body = 'Hello from the local runner',
}: SampleOptions) => {
  const keys = { id: { S: key } };
  return {
    Records: [
      {
        eventID: randomUUID().replaceAll('-', ''),
        eventName: 'INSERT',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: region,
        dynamodb: {
          ApproximateCreationDateTime: Math.floor(now().getTime() / 1000),
          Keys: keys,
          NewImage: { ...keys, message: { S: body } },
          SequenceNumber: digits(21),
          SizeBytes: Buffer.byteLength(JSON.stringify({ ...keys, message: { S: body } })),
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
        eventSourceARN: arn('dynamodb', `table/${name}/stream/${now().toISOString().replace(/Z$/, '')}`),
      },
    ],
  };
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

/** Each service's samples, by kind: what `generate-event <service> <kind>` prints. */
export const sampleEvents: Record<string, Record<string, (options: SampleOptions) => unknown>> = {
  sqs: { 'receive-message': sqsReceive },
  sns: { notification: snsNotification },
  eventbridge: { event: eventBridgeEvent, scheduled: scheduledEvent },
  s3: { put: s3Put },
  dynamodb: { insert: dynamodbInsert },
  kinesis: { 'get-records': kinesisRecord },
};
