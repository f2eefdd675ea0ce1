// The template's EventBridge pipes read as the runner serves them, "AWS::Pipes::Pipe" (CloudFormation Template
// Reference, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-pipes-pipe.html):
// what the runner does not reproduce is refused at start, naming the pipe and the field (fail closed), and an input
// template's placeholders are checked ("Amazon EventBridge Pipes input transformation",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-input-transformation.html).
import { expect, test } from '@jest/globals';
import type { ValueContext } from '../../src/app/intrinsics.ts';
import { localAws } from '../../src/app/local-aws.ts';
import { pipesOf } from '../../src/app/pipe-resources.ts';

const arn = (service: string, resource: string) =>
  `arn:${localAws.partition}:${service}:${localAws.region}:${localAws.accountId}:${resource}`;

const stack = (properties: Record<string, unknown>): ValueContext => ({
  stackName: 'App',
  tables: [],
  resources: {
    Pipe: {
      Type: 'AWS::Pipes::Pipe',
      Properties: { RoleArn: 'role', Source: arn('sqs', 'work'), Target: arn('sqs', 'done'), ...properties },
    },
  },
  exports: new Map(),
});

test("a queue's pipe: its source read as an event source mapping would be, its target's parameters", () => {
  const [pipe] = pipesOf([
    stack({
      Name: 'Orders',
      SourceParameters: { SqsQueueParameters: { BatchSize: 5 } },
      TargetParameters: { SqsQueueParameters: { MessageGroupId: 'g' }, InputTemplate: '{"id": <$.body.id>}' },
    }),
  ]);
  expect(pipe).toEqual(
    expect.objectContaining({
      source: 'App/Pipe',
      name: 'Orders',
      kind: 'sqs',
      running: true,
      target: {
        arn: arn('sqs', 'done'),
        kind: 'sqs',
        sync: true,
        inputTemplate: '{"id": <$.body.id>}',
        messageGroupId: 'g',
      },
    }),
  );
  expect(pipe?.queue).toEqual(
    expect.objectContaining({ source: 'App/Pipe', functionName: 'Orders', queueArn: arn('sqs', 'work'), batchSize: 5 }),
  );
});

test.each([
  [{ SourceParameters: { SelfManagedKafkaParameters: {} } }, 'its SourceParameters.SelfManagedKafkaParameters'],
  [{ TargetParameters: { SqsQueueParameters: { Other: 1 } } }, 'its TargetParameters.SqsQueueParameters.Other'],
  [{ Enrichment: arn('apigateway', '/restapis/x') }, 'its Enrichment'],
  [{ Target: arn('kinesis', 'stream/s') }, 'its Target'],
  [{ Source: arn('mq', 'broker:b') }, 'its Source'],
  [{ TargetParameters: { InputTemplate: '{"a": <$.body[?(@.x)]>' } }, 'its TargetParameters.InputTemplate placeholder'],
  [{ TargetParameters: { InputTemplate: '<aws.pipes.unknown>' } }, 'its TargetParameters.InputTemplate placeholder'],
])('a pipe with what the runner does not reproduce is refused, naming it (%j)', (properties, named) => {
  expect(() => pipesOf([stack(properties)])).toThrow(`App/Pipe: ${named}`);
});
