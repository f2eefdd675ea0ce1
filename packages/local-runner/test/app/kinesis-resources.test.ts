// The template's Kinesis streams read as the local Kinesis is seeded with them, their values through the template
// evaluator: "AWS::Kinesis::Stream" (CloudFormation Template Reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-kinesis-stream.html): Name ("If
// you don't specify a name, AWS CloudFormation generates a unique physical ID and uses that ID for the stream name"),
// ShardCount, StreamModeDetails, RetentionPeriodHours; Ref returns the stream's name, Fn::GetAtt Arn its ARN.
import { expect, test } from '@jest/globals';
import { type CfnResource, UnsupportedTemplateError } from '../../src/app/cfn.ts';
import { resolveValue, type ValueContext } from '../../src/app/intrinsics.ts';
import { kinesisSeedsOf } from '../../src/app/kinesis-resources.ts';
import { serviceSeedsOf } from '../../src/app/service-resources.ts';

const stack = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources,
  exports: new Map(),
});

const app = stack({
  Orders: {
    Type: 'AWS::Kinesis::Stream',
    Properties: {
      Name: { 'Fn::Join': ['-', ['orders', { Ref: 'AWS::Region' }]] },
      ShardCount: 3,
      RetentionPeriodHours: 48,
    },
  },
  // As the CDK's `new Stream(stack, 'Clicks')` writes it: its encryption under a condition, not applied locally.
  Clicks: {
    Type: 'AWS::Kinesis::Stream',
    Properties: {
      RetentionPeriodHours: 24,
      ShardCount: 1,
      StreamEncryption: {
        'Fn::If': [
          'AwsCdkKinesisEncryptedStreamsUnsupportedRegions',
          { Ref: 'AWS::NoValue' },
          { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
        ],
      },
    },
  },
  Flow: { Type: 'AWS::Kinesis::Stream', Properties: { StreamModeDetails: { StreamMode: 'ON_DEMAND' } } },
});

test('each stream: its name (given or generated), mode, shard count and retention period', () => {
  expect(kinesisSeedsOf([app])).toEqual([
    { source: 'App/Orders', name: 'orders-us-east-1', mode: 'PROVISIONED', shardCount: 3, retentionHours: 48 },
    {
      source: 'App/Clicks',
      name: expect.stringMatching(/^App-Clicks-[A-Za-z0-9]{12}$/),
      mode: 'PROVISIONED',
      shardCount: 1,
      retentionHours: 24,
    },
    {
      source: 'App/Flow',
      name: expect.stringMatching(/^App-Flow-[A-Za-z0-9]{12}$/),
      mode: 'ON_DEMAND',
      shardCount: 1,
      retentionHours: 24,
    },
  ]);
  expect(serviceSeedsOf([app]).kinesis?.map(({ source }) => source)).toEqual(['App/Orders', 'App/Clicks', 'App/Flow']);
});

test("Ref is the stream's name, Arn its ARN; the generated name is the seeded one", () => {
  expect(resolveValue({ Ref: 'Orders' }, app)).toBe('orders-us-east-1');
  expect(resolveValue({ 'Fn::GetAtt': ['Orders', 'Arn'] }, app)).toBe(
    'arn:aws:kinesis:us-east-1:000000000000:stream/orders-us-east-1',
  );
  const generated = kinesisSeedsOf([app])[1]?.name;
  expect(resolveValue({ Ref: 'Clicks' }, app)).toBe(generated);
  expect(resolveValue({ 'Fn::GetAtt': ['Clicks', 'Arn'] }, app)).toBe(
    `arn:aws:kinesis:us-east-1:000000000000:stream/${generated}`,
  );
});

test('a value the runner cannot know, or a mode Kinesis has not, refuses the app naming the stream', () => {
  const unknown = stack({
    S: { Type: 'AWS::Kinesis::Stream', Properties: { ShardCount: { 'Fn::ImportValue': 'elsewhere' } } },
  });
  expect(() => kinesisSeedsOf([unknown])).toThrow(UnsupportedTemplateError);
  expect(() => kinesisSeedsOf([unknown])).toThrow(/App\/S: its ShardCount/);
  const mode = stack({
    S: { Type: 'AWS::Kinesis::Stream', Properties: { StreamModeDetails: { StreamMode: 'FAST' } } },
  });
  expect(() => kinesisSeedsOf([mode])).toThrow(/App\/S: its StreamMode "FAST"/);
});
