// The template's event source mappings read as their pollers run them: "AWS::Lambda::EventSourceMapping"
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-eventsourcemapping.html,
// CloudFormation Template Reference), with the defaults and limits of "Lambda parameters for Amazon SQS event source
// mappings" (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html).
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
  const seeds = read({ EventSourceArn: arn('kinesis', 'stream/clicks') });
  expect(seeds.mappings).toEqual([]);
  expect(seeds.notices).toEqual([
    `App/Mapping: an event source mapping of ${arn('kinesis', 'stream/clicks')}: not served locally (only SQS queues are)`,
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
