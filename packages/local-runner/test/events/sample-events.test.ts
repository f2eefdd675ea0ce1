// `generate-event`'s sample builders, in-process (cli/generate-event.e2e.test.ts runs the command): every sample, with
// the options left out and with each given, passes @aws-lambda-powertools/parser's schema of its source (written from
// the events AWS documents and captured on AWS, aws-powertools/powertools-lambda-typescript,
// packages/parser/src/schemas/), and carries what the options give it: the resource's name in its ARN or fields, the
// key, the body.
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
import { expect, test } from '@jest/globals';
import { type SampleOptions, sampleEvents } from '../../src/events/sample-events.ts';

const schemas = {
  apigateway: { 'aws-proxy': APIGatewayProxyEventSchema, 'http-api-proxy': APIGatewayProxyEventV2Schema },
  sqs: { 'receive-message': SqsSchema },
  sns: { notification: SnsSchema },
  eventbridge: { event: EventBridgeSchema, scheduled: EventBridgeSchema },
  s3: { put: S3Schema, delete: S3Schema },
  dynamodb: {
    insert: DynamoDBStreamSchema,
    modify: DynamoDBStreamSchema,
    remove: DynamoDBStreamSchema,
    'ttl-remove': DynamoDBStreamSchema,
  },
  kinesis: { 'get-records': KinesisDataStreamSchema },
} as const;

const kinds = Object.entries(sampleEvents).flatMap(([service, builders]) =>
  Object.keys(builders).map((kind) => [service, kind] as const),
);

test('every sample the command offers has a schema here (a new one fails until it gets one)', () => {
  const judged = Object.entries(schemas).flatMap(([service, byKind]) =>
    Object.keys(byKind).map((kind) => [service, kind] as const),
  );
  expect(kinds).toEqual(judged);
});

const given: SampleOptions = { name: 'given-name', key: 'given-key', body: '{"given":"body"}' };

test.each(kinds)('%s %s passes its schema, with no options and with each given', (service, kind) => {
  const build = sampleEvents[service]?.[kind] as (options: SampleOptions) => unknown;
  const schema = (schemas as Record<string, Record<string, { safeParse: (value: unknown) => { error?: unknown } }>>)[
    service
  ]?.[kind];
  // A body given to EventBridge's sample is its detail: a JSON object, as PutEvents requires.
  for (const options of [{}, given, { name: 'only-name' }, { key: 'only-key' }, { body: '{"only":"body"}' }])
    expect(schema?.safeParse(build(options)).error).toBeUndefined();
  // What the options give shows in the event (an ARN's name, a key, a body: some carry one, some all).
  const text = JSON.stringify(build(given));
  expect(['given-name', 'given-key', 'given'].some((part) => text.includes(part))).toBe(true);
});
