// The template's event source mappings read as their pollers run them: "AWS::Lambda::EventSourceMapping"
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-eventsourcemapping.html,
// CloudFormation Template Reference), with the defaults and limits of "Lambda parameters for Amazon SQS event source
// mappings" (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html), "Lambda parameters for Amazon
// Kinesis Data Streams event source mappings" (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-parameters.html)
// and "Lambda parameters for Amazon DynamoDB event source mappings"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html).
import { expect, test } from '@jest/globals';
import { type CfnResource, UnsupportedTemplateError } from '../../src/app/cfn.ts';
import type { ValueContext } from '../../src/app/intrinsics.ts';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { serviceSeedsOf } from '../../src/app/service-resources.ts';

const arn = (service: string, resource: string) =>
  `arn:${localAws.partition}:${service}:${localAws.region}:${localAws.accountId}:${resource}`;

const stack = (mapping: Record<string, unknown>, more: Record<string, CfnResource> = {}): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources: {
    Work: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'work' } },
    Ordered: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'ordered.fifo', FifoQueue: true } },
    Handler: { Type: 'AWS::Lambda::Function', Properties: {} },
    Mapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { FunctionName: { Ref: 'Handler' }, EventSourceArn: { 'Fn::GetAtt': ['Work', 'Arn'] }, ...mapping },
    },
    ...more,
  },
  exports: new Map(),
});

const read = (mapping: Record<string, unknown>, more?: Record<string, CfnResource>) =>
  serviceSeedsOf([stack(mapping, more)]);

test("a queue's mapping, its values through the evaluator, with Lambda's defaults", () => {
  expect(read({}).mappings).toEqual([
    {
      source: 'App/Mapping',
      functionName: generatedFunctionName('App', 'Handler'),
      queueArn: arn('sqs', 'work'),
      enabled: true,
      batchSize: 10,
      windowSeconds: 0,
      filters: [],
      reportFailures: false,
    },
  ]);
  const given = read({
    BatchSize: 500,
    MaximumBatchingWindowInSeconds: 5,
    Enabled: false,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    FilterCriteria: { Filters: [{ Pattern: '{"body":{"kind":["keep"]}}' }] },
    ScalingConfig: { MaximumConcurrency: 2 },
  }).mappings;
  expect(given).toEqual([
    expect.objectContaining({
      enabled: false,
      batchSize: 500,
      windowSeconds: 5,
      filters: ['{"body":{"kind":["keep"]}}'],
      reportFailures: true,
      maximumConcurrency: 2,
    }),
  ]);
});

test("another source's mapping is said not served; the app is not refused", () => {
  // A Kinesis stream consumer's ARN (enhanced fan-out) is not a stream's.
  const consumer = arn('kinesis', 'stream/clicks/consumer/reader:1700000000');
  const seeds = read({ EventSourceArn: consumer });
  expect(seeds.mappings).toEqual([]);
  expect(seeds.streamMappings).toEqual([]);
  expect(seeds.notices).toEqual([
    `App/Mapping: an event source mapping of ${consumer}: not served locally (only SQS queues, Kinesis streams and DynamoDB streams are)`,
  ]);
});

test('what Lambda refuses when the mapping is created refuses the app, naming the mapping', () => {
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ BatchSize: 11 }, /App\/Mapping: has a BatchSize over 10, which needs a MaximumBatchingWindowInSeconds/],
    [{ BatchSize: 10_001, MaximumBatchingWindowInSeconds: 1 }, /BatchSize 10001 is not an integer from 1 to 10000/],
    [
      { EventSourceArn: { 'Fn::GetAtt': ['Ordered', 'Arn'] }, BatchSize: 11 },
      /BatchSize 11 is not an integer from 1 to 10/,
    ],
    [
      { EventSourceArn: { 'Fn::GetAtt': ['Ordered', 'Arn'] }, MaximumBatchingWindowInSeconds: 1 },
      /FIFO queues do not support/,
    ],
    [{ ScalingConfig: { MaximumConcurrency: 1 } }, /MaximumConcurrency 1 is not an integer from 2 to 1000/],
    [
      { FilterCriteria: { Filters: [{ Pattern: '{"body":{"kind":"keep"}}' }] } },
      /FilterCriteria pattern .* is not valid/,
    ],
    [{ FilterCriteria: { Filters: [{ Pattern: 'not json' }] } }, /FilterCriteria pattern not json is not valid/],
  ];
  for (const [mapping, message] of refusals) {
    expect(() => read(mapping)).toThrow(UnsupportedTemplateError);
    expect(() => read(mapping)).toThrow(message);
  }
});

test('a value the evaluator cannot know refuses the app, naming the mapping and the property', () => {
  expect(() => read({ FunctionName: { 'Fn::ImportValue': 'elsewhere' } })).toThrow(
    /App\/Mapping: its FunctionName .*elsewhere.* has no local value/,
  );
});

