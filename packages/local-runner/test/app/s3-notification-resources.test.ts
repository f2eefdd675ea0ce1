// The template's S3 notifications read as the local S3's notifications are seeded with them:
// - as aws-cdk-lib writes them: `Custom::S3BucketNotifications` (aws/aws-cdk,
//   packages/aws-cdk-lib/aws-s3/lib/notifications-resource/notifications-resource.ts: BucketName,
//   NotificationConfiguration in PutBucketNotificationConfiguration's shape, Managed, SkipDestinationValidation), whose
//   handler (packages/@aws-cdk/custom-resource-handlers/lib/aws-s3/notifications-resource-handler/index.py) puts a
//   managed bucket's configuration as it is and adds an unmanaged (imported) bucket's to what it has; the shapes below
//   are those aws-cdk-lib 2.276 synthesizes (test/app/s3-notifications.synth.test.ts synthesizes them);
// - as CloudFormation writes them: "AWS::S3::Bucket NotificationConfiguration"
//   (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-s3-bucket-notificationconfiguration.html);
// - what S3 refuses: "Event notification types and destinations"
//   (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-how-to-event-types-and-destinations.html: no
//   FIFO queue or topic) and overlapping configurations ("Configuring event notifications using object key name
//   filtering", https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-how-to-filtering.html);
// - custom resources: "Custom resources", CloudFormation User Guide
//   (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/template-custom-resources.html).
import { describe, expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import { reproducedHandlersOf } from '../../src/app/custom-resources.ts';
import type { ValueContext } from '../../src/app/intrinsics.ts';
import { s3NotificationSeedsOf } from '../../src/app/s3-notification-resources.ts';

const stack = (resources: Record<string, CfnResource>, stackName = 'App'): ValueContext => ({
  stackName,
  tables: [],
  resources,
  exports: new Map(),
});
const functionArn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
const queueArn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const topicArn = (name: string) => `arn:aws:sns:us-east-1:000000000000:${name}`;

const handler = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db8347ECC3691';
const destinations: Record<string, CfnResource> = {
  Uploads: { Type: 'AWS::S3::Bucket', Properties: { BucketName: 'uploads' } },
  OnUpload: { Type: 'AWS::Lambda::Function', Properties: { FunctionName: 'on-upload' } },
  Removed: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'removed' } },
  Puts: { Type: 'AWS::SNS::Topic', Properties: { TopicName: 'puts' } },
  [handler]: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'index.handler', Runtime: 'python3.13' } },
};

/** A `Custom::S3BucketNotifications` as aws-cdk-lib writes it. */
const cdkNotifications = (bucket: unknown, configuration: Record<string, unknown>, managed = true): CfnResource => ({
  Type: 'Custom::S3BucketNotifications',
  Properties: {
    ServiceToken: { 'Fn::GetAtt': [handler, 'Arn'] },
    BucketName: bucket,
    NotificationConfiguration: configuration,
    Managed: managed,
    SkipDestinationValidation: false,
  },
});

const cdkConfiguration = {
  EventBridgeConfiguration: {},
  LambdaFunctionConfigurations: [
    {
      Events: ['s3:ObjectCreated:*'],
      Filter: {
        Key: {
          FilterRules: [
            { Name: 'suffix', Value: '.txt' },
            { Name: 'prefix', Value: 'in/' },
          ],
        },
      },
      LambdaFunctionArn: { 'Fn::GetAtt': ['OnUpload', 'Arn'] },
    },
  ],
  QueueConfigurations: [{ Events: ['s3:ObjectRemoved:*'], QueueArn: { 'Fn::GetAtt': ['Removed', 'Arn'] } }],
  TopicConfigurations: [
    {
      Events: ['s3:ObjectCreated:Put'],
      Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'out/' }] } },
      TopicArn: { Ref: 'Puts' },
    },
  ],
};

const read = (...stacks: ValueContext[]) => {
  const notices: string[] = [];
  return { ...s3NotificationSeedsOf(stacks, notices), notices };
};

