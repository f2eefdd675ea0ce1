// A template's queue settings the local SQS keeps and shows without applying them: "AWS::SQS::Queue"'s
// KmsMasterKeyId, SqsManagedSseEnabled and RedriveAllowPolicy
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sqs-queue.html) and the policy
// an "AWS::SQS::QueuePolicy" gives its Queues
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sqs-queuepolicy.html), read as
// the services are seeded with them.
import { expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import type { ValueContext } from '../../src/app/intrinsics.ts';
import { serviceSeedsOf } from '../../src/app/service-resources.ts';
import { queueArn } from '../../src/services/sqs.ts';

const stack = (resources: Record<string, CfnResource>): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources,
  exports: new Map(),
});

test("a QueuePolicy's document becomes its queues' Policy; a value with no local meaning is shown as written", () => {
  const topicRef = { Ref: 'Orders' };
  const seeds = serviceSeedsOf([
    stack({
      Jobs: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
      Orders: { Type: 'AWS::SNS::Topic', Properties: {} },
      JobsPolicy: {
        Type: 'AWS::SQS::QueuePolicy',
        Properties: {
          Queues: [{ Ref: 'Jobs' }, 'https://sqs.us-east-1.amazonaws.com/123456789012/elsewhere'],
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'sns.amazonaws.com' },
                Action: 'sqs:SendMessage',
                Resource: { 'Fn::GetAtt': ['Jobs', 'Arn'] },
                Condition: { ArnEquals: { 'aws:SourceArn': topicRef } },
              },
            ],
          },
        },
      },
    }),
  ]);
  const jobs = seeds.queues?.find(({ name }) => name === 'jobs');
  expect(JSON.parse(jobs?.attributes.Policy ?? '{}')).toEqual({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: queueArn('jobs'),
        Condition: { ArnEquals: { 'aws:SourceArn': expect.anything() } },
      },
    ],
  });
  expect(seeds.notices).toEqual([
    'App/JobsPolicy: its queue https://sqs.us-east-1.amazonaws.com/123456789012/elsewhere is not one the runner serves: not kept',
  ]);
});

test("a queue's encryption and RedriveAllowPolicy are kept, a KMS key the runner does not serve shown as written", () => {
  const seeds = serviceSeedsOf([
    stack({
      Key: { Type: 'AWS::KMS::Key', Properties: {} },
      Secret: {
        Type: 'AWS::SQS::Queue',
        Properties: {
          QueueName: 'secret',
          KmsMasterKeyId: { 'Fn::GetAtt': ['Key', 'Arn'] },
          KmsDataKeyReusePeriodSeconds: 300,
          RedriveAllowPolicy: { redrivePermission: 'denyAll' },
        },
      },
      Managed: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'managed', SqsManagedSseEnabled: true } },
    }),
  ]);
  expect(seeds.queues?.map(({ name, attributes }) => ({ name, attributes }))).toEqual([
    {
      name: 'secret',
      attributes: {
        KmsMasterKeyId: '{"Fn::GetAtt":["Key","Arn"]}',
        KmsDataKeyReusePeriodSeconds: '300',
        RedriveAllowPolicy: '{"redrivePermission":"denyAll"}',
      },
    },
    { name: 'managed', attributes: { SqsManagedSseEnabled: 'true' } },
  ]);
  expect(seeds.notices).toEqual([]);
});
