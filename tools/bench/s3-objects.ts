// The local S3, for `npm run bench`: objects a second in (PutObject) and out (GetObject) at 1 KB and 1 MB, through
// the SDK for JavaScript v3 as a function would call it, to a bucket kept in a data folder on disk. The app (one
// bucket, nothing else) is synthesized here, in-process. Eight requests are in flight at a time.
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { App, Stack } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { startRunner } from 'cdk-local-runner';

const inFlight = 8;

export interface S3Figures {
  /** Objects a second, by size and direction. */
  perSecond: Record<'1 KB' | '1 MB', { put: number; get: number }>;
}

const synthesize = (scratch: string) => {
  const outdir = join(scratch, 's3-cdk.out');
  const app = new App({ outdir });
  new Bucket(new Stack(app, 'BenchS3'), 'Objects', { bucketName: 'bench-objects' });
  app.synth();
  return outdir;
};

/** Objects a second when `count` calls of `call` (by index) run, `inFlight` at a time. */
const rate = async (count: number, call: (index: number) => Promise<unknown>) => {
  let next = 0;
  const before = performance.now();
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await call(index);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (count / (performance.now() - before)) * 1000;
};

/** Serves a bucket from `scratch`'s data folder and measures it. */
export const measureS3Objects = async (scratch: string): Promise<S3Figures> => {
  const runner = await startRunner({
    cloudAssemblyDir: synthesize(scratch),
    port: 0,
    dataDir: join(scratch, 's3-data'),
    maxWorkers: 1,
    log: () => undefined,
  });
  const s3 = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoint: runner.serviceUrls.s3,
    forcePathStyle: true,
  });
  const measure = async (size: number, count: number) => {
    const body = Buffer.alloc(size, 'x');
    const key = (index: number) => `${size}/${index}`;
    const put = await rate(count, (index) =>
      s3.send(new PutObjectCommand({ Bucket: 'bench-objects', Key: key(index), Body: body })),
    );
    const get = await rate(count, async (index) => {
      const got = await s3.send(new GetObjectCommand({ Bucket: 'bench-objects', Key: key(index) }));
      await got.Body?.transformToByteArray();
    });
    return { put, get };
  };
  try {
    // A first round warms the SDK and the server, left out.
    await measure(1024, 50);
    return { perSecond: { '1 KB': await measure(1024, 2000), '1 MB': await measure(1024 * 1024, 200) } };
  } finally {
    s3.destroy();
    await runner.close();
  }
};