describe('as aws-cdk-lib writes them', () => {
  test("a managed bucket's configuration: each destination by its ARN, its events and filter, EventBridge on", () => {
    const { buckets, notices } = read(
      stack({ ...destinations, Notifications: cdkNotifications({ Ref: 'Uploads' }, cdkConfiguration) }),
    );
    expect(notices).toEqual([]);
    expect(buckets).toEqual([
      {
        bucket: 'uploads',
        sources: ['App/Notifications'],
        eventBridge: true,
        targets: [
          {
            id: expect.any(String),
            events: ['s3:ObjectCreated:*'],
            prefix: 'in/',
            suffix: '.txt',
            kind: 'lambda',
            arn: functionArn('on-upload'),
          },
          { id: expect.any(String), events: ['s3:ObjectRemoved:*'], kind: 'queue', arn: queueArn('removed') },
          {
            id: expect.any(String),
            events: ['s3:ObjectCreated:Put'],
            prefix: 'out/',
            kind: 'topic',
            arn: topicArn('puts'),
          },
        ],
      },
    ]);
    // S3 gives each configuration without an Id one of its own (the records' configurationId), the same each start.
    const ids = buckets[0]?.targets.map(({ id }) => id);
    expect(new Set(ids).size).toBe(3);
    expect(
      read(stack({ ...destinations, Notifications: cdkNotifications({ Ref: 'Uploads' }, cdkConfiguration) }))
        .buckets[0],
    ).toEqual(buckets[0]);
  });

  test("an imported bucket's (Managed false) adds to the bucket's own; a managed one replaces it", () => {
    const own = {
      Type: 'AWS::S3::Bucket',
      Properties: {
        BucketName: 'shared',
        NotificationConfiguration: {
          QueueConfigurations: [{ Event: 's3:ObjectCreated:Copy', Queue: { 'Fn::GetAtt': ['Removed', 'Arn'] } }],
          EventBridgeConfiguration: { EventBridgeEnabled: true },
        },
      },
    };
    const lambda = {
      LambdaFunctionConfigurations: [
        { Events: ['s3:ObjectCreated:Put'], LambdaFunctionArn: { 'Fn::GetAtt': ['OnUpload', 'Arn'] } },
      ],
    };
    const imported = read(
      stack({ ...destinations, Shared: own }),
      stack({ ...destinations, Imported: cdkNotifications('shared', lambda, false) }, 'Other'),
    );
    expect(imported.buckets).toEqual([
      {
        bucket: 'shared',
        sources: ['App/Shared', 'Other/Imported'],
        eventBridge: true,
        targets: [
          expect.objectContaining({ kind: 'queue', events: ['s3:ObjectCreated:Copy'] }),
          expect.objectContaining({ kind: 'lambda', events: ['s3:ObjectCreated:Put'] }),
        ],
      },
    ]);
    const managed = read(stack({ ...destinations, Shared: own, Mine: cdkNotifications('shared', lambda, true) }));
    expect(managed.buckets).toEqual([
      {
        bucket: 'shared',
        sources: ['App/Mine'],
        eventBridge: false,
        targets: [expect.objectContaining({ kind: 'lambda' })],
      },
    ]);
  });

  test('its handler function is no function of the app: the runner does its work', () => {
    const resources = { ...destinations, Notifications: cdkNotifications({ Ref: 'Uploads' }, cdkConfiguration) };
    expect([...reproducedHandlersOf(resources).keys()]).toEqual([handler]);
    expect(reproducedHandlersOf(destinations).size).toBe(0);
  });
});

test('as CloudFormation writes them: Event, Filter.S3Key.Rules, Function/Queue/Topic, an Id kept', () => {
  const { buckets } = read(
    stack({
      ...destinations,
      Uploads: {
        Type: 'AWS::S3::Bucket',
        Properties: {
          BucketName: 'uploads',
          NotificationConfiguration: {
            LambdaConfigurations: [
              {
                Event: 's3:ObjectCreated:*',
                Filter: { S3Key: { Rules: [{ Name: 'Prefix', Value: 'images/' }] } },
                Function: { 'Fn::GetAtt': ['OnUpload', 'Arn'] },
              },
            ],
            TopicConfigurations: [{ Id: 'removals', Event: 's3:ObjectRemoved:Delete', Topic: { Ref: 'Puts' } }],
          },
        },
      },
    }),
  );
  expect(buckets).toEqual([
    {
      bucket: 'uploads',
      sources: ['App/Uploads'],
      eventBridge: false,
      targets: [
        expect.objectContaining({ events: ['s3:ObjectCreated:*'], prefix: 'images/', arn: functionArn('on-upload') }),
        { id: 'removals', events: ['s3:ObjectRemoved:Delete'], kind: 'topic', arn: topicArn('puts') },
      ],
    },
  ]);
});

