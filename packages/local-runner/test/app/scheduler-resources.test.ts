// AWS::Scheduler::Schedule read from a template ("AWS::Scheduler::Schedule", CloudFormation Template Reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-scheduler-schedule.html): its
// values through the template evaluator, and a schedule the runner cannot serve as AWS would left out, said naming
// the resource (it never fires on a guess). Templated targets are served; universal ones (`arn:aws:scheduler:::aws-sdk:
// <service>:<operation>`, "Using universal targets", EventBridge Scheduler User Guide,
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-targets-universal.html) are not.
import { expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import type { ValueContext } from '../../src/app/intrinsics.ts';
import { schedulesOf } from '../../src/app/scheduler-resources.ts';

const stackOf = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'Timed',
  tables: [],
  resources: {
    Inbox: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'inbox' } },
    Dlq: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'dlq' } },
    ...resources,
  },
  exports: new Map(),
});

const schedule = (properties: Record<string, unknown>): CfnResource => ({
  Type: 'AWS::Scheduler::Schedule',
  Properties: {
    ScheduleExpression: 'rate(5 minutes)',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ...properties,
    Target: { RoleArn: 'arn:aws:iam::000000000000:role/r', ...(properties.Target as object) },
  },
});

test('a schedule is read with its target through the evaluator, its group, ARN, window, dates and retry policy', () => {
  const notices: string[] = [];
  const [read] = schedulesOf(
    [
      stackOf({
        Every: schedule({
          Name: 'every',
          GroupName: 'jobs',
          ScheduleExpression: 'cron(0 9 ? * MON-FRI *)',
          ScheduleExpressionTimezone: 'Europe/Paris',
          StartDate: '2027-01-01T00:00:00Z',
          FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 10 },
          Target: {
            Arn: { 'Fn::GetAtt': ['Inbox', 'Arn'] },
            Input: { 'Fn::Join': ['', ['{"region":"', { Ref: 'AWS::Region' }, '"}']] },
            RetryPolicy: { MaximumRetryAttempts: 3 },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['Dlq', 'Arn'] } },
            SqsParameters: { MessageGroupId: 'g' },
          },
        }),
      }),
    ],
    notices,
  );
  expect(notices).toEqual([]);
  expect(read).toEqual({
    source: 'Timed/Every',
    name: 'every',
    group: 'jobs',
    arn: 'arn:aws:scheduler:us-east-1:000000000000:schedule/jobs/every',
    expression: 'cron(0 9 ? * MON-FRI *)',
    timezone: 'Europe/Paris',
    enabled: true,
    startDate: Date.UTC(2027, 0, 1),
    windowMinutes: 10,
    deleteAfterCompletion: false,
    target: {
      arn: 'arn:aws:sqs:us-east-1:000000000000:inbox',
      input: '{"region":"us-east-1"}',
      messageGroupId: 'g',
      deadLetterArn: 'arn:aws:sqs:us-east-1:000000000000:dlq',
      maximumRetryAttempts: 3,
      maximumEventAgeInSeconds: 86_400,
    },
  });
});

test('what cannot be served as AWS would is left out, naming the schedule and why', () => {
  const notices: string[] = [];
  const read = schedulesOf(
    [
      stackOf({
        Universal: schedule({ Target: { Arn: 'arn:aws:scheduler:::aws-sdk:sqs:sendMessage' } }),
        Ecs: schedule({ Target: { Arn: 'arn:aws:ecs:us-east-1:000000000000:cluster/c', EcsParameters: {} } }),
        Malformed: schedule({ ScheduleExpression: 'rate(1 hours)', Target: { Arn: 'arn:aws:sqs:x:y:z' } }),
        Zone: schedule({ ScheduleExpressionTimezone: 'Nowhere/City', Target: { Arn: 'arn:aws:sqs:x:y:z' } }),
        Unknown: schedule({ Target: { Arn: { 'Fn::GetAtt': ['Missing', 'Arn'] } } }),
      }),
    ],
    notices,
  );
  expect(read).toEqual([]);
  expect(notices).toEqual([
    expect.stringMatching(
      /^Timed\/Universal: schedule not served: its universal target arn:aws:scheduler:::aws-sdk:sqs:sendMessage/,
    ),
    "Timed/Ecs: schedule not served: its target's EcsParameters is not served locally",
    'Timed/Malformed: schedule not served: rate(1 hours): a value of 1 takes the singular unit (hour)',
    'Timed/Zone: schedule not served: ScheduleExpressionTimezone "Nowhere/City" is not a time zone',
    expect.stringMatching(/^Timed\/Unknown: schedule not served: its Target\.Arn .*Missing.* has no local value$/),
  ]);
});

test('a schedule with no Name gets a stable generated one; State DISABLED is read', () => {
  const notices: string[] = [];
  const [read] = schedulesOf(
    [stackOf({ Quiet: schedule({ State: 'DISABLED', Target: { Arn: 'arn:aws:sqs:us-east-1:000000000000:inbox' } }) })],
    notices,
  );
  expect(read?.name).toMatch(/^Timed-Quiet-[A-Za-z0-9]{12}$/);
  expect(read?.enabled).toBe(false);
  expect(read?.target.maximumRetryAttempts).toBe(185);
});
