// S3 notifications as aws-cdk-lib synthesizes them (`bucket.addEventNotification`, `eventBridgeEnabled`,
// `Bucket.fromBucketName(...).addEventNotification`: one `Custom::S3BucketNotifications` per bucket and its singleton
// handler function, aws/aws-cdk packages/aws-cdk-lib/aws-s3/lib/notifications-resource/), read as the runner reads an
// assembly: the configuration as the handler would put it, the handler no function of the app; and a custom resource
// the runner does not reproduce refusing the app, named ("Custom resources", CloudFormation User Guide,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/template-custom-resources.html).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Bucket, EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination, SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { readAssembly } from '../../src/app/assembly.ts';
import { namedFunction, servedFunctions } from '../../src/app/served-functions.ts';

/** The folder of an app synthesized after `build` has added to its stack `Case`. */
const synthesize = (build: (stack: Stack) => void) => {
  const outdir = mkdtempSync(join(tmpdir(), 'local-runner-s3-notifications-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  build(new Stack(app, 'Case'));
  app.synth();
  return outdir;
};

const notified = (stack: Stack) => {
  const fn = new LambdaFunction(stack, 'OnUpload', {
    code: Code.fromAsset(new URL('../fixtures/functions', import.meta.url).pathname),
    handler: 'event-target.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  (fn.node.defaultChild as CfnFunction).overrideLogicalId('OnUpload');
  return fn;
};

test("the CDK's notifications read as its handler would put them; the handler is no function of the app", () => {
  const assembly = readAssembly(
    synthesize((stack) => {
      const fn = notified(stack);
      const bucket = new Bucket(stack, 'Uploads', { bucketName: 'case-uploads', eventBridgeEnabled: true });
      bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(fn), {
        prefix: 'in/',
        suffix: '.txt',
      });
      bucket.addEventNotification(EventType.OBJECT_REMOVED, new SqsDestination(new Queue(stack, 'Removed')));
      Bucket.fromBucketName(stack, 'Shared', 'case-shared').addEventNotification(
        EventType.OBJECT_CREATED_PUT,
        new LambdaDestination(fn),
      );
    }),
  );
  const functionArn = expect.stringMatching(/^arn:aws:lambda:us-east-1:000000000000:function:Case-OnUpload-/);
  expect(assembly.seeds.s3Notifications?.buckets).toEqual([
    {
      bucket: 'case-uploads',
      sources: [expect.stringMatching(/^Case\/UploadsNotifications/)],
      eventBridge: true,
      targets: [
        expect.objectContaining({
          kind: 'lambda',
          events: ['s3:ObjectCreated:*'],
          prefix: 'in/',
          suffix: '.txt',
          arn: functionArn,
        }),
        expect.objectContaining({
          kind: 'queue',
          events: ['s3:ObjectRemoved:*'],
          arn: expect.stringMatching(/^arn:aws:sqs:/),
        }),
      ],
    },
    {
      bucket: 'case-shared',
      sources: [expect.stringMatching(/^Case\/SharedNotifications/)],
      eventBridge: false,
      targets: [expect.objectContaining({ kind: 'lambda', events: ['s3:ObjectCreated:Put'], arn: functionArn })],
    },
  ]);
  // Its handler (a Python function the CDK writes inline) is neither served, nor listed as one that cannot be.
  expect(servedFunctions(assembly).map(({ name }) => name)).toEqual(['OnUpload']);
  expect(assembly.unservable).toEqual([]);
  const handler = assembly.functions.find(({ id }) => id.startsWith('BucketNotificationsHandler'));
  expect(() => namedFunction(assembly, handler?.id ?? '')).toThrow(
    /is not served: it is the handler of Custom::S3BucketNotifications \(\w+\), whose work the runner does itself/,
  );
  expect(assembly.notices.join('\n')).not.toMatch(/BucketNotificationsHandler/);
});

test('a custom resource the runner does not reproduce refuses the app, named; a log retention does not', () => {
  const withSdkCall = synthesize((stack) => {
    const table = new Table(stack, 'Plants', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    new AwsCustomResource(stack, 'SeedPlants', {
      onCreate: {
        service: 'DynamoDB',
        action: 'putItem',
        parameters: { TableName: table.tableName, Item: { id: { S: 'fern' } } },
        physicalResourceId: PhysicalResourceId.of('seed'),
      },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: [table.tableArn] }),
    });
  });
  expect(() => readAssembly(withSdkCall)).toThrow(
    /^Case\/SeedPlants\w+: a custom resource \(Custom::AWS, its ServiceToken \{"Fn::GetAtt":\["AWS\w+","Arn"\]\}\) runs code at deployment that the runner does not reproduce/,
  );
  const withLogRetention = synthesize((stack) => {
    new LambdaFunction(stack, 'Logged', {
      code: Code.fromInline('exports.handler = async () => 1'),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      logRetention: 7,
    });
  });
  expect(() => readAssembly(withLogRetention)).not.toThrow();
});
