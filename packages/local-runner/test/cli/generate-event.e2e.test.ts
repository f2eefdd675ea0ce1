// `cdk-local-runner generate-event`: each sample, printed by the command as a user runs it, is judged by
// @aws-lambda-powertools/parser's schema of its source (written from the events AWS documents and captured on AWS,
// aws-powertools/powertools-lambda-typescript, packages/parser/src/schemas/), and carries what the options give it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  APIGatewayProxyEventSchema,
  APIGatewayProxyEventV2Schema,
  DynamoDBStreamSchema,
  EventBridgeSchema,
  KinesisDataStreamSchema,
  S3Schema,
  SnsSchema,
  SqsSchema,
} from '@aws-lambda-powertools/parser/schemas';
import { describe, expect, test } from '@jest/globals';
import { runnerBin } from '../helpers/runner-process.ts';

const generate = (...args: string[]) => {
  const run = spawnSync(process.execPath, [runnerBin, 'generate-event', ...args], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

const sample = (...args: string[]) => {
  const run = generate(...args);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Record<string, unknown> & { Records: Record<string, unknown>[] };
};

describe('each sample passes its source schema', () => {
  test.each([
    ['apigateway', 'aws-proxy', APIGatewayProxyEventSchema],
    ['apigateway', 'http-api-proxy', APIGatewayProxyEventV2Schema],
    ['sqs', 'receive-message', SqsSchema],
    ['sns', 'notification', SnsSchema],
    ['eventbridge', 'event', EventBridgeSchema],
    ['eventbridge', 'scheduled', EventBridgeSchema],
    ['s3', 'put', S3Schema],
    ['s3', 'delete', S3Schema],
    ['dynamodb', 'insert', DynamoDBStreamSchema],
    ['dynamodb', 'modify', DynamoDBStreamSchema],
    ['dynamodb', 'remove', DynamoDBStreamSchema],
    ['dynamodb', 'ttl-remove', DynamoDBStreamSchema],
    ['kinesis', 'get-records', KinesisDataStreamSchema],
  ])('%s %s', (service, kind, schema) => {
    expect(schema.safeParse(sample(service, kind)).error).toBeUndefined();
  });
});

// "Using Lambda with DynamoDB" (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html): a MODIFY record has both
// images, a REMOVE the old one; "DynamoDB Streams and Time to Live"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html): a TTL deletion's
// record names the service as its userIdentity.
test.each([
  ['insert', 'INSERT', ['NewImage'], false],
  ['modify', 'MODIFY', ['NewImage', 'OldImage'], false],
  ['remove', 'REMOVE', ['OldImage'], false],
  ['ttl-remove', 'REMOVE', ['OldImage'], true],
])('dynamodb %s is an %s record with its images, a TTL deletion naming the service', (kind, eventName, images, ttl) => {
  const [record] = sample('dynamodb', kind).Records as { eventName: string; dynamodb: object; userIdentity?: object }[];
  expect(record?.eventName).toBe(eventName);
  expect(Object.keys(record?.dynamodb ?? {}).filter((name) => name.endsWith('Image'))).toEqual(images);
  expect(record?.userIdentity).toEqual(ttl ? { type: 'Service', principalId: 'dynamodb.amazonaws.com' } : undefined);
});

test('the options give the body, the resource and the key', () => {
  const sqs = sample('sqs', 'receive-message', '--body', 'fern', '--name', 'plants');
  expect(sqs.Records[0]).toMatchObject({
    body: 'fern',
    md5OfBody: createHash('md5').update('fern').digest('hex'),
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:plants',
  });
  const event = sample('eventbridge', 'event', '--body', '{"plant":"fern"}', '--name', 'Plant Added');
  expect(event).toMatchObject({ 'detail-type': 'Plant Added', detail: { plant: 'fern' } });
  const s3 = sample('s3', 'put', '--name', 'garden', '--key', 'beds/north bed.txt');
  // "The object key name value is URL encoded. For example, "red flower.jpg" becomes "red+flower.jpg"" ("Event
  // message structure", https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html).
  expect(s3.Records[0]).toMatchObject({ s3: { bucket: { name: 'garden' }, object: { key: 'beds/north+bed.txt' } } });
  const removed = sample('s3', 'delete', '--name', 'garden', '--key', 'old (1).txt');
  expect(removed.Records[0]).toMatchObject({
    eventName: 'ObjectRemoved:Delete',
    s3: { object: { key: 'old+%281%29.txt' } },
  });
  expect(removed.Records[0]?.s3).not.toHaveProperty('object.size');
  const rest = sample('apigateway', 'aws-proxy', '--body', '{"id":1}', '--name', '/plants/1');
  expect(rest).toMatchObject({ httpMethod: 'POST', path: '/plants/1', body: '{"id":1}' });
  const http = sample('apigateway', 'http-api-proxy', '--name', '/plants');
  expect(http).toMatchObject({ routeKey: 'GET /plants', rawPath: '/plants' });
  expect(http).not.toHaveProperty('body');
  const kinesis = sample('kinesis', 'get-records', '--body', 'fern');
  expect(kinesis.Records[0]).toMatchObject({ kinesis: { data: Buffer.from('fern').toString('base64') } });
});

test('without a kind, the samples are listed; an unknown one, or a detail that is no JSON object, is refused', () => {
  expect(generate().stdout).toMatch(
    /apigateway +aws-proxy, http-api-proxy\n.*sqs +receive-message\n.*sns +notification/s,
  );
  expect(generate('sqs', 'send')).toMatchObject({
    status: 1,
    stderr: expect.stringMatching(/no sample send of sqs: receive-message/),
  });
  expect(generate('ses', 'receive')).toMatchObject({ status: 1, stderr: expect.stringMatching(/no samples of ses/) });
  expect(generate('eventbridge', 'event', '--body', '[1]')).toMatchObject({
    status: 1,
    stderr: expect.stringMatching(/--body \[1\]: an event's detail is a JSON object/),
  });
});
