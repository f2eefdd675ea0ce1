// The local SQS over the query protocol that older clients speak: a form-encoded `Action=...` POST answered in XML
// ("Interpreting Amazon SQS XML API responses", Amazon SQS Developer Guide,
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-xml-api-responses.html; each
// action's query example in the Amazon SQS API Reference, e.g.
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html). Driven by the AWS SDK
// for JavaScript v2 (2.1001.0, whose SQS client speaks the query protocol) unchanged, and by hand, signed by aws4.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import AWS from 'aws-sdk';
import aws4 from 'aws4';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { startLocalServices } from '../../src/services/local-services.ts';

const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  queues: [{ source: 'App/Orders', name: 'orders', attributes: {} }],
};

let services: Awaited<ReturnType<typeof startLocalServices>>;
let sqs: AWS.SQS;

beforeAll(async () => {
  services = await startLocalServices({ dataDir: undefined, seeds, log: () => undefined });
  sqs = new AWS.SQS({ endpoint: services.urls.sqs, region: localAws.region, credentials: localAws.credentials });
});
afterAll(async () => {
  await services.close();
});

/** `form` POSTed to `path` as the query protocol's clients post it, signed by aws4 for sqs, or not signed at all. */
const post = async (form: Record<string, string>, sign = true, path = '/') => {
  const url = new URL(services.urls.sqs);
  const body = new URLSearchParams(form).toString();
  const request = {
    host: url.host,
    path,
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    service: 'sqs',
    region: localAws.region,
  };
  const headers = (sign ? aws4.sign(request, localAws.credentials) : request).headers as Record<string, string>;
  const response = await fetch(`${services.urls.sqs}${path}`, { method: 'POST', headers, body });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

test('the SDK v2 client sends, receives (attributes included), deletes in a batch and reads the queue', async () => {
  const { QueueUrl = '' } = await sqs.getQueueUrl({ QueueName: 'orders' }).promise();
  expect(QueueUrl).toBe(`${services.urls.sqs}/${localAws.accountId}/orders`);
  // The client checks MD5OfMessageBody against the body it sent.
  const sent = await sqs
    .sendMessage({
      QueueUrl,
      MessageBody: 'a <body> & "quotes"\r\nwith a carriage return',
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'new' } },
    })
    .promise();
  expect(sent.MessageId).toEqual(expect.any(String));
  const batch = await sqs
    .sendMessageBatch({ QueueUrl, Entries: [{ Id: 'two', MessageBody: 'second', DelaySeconds: 0 }] })
    .promise();
  expect(batch.Successful.map(({ Id }) => Id)).toEqual(['two']);

  const { Messages = [] } = await sqs
    .receiveMessage({ QueueUrl, MaxNumberOfMessages: 10, AttributeNames: ['All'], MessageAttributeNames: ['All'] })
    .promise();
  expect(Messages.map(({ Body }) => Body)).toEqual(['a <body> & "quotes"\r\nwith a carriage return', 'second']);
  expect(Messages[0]?.MessageAttributes).toMatchObject({ kind: { DataType: 'String', StringValue: 'new' } });
  expect(Messages[0]?.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: localAws.accountId });

  const deleted = await sqs
    .deleteMessageBatch({
      QueueUrl,
      Entries: [
        ...Messages.map(({ ReceiptHandle = '' }, index) => ({ Id: `m${index}`, ReceiptHandle })),
        { Id: 'bad', ReceiptHandle: 'not-a-receipt-handle' },
      ],
    })
    .promise();
  expect(deleted.Successful.map(({ Id }) => Id)).toEqual(['m0', 'm1']);
  expect(deleted.Failed).toEqual([expect.objectContaining({ Id: 'bad', Code: 'ReceiptHandleIsInvalid' })]);
  const { Attributes } = await sqs
    .getQueueAttributes({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'VisibilityTimeout'] })
    .promise();
  expect(Attributes).toEqual({ ApproximateNumberOfMessages: '0', VisibilityTimeout: '30' });
});

