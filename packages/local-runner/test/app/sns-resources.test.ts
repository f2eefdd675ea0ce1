// The template's SNS resources read as the local SNS is seeded with them, their values through the template evaluator:
// "AWS::SNS::Topic" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sns-topic.html:
// Ref returns the topic's ARN; TopicName, FifoTopic, ContentBasedDeduplication, Subscription), "AWS::SNS::Subscription"
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sns-subscription.html) and
// "AWS::SNS::TopicPolicy", CloudFormation Template Reference.
import { expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import { resolveValue, type ValueContext } from '../../src/app/intrinsics.ts';
import { snsSeedsOf } from '../../src/app/sns-resources.ts';

const stack = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources,
  exports: new Map(),
});
const arn = (name: string) => `arn:aws:sns:us-east-1:000000000000:${name}`;

const app = stack({
  Orders: { Type: 'AWS::SNS::Topic', Properties: { TopicName: 'orders', DisplayName: 'Orders' } },
  Steps: {
    Type: 'AWS::SNS::Topic',
    Properties: {
      FifoTopic: true,
      ContentBasedDeduplication: true,
      Subscription: [{ Protocol: 'sqs', Endpoint: { 'Fn::GetAtt': ['Queue', 'Arn'] } }],
    },
  },
  Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'work.fifo', FifoQueue: true } },
  Filtered: {
    Type: 'AWS::SNS::Subscription',
    Properties: {
      TopicArn: { Ref: 'Orders' },
      Protocol: 'sqs',
      Endpoint: { 'Fn::GetAtt': ['Queue', 'Arn'] },
      RawMessageDelivery: true,
      FilterPolicy: { kind: ['order'] },
      FilterPolicyScope: 'MessageAttributes',
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['Queue', 'Arn'] } },
    },
  },
  Elsewhere: {
    Type: 'AWS::SNS::Subscription',
    Properties: { TopicArn: { Ref: 'Orders' }, Protocol: 'lambda', Endpoint: { 'Fn::GetAtt': ['Far', 'Arn'] } },
  },
  Far: { Type: 'AWS::CloudFront::Distribution' },
  Policy: {
    Type: 'AWS::SNS::TopicPolicy',
    Properties: {
      Topics: [{ Ref: 'Orders' }],
      PolicyDocument: { Statement: [{ Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: 'Orders' } }] },
    },
  },
});

test("a topic's Ref is its ARN, TopicArn too, TopicName its name; none given: <stack>-<id>-<suffix>.fifo", () => {
  expect(resolveValue({ Ref: 'Orders' }, app)).toBe(arn('orders'));
  expect(resolveValue({ 'Fn::GetAtt': ['Orders', 'TopicArn'] }, app)).toBe(arn('orders'));
  expect(resolveValue({ 'Fn::GetAtt': ['Steps', 'TopicName'] }, app)).toMatch(/^App-Steps-[A-Za-z0-9]{12}\.fifo$/);
});

test('topics, inline and separate subscriptions and topic policies are read; an unknown endpoint is said', () => {
  const notices: string[] = [];
  const { topics, subscriptions } = snsSeedsOf([app], notices);
  const steps = resolveValue({ 'Fn::GetAtt': ['Steps', 'TopicName'] }, app);
  expect(topics).toEqual([
    {
      source: 'App/Orders',
      name: 'orders',
      attributes: {
        DisplayName: 'Orders',
        Policy: JSON.stringify({
          Statement: [{ Effect: 'Allow', Action: 'sns:Publish', Resource: arn('orders') }],
        }),
      },
    },
    { source: 'App/Steps', name: steps, attributes: { FifoTopic: 'true', ContentBasedDeduplication: 'true' } },
  ]);
  const queue = 'arn:aws:sqs:us-east-1:000000000000:work.fifo';
  expect(subscriptions).toEqual([
    { source: 'App/Steps/Subscription[0]', topicArn: arn(steps), protocol: 'sqs', endpoint: queue, attributes: {} },
    {
      source: 'App/Filtered',
      topicArn: arn('orders'),
      protocol: 'sqs',
      endpoint: queue,
      attributes: {
        RawMessageDelivery: 'true',
        FilterPolicy: '{"kind":["order"]}',
        FilterPolicyScope: 'MessageAttributes',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: queue }),
      },
    },
  ]);
  expect(notices).toEqual([expect.stringMatching(/^App\/Elsewhere: its Endpoint .* has no local value: not served/)]);
});