const kinesisArn = arn('kinesis', 'stream/clicks');
const tableStreamArn = arn('dynamodb', 'table/orders/stream/2026-11-29T06:00:00.000');

test("a Kinesis stream's mapping and a DynamoDB stream's, with Lambda's defaults", () => {
  const seeds = read({ EventSourceArn: kinesisArn, StartingPosition: 'TRIM_HORIZON' });
  expect(seeds.mappings).toEqual([]);
  expect(seeds.notices).toEqual([]);
  const defaults = {
    source: 'App/Mapping',
    functionName: generatedFunctionName('App', 'Handler'),
    enabled: true,
    startingPosition: 'TRIM_HORIZON',
    batchSize: 100,
    windowSeconds: 0,
    filters: [],
    reportFailures: false,
    bisect: false,
    maximumRetryAttempts: -1,
    maximumRecordAgeSeconds: -1,
    parallelization: 1,
  };
  expect(seeds.streamMappings).toEqual([{ ...defaults, streamArn: kinesisArn, kind: 'kinesis' }]);
  expect(read({ EventSourceArn: tableStreamArn, StartingPosition: 'LATEST' }).streamMappings).toEqual([
    { ...defaults, streamArn: tableStreamArn, kind: 'dynamodb', startingPosition: 'LATEST' },
  ]);
});

test("a stream mapping's settings, as given", () => {
  const [mapping] =
    read({
      EventSourceArn: kinesisArn,
      StartingPosition: 'AT_TIMESTAMP',
      StartingPositionTimestamp: 1_700_000_000,
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: { Filters: [{ Pattern: '{"data":{"kind":["keep"]}}' }] },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 2,
      MaximumRecordAgeInSeconds: 60,
      ParallelizationFactor: 4,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['Work', 'Arn'] } } },
    }).streamMappings ?? [];
  expect(mapping).toEqual(
    expect.objectContaining({
      startingPosition: 'AT_TIMESTAMP',
      startingTimestamp: 1_700_000_000,
      batchSize: 500,
      windowSeconds: 5,
      reportFailures: true,
      filters: ['{"data":{"kind":["keep"]}}'],
      bisect: true,
      maximumRetryAttempts: 2,
      maximumRecordAgeSeconds: 60,
      parallelization: 4,
      onFailure: arn('sqs', 'work'),
    }),
  );
});

test('what Lambda refuses when a stream mapping is created refuses the app, naming the mapping', () => {
  const kinesis = { EventSourceArn: kinesisArn, StartingPosition: 'LATEST' };
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ EventSourceArn: kinesisArn }, /App\/Mapping: a stream mapping with no StartingPosition/],
    [
      { EventSourceArn: tableStreamArn, StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: 1 },
      /AT_TIMESTAMP is not one of TRIM_HORIZON, LATEST/,
    ],
    [{ ...kinesis, StartingPosition: 'AT_TIMESTAMP' }, /StartingPositionTimestamp without AT_TIMESTAMP or the reverse/],
    [{ ...kinesis, StartingPositionTimestamp: 1 }, /StartingPositionTimestamp without AT_TIMESTAMP or the reverse/],
    [{ ...kinesis, BatchSize: 10_001 }, /BatchSize 10001 is not an integer from 1 to 10000/],
    [
      { ...kinesis, MaximumBatchingWindowInSeconds: 301 },
      /MaximumBatchingWindowInSeconds 301 is not an integer from 0 to 300/,
    ],
    [{ ...kinesis, MaximumRetryAttempts: -2 }, /MaximumRetryAttempts -2 is not an integer from -1 to 10000/],
    [
      { ...kinesis, MaximumRecordAgeInSeconds: 604_801 },
      /MaximumRecordAgeInSeconds 604801 is not an integer from -1 to 604800/,
    ],
    [{ ...kinesis, ParallelizationFactor: 11 }, /ParallelizationFactor 11 is not an integer from 1 to 10/],
    [{ ...kinesis, TumblingWindowInSeconds: 60 }, /TumblingWindowInSeconds: tumbling windows are not served locally/],
    [
      { ...kinesis, DestinationConfig: { OnFailure: { Destination: 'arn:aws:s3:::bucket' } } },
      /OnFailure destination arn:aws:s3:::bucket is not an SQS queue or SNS topic/,
    ],
    [
      { ...kinesis, FilterCriteria: { Filters: [{ Pattern: '{"data":"x"}' }] } },
      /FilterCriteria pattern .* is not valid/,
    ],
  ];
  for (const [mapping, message] of refusals) {
    expect(() => read(mapping)).toThrow(UnsupportedTemplateError);
    expect(() => read(mapping)).toThrow(message);
  }
});
