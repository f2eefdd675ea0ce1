// The template's EventBridge buses and rules as the local EventBridge is seeded with them, every value through the
// template evaluator: "AWS::Events::Rule" and "AWS::Events::Rule Target"
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-events-rule.html) and
// "AWS::Events::EventBus" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-events-eventbus.html),
// their return values included: a rule's Ref is `<bus>|<name>` on a custom bus, as deployed stacks answer it
// (aws-cloudformation/cloudformation-coverage-roadmap #1131).
import { expect, test } from '@jest/globals';
import { type CfnResource, UnsupportedTemplateError } from '../../src/app/cfn.ts';
import { eventSeedsOf } from '../../src/app/eventbridge-resources.ts';
import { evaluate, type ValueContext } from '../../src/app/intrinsics.ts';

const stack = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources,
  exports: new Map(),
});

const resources: Record<string, CfnResource> = {
  Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'orders' } },
  Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'seen' } },
  Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
  OnBus: {
    Type: 'AWS::Events::Rule',
    Properties: {
      EventBusName: { Ref: 'Bus' },
      EventPattern: { source: [{ 'Fn::Join': ['.', ['plant', 'store']] }] },
      Targets: [
        {
          Id: 'Q',
          Arn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
          InputTransformer: { InputPathsMap: { n: '$.detail.name' }, InputTemplate: '{"name": <n>}' },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['Queue', 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        },
        // A log group with no name: CloudFormation makes one up, so its ARN has no local value; kept, and said at start.
        { Id: 'Group', Arn: { 'Fn::GetAtt': ['Group', 'Arn'] } },
      ],
    },
  },
  Named: {
    Type: 'AWS::Events::Rule',
    Properties: { Name: 'nightly', ScheduleExpression: 'rate(1 day)', State: 'DISABLED', Targets: [] },
  },
  Group: { Type: 'AWS::Logs::LogGroup', Properties: {} },
};

test("a rule's bus, pattern and targets through the evaluator; with no Name, <stack>-<logical id>-<12 characters>", () => {
  const { buses, rules } = eventSeedsOf([stack(resources)]);
  expect(buses).toEqual([{ source: 'App/Bus', name: 'orders' }]);
  expect(rules).toEqual([
    {
      source: 'App/OnBus',
      name: expect.stringMatching(/^App-OnBus-[A-Za-z0-9]{12}$/),
      bus: 'orders',
      pattern: { source: ['plant.store'] },
      state: 'ENABLED',
      targets: [
        {
          id: 'Q',
          arn: 'arn:aws:sqs:us-east-1:000000000000:seen',
          inputTransformer: { inputPathsMap: { n: '$.detail.name' }, inputTemplate: '{"name": <n>}' },
          deadLetterArn: 'arn:aws:sqs:us-east-1:000000000000:seen',
          retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 60 },
        },
        { id: 'Group', unknown: expect.stringContaining('LogGroupName') },
      ],
    },
    {
      source: 'App/Named',
      name: 'nightly',
      bus: 'default',
      scheduleExpression: 'rate(1 day)',
      state: 'DISABLED',
      targets: [],
    },
  ]);
});

test("a bus's and a rule's return values: the bus's name and ARN; a rule's name, or <bus>|<name> on a custom bus", () => {
  const context = stack(resources);
  const name = eventSeedsOf([context]).rules[0]?.name;
  expect(evaluate({ Ref: 'Bus' }, context)).toBe('orders');
  expect(evaluate({ 'Fn::GetAtt': ['Bus', 'Arn'] }, context)).toBe(
    'arn:aws:events:us-east-1:000000000000:event-bus/orders',
  );
  expect(evaluate({ Ref: 'OnBus' }, context)).toBe(`orders|${name}`);
  expect(evaluate({ 'Fn::GetAtt': ['OnBus', 'Arn'] }, context)).toBe(
    `arn:aws:events:us-east-1:000000000000:rule/orders/${name}`,
  );
  expect(evaluate({ Ref: 'Named' }, context)).toBe('nightly');
  expect(evaluate({ 'Fn::GetAtt': ['Named', 'Arn'] }, context)).toBe(
    'arn:aws:events:us-east-1:000000000000:rule/nightly',
  );
});

test('a value the runner cannot know, or a rule EventBridge refuses, refuses the start naming the rule', () => {
  const refusing = (properties: Record<string, unknown>) => () =>
    eventSeedsOf([stack({ ...resources, Bad: { Type: 'AWS::Events::Rule', Properties: properties } })]);
  expect(refusing({ ScheduleExpression: 'rate(1 day)', Description: { Ref: 'Group' } })).toThrow(
    /^App\/Bad: its Description .* has no local value$/,
  );
  expect(refusing({ Targets: [] })).toThrow(UnsupportedTemplateError);
  expect(refusing({ Targets: [] })).toThrow('App/Bad: a rule with neither EventPattern nor ScheduleExpression');
  expect(
    refusing({
      ScheduleExpression: 'rate(1 day)',
      Targets: [{ Id: 'T', Arn: 'arn:aws:sqs:us-east-1:0:q', Input: '{}', InputPath: '$' }],
    }),
  ).toThrow('App/Bad: its target T has more than one of Input, InputPath and InputTransformer');
  expect(refusing({ EventPattern: '{"source": [', Targets: [] })).toThrow('App/Bad: its EventPattern is not JSON');
});
