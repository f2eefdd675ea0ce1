// The local services started for an S3 test, with an S3 client of the SDK v3 pointed at the local S3.
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { localAws } from '../../src/app/local-aws.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import type { BucketSeed } from '../../src/services/s3/index.ts';

/** Services on `dataDir` (in memory without one) with the buckets `buckets`, and a client of the local S3. */
export const startS3 = async (buckets: BucketSeed[], dataDir?: string, config: S3ClientConfig = {}) => {
  const log: string[] = [];
  const services = await startLocalServices({
    dataDir,
    seeds: { parameters: [], secrets: [], notices: [], buckets },
    log: (line) => log.push(line),
  });
  const client = s3Client(services.urls.s3, config);
  return {
    services,
    client,
    log,
    close: async () => {
      client.destroy();
      await services.close();
    },
  };
};

/** A client of the SDK v3 for the S3 at `endpoint`, with the runner's credentials. */
export const s3Client = (endpoint: string, config: S3ClientConfig = {}) =>
  new S3Client({
    region: localAws.region,
    credentials: localAws.credentials,
    endpoint,
    forcePathStyle: true,
    ...config,
  });
