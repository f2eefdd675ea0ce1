// The local S3's notifications, for `npm run bench`: the time from PutObject (just before the SDK's call) to the start
// of the function the bucket notifies (an asynchronous invocation, as S3 invokes), one object at a time, the function
// warm. The app is synthesized here, in-process: the function logs, as it starts, the time and the key it was given.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { App, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Bucket, EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { startedLine, timeToFunctionStart } from './to-function-start.ts';

/** Each start logs the time and the key it was given (to-function-start.ts). */
const handlerCode = `exports.handler = async (event) => {
  ${startedLine('event.Records[0].s3.object.key')}
  return {};
};`;

const bucketName = 'bench-notified';

const synthesize = (scratch: string) => {
  const outdir = join(scratch, 's3-notifications-cdk.out');
  mkdirSync(outdir, { recursive: true });
  const app = new App({ outdir });
  const stack = new Stack(app, 'BenchS3Notifications');
  const fn = new LambdaFunction(stack, 'OnObject', {
    code: Code.fromInline(handlerCode),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  new Bucket(stack, 'Bucket', { bucketName }).addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(fn));
  app.synth();
  return outdir;
};

/** From PutObject (1 KB) to the notified function's start, ms, one object at a time. */
export const measureS3Notifications = async (scratch: string): Promise<number[]> => {
  let s3: S3Client | undefined;
  try {
    return await timeToFunctionStart(synthesize(scratch), async (runner, key) => {
      s3 ??= new S3Client({
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        endpoint: runner.serviceUrls.s3,
        forcePathStyle: true,
      });
      await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: key, Body: 'x'.repeat(1024) }));
    });
  } finally {
    s3?.destroy();
  }
};