describe('what S3 refuses refuses the app, naming it', () => {
  const refused = (configuration: Record<string, unknown>) => () =>
    read(stack({ ...destinations, Notifications: cdkNotifications({ Ref: 'Uploads' }, configuration) }));
  const lambda = (events: string[], rules?: { Name: string; Value: string }[]) => ({
    Events: events,
    ...(rules && { Filter: { Key: { FilterRules: rules } } }),
    LambdaFunctionArn: { 'Fn::GetAtt': ['OnUpload', 'Arn'] },
  });

  test('an unknown event type, two prefix rules', () => {
    expect(refused({ LambdaFunctionConfigurations: [lambda(['s3:ObjectMoved:*'])] })).toThrow(
      'App/Notifications: LambdaFunctionConfigurations[0]: the event type s3:ObjectMoved:*, which S3 does not have',
    );
    const rules = [
      { Name: 'prefix', Value: 'a/' },
      { Name: 'Prefix', Value: 'b/' },
    ];
    expect(refused({ LambdaFunctionConfigurations: [lambda(['s3:ObjectCreated:*'], rules)] })).toThrow(
      'more than one prefix rule, which S3 refuses',
    );
  });

  test('a FIFO queue', () => {
    expect(
      refused({ QueueConfigurations: [{ Events: ['s3:ObjectCreated:*'], QueueArn: queueArn('q.fifo') }] }),
    ).toThrow(
      `App/Notifications: QueueConfigurations[0]: ${queueArn('q.fifo')} is a FIFO queue, which S3 does not send notifications to`,
    );
  });

  test('configurations that share an event type and keys overlap; apart by prefix or suffix they do not', () => {
    const apart = {
      LambdaFunctionConfigurations: [
        lambda(['s3:ObjectCreated:*'], [{ Name: 'prefix', Value: 'in/' }]),
        lambda(['s3:ObjectCreated:Put'], [{ Name: 'prefix', Value: 'out/' }]),
        lambda(
          ['s3:ObjectCreated:Put'],
          [
            { Name: 'suffix', Value: '.txt' },
            { Name: 'prefix', Value: 'all/' },
          ],
        ),
        lambda(
          ['s3:ObjectCreated:Put'],
          [
            { Name: 'suffix', Value: '.png' },
            { Name: 'prefix', Value: 'all/' },
          ],
        ),
        lambda(['s3:ObjectRemoved:*']),
      ],
    };
    expect(refused(apart)).not.toThrow();
    const overlapping = {
      LambdaFunctionConfigurations: [
        lambda(['s3:ObjectCreated:*'], [{ Name: 'prefix', Value: 'in/' }]),
        lambda(['s3:ObjectCreated:Put'], [{ Name: 'prefix', Value: 'in/images/' }]),
      ],
    };
    expect(refused(overlapping)).toThrow(
      /^App\/Notifications: the notifications \S+ and \S+ of bucket uploads overlap/,
    );
  });

  test('events the local S3 never sends are said', () => {
    const { notices } = read(
      stack({
        ...destinations,
        Notifications: cdkNotifications(
          { Ref: 'Uploads' },
          { LambdaFunctionConfigurations: [lambda(['s3:ObjectRestore:*'])] },
        ),
      }),
    );
    expect(notices).toEqual([
      expect.stringMatching(
        /^App\/Notifications: bucket uploads's notification \S+ takes s3:ObjectRestore:\*, which the local S3 never sends$/,
      ),
    ]);
  });
});

describe('custom resources', () => {
  test('one the runner does not reproduce is refused, naming it; those that change nothing served are left out', () => {
    const deployment: CfnResource = {
      Type: 'Custom::CDKBucketDeployment',
      Properties: { ServiceToken: { 'Fn::GetAtt': ['Deployer', 'Arn'] } },
    };
    expect(() => read(stack({ ...destinations, Deploy: deployment }))).toThrow(
      /^App\/Deploy: a custom resource \(Custom::CDKBucketDeployment, its ServiceToken \{"Fn::GetAtt":\["Deployer","Arn"\]\}\) runs code at deployment that the runner does not reproduce/,
    );
    const generic: CfnResource = { Type: 'AWS::CloudFormation::CustomResource', Properties: { ServiceToken: 'arn:x' } };
    expect(() => read(stack({ Seed: generic }))).toThrow(
      /^App\/Seed: a custom resource \(AWS::CloudFormation::CustomResource/,
    );
    const harmless = [
      'Custom::LogRetention',
      'Custom::S3AutoDeleteObjects',
      'Custom::VpcRestrictDefaultSG',
      'Custom::CloudwatchLogResourcePolicy',
    ];
    expect(() =>
      read(stack(Object.fromEntries(harmless.map((Type, index) => [`R${index}`, { Type, Properties: {} }])))),
    ).not.toThrow();
  });
});
