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
import { startRunner } from 'cdk-local-runner';

/** Each start logs `STARTED {"at": <ms>, "key": <the record's key>}`. */
const handlerCode = `exports.handler = async (event) => {
  const at = Date.now();
  console.log('STARTED ' + JSON.stringify({ at, key: event.Records[0].s3.object.key }));
  return {};
};`;

const bucketName = 'bench-notified';
/** Latency samples (one object at a time). */
const samples = 100;

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

/** From PutObject to the notified function's start, ms, `samples` objects one at a time (after two that warm it). */
export const measureS3Notifications = async (scratch: string): Promise<number[]> => {
  const startedAt = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const runner = await startRunner({
    cloudAssemblyDir: synthesize(scratch),
    port: 0,
    dataDir: undefined,
    maxWorkers: 4,
    log: () => undefined,
    functionLog: (_name, line) => {
      const json = /STARTED (\{.*\})/.exec(line)?.[1];
      if (json === undefined) return;
      const { at, key } = JSON.parse(json) as { at: number; key: string };
      startedAt.set(key, at);
      waiting.get(key)?.();
    },
  });
  const started = (key: string) =>
    new Promise<number>((resolve) => {
      const done = () => resolve(startedAt.get(key) as number);
      if (startedAt.has(key)) done();
      else waiting.set(key, done);
    });
  const s3 = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoint: runner.serviceUrls.s3,
    forcePathStyle: true,
  });
  try {
    const timings: number[] = [];
    for (let sample = 0; sample < samples + 2; sample += 1) {
      const key = `object-${sample}.txt`;
      const before = Date.now();
      await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: key, Body: 'x'.repeat(1024) }));
      const ms = (await started(key)) - before;
      if (sample >= 2) timings.push(ms);
    }
    return timings;
  } finally {
    s3.destroy();
    await runner.close();
  }
};