test('the SDK v2 client creates a queue with attributes, lists it, and reads the query error codes', async () => {
  const { QueueUrl = '' } = await sqs
    .createQueue({ QueueName: 'made-by-v2', Attributes: { VisibilityTimeout: '45' } })
    .promise();
  expect((await sqs.listQueues({ QueueNamePrefix: 'made-' }).promise()).QueueUrls).toEqual([QueueUrl]);
  expect((await sqs.getQueueAttributes({ QueueUrl, AttributeNames: ['All'] }).promise()).Attributes).toMatchObject({
    VisibilityTimeout: '45',
  });
  await sqs.deleteQueue({ QueueUrl }).promise();
  // The queue's absence, by the code the query protocol gives it (the API reference's QueueDoesNotExist).
  await expect(sqs.getQueueUrl({ QueueName: 'made-by-v2' }).promise()).rejects.toMatchObject({
    code: 'AWS.SimpleQueueService.NonExistentQueue',
    statusCode: 400,
  });
});

test('an answer is the XML of the query examples: <Action>Response, <Action>Result, ResponseMetadata', async () => {
  const answer = await post({ Action: 'GetQueueUrl', QueueName: 'orders', Version: '2012-11-05' });
  expect(answer.status).toBe(200);
  expect(answer.type).toBe('text/xml');
  expect(answer.text).toMatch(
    new RegExp(
      `^<\\?xml version="1.0"\\?><GetQueueUrlResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><GetQueueUrlResult><QueueUrl>${services.urls.sqs}/${localAws.accountId}/orders</QueueUrl></GetQueueUrlResult><ResponseMetadata><RequestId>[0-9a-f-]{36}</RequestId></ResponseMetadata></GetQueueUrlResponse>$`,
    ),
  );
});

test('an error is an ErrorResponse with its Type, Code and Message; an unsigned call is refused', async () => {
  const unknown = await post({ Action: 'GetQueueUrl', QueueName: 'nowhere', Version: '2012-11-05' });
  expect(unknown.status).toBe(400);
  expect(unknown.text).toMatch(
    /<ErrorResponse><Error><Type>Sender<\/Type><Code>AWS\.SimpleQueueService\.NonExistentQueue<\/Code><Message>The specified queue does not exist\.<\/Message><Detail\/><\/Error><RequestId>[0-9a-f-]{36}<\/RequestId><\/ErrorResponse>$/,
  );
  const action = await post({ Action: 'FlyAway', Version: '2012-11-05' });
  expect(action.text).toMatch(/<Code>InvalidAction<\/Code>/);
  const unsigned = await post({ Action: 'ListQueues', Version: '2012-11-05' }, false);
  expect(unsigned.status).toBe(403);
  expect(unsigned.text).toMatch(/<Code>MissingAuthenticationToken<\/Code>/);
});

test("a call posted to the queue's URL with no QueueUrl works on that queue, as older clients post them", async () => {
  const path = `/${localAws.accountId}/orders`;
  const sent = await post({ Action: 'SendMessage', MessageBody: 'to the path', Version: '2012-11-05' }, true, path);
  expect(sent.status).toBe(200);
  expect(sent.text).toMatch(
    /<SendMessageResult><MessageId>[0-9a-f-]{36}<\/MessageId><MD5OfMessageBody>[0-9a-f]{32}<\/MD5OfMessageBody><\/SendMessageResult>/,
  );
  const received = await post(
    { Action: 'ReceiveMessage', 'AttributeName.1': 'ApproximateReceiveCount', Version: '2012-11-05' },
    true,
    path,
  );
  expect(received.text).toMatch(
    /<Message><MessageId>[^<]+<\/MessageId><ReceiptHandle>[^<]+<\/ReceiptHandle><MD5OfBody>[0-9a-f]{32}<\/MD5OfBody><Body>to the path<\/Body><Attribute><Name>ApproximateReceiveCount<\/Name><Value>1<\/Value><\/Attribute><\/Message>/,
  );
});
