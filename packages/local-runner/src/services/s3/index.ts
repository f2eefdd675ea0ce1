// The local S3 (services/s3/): its buckets seeded from the template (app/s3-resources.ts), its objects in the data
// folder, its server, and the listeners told of each change once stored (S3 notifications are built on them).
import type { ObjectChange } from '../s3-change.ts';
import { stateFile } from '../state-file.ts';
import type { S3Context } from './call.ts';
import type { CorsRule } from './cors.ts';
import { s3Files } from './files.ts';
import { serveS3 } from './server.ts';
import { emptyBuckets, ObjectStore } from './store.ts';

/** A bucket as the template declares it. */
export interface BucketSeed {
  /** `Stack/LogicalId`. */
  source: string;
  name: string;
  versioning?: 'Enabled' | 'Suspended';
  cors?: CorsRule[];
}

export const simpleStorageService = (dataDir: string | undefined, log: (line: string) => void) => {
  const store = new ObjectStore(s3Files(dataDir), stateFile(dataDir, 's3', emptyBuckets));
  const listeners = new Set<(change: ObjectChange) => void>();
  const context: S3Context = {
    store,
    changed: (change) => {
      for (const listener of listeners)
        try {
          listener(change);
        } catch (error) {
          log(`a listener of the local S3's changes failed: ${(error as Error).stack ?? String(error)}`);
        }
    },
  };
  return {
    /** Creates the template's buckets that are missing; the versioning and CORS the template gives, set. */
    seed: (buckets: BucketSeed[]) => {
      for (const seed of buckets)
        store.updateBucket(
          seed.name,
          (bucket) => {
            bucket.source = seed.source;
            if (seed.versioning) bucket.versioning = seed.versioning;
            if (seed.cors) bucket.cors = seed.cors;
          },
          true,
        );
      return [];
    },
    /** Calls `listener` after each change is stored; returns what stops it. */
    onChange: (listener: (change: ObjectChange) => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    /** The buckets, for the banner. */
    buckets: () => store.buckets().map(({ name, source }) => ({ name, source })),
    serve: () => serveS3(context, log),
  };
};
