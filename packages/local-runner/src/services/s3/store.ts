// The local S3's buckets and objects. The buckets (their versioning and CORS configuration) are one state file
// (state-file.ts); each key is a record of its versions, newest first (`<bucket>/keys/<sha-256 of the key>.json`),
// and each version's bytes a file of their own (`<bucket>/blobs/<id>`), so that no write rewrites another object.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { RunnerError } from '../../errors.ts';
import type { StateFile } from '../state-file.ts';
import type { CorsRule } from './cors.ts';
import { noSuchBucket, S3Error } from './errors.ts';
import type { Files } from './files.ts';

export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';

export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  /** Base64, as the `x-amz-checksum-*` headers carry it (a multipart object's: `<value>-<parts>`). */
  value: string;
  type: 'FULL_OBJECT' | 'COMPOSITE';
}

/** What S3 keeps of an object's headers besides its bytes ("Working with object metadata", Amazon S3 User Guide). */
export interface ObjectHeaders {
  contentType: string;
  /** Content-Encoding, Content-Disposition, Content-Language, Cache-Control, Expires, by lower-case name. */
  content: Record<string, string>;
  /** User-defined metadata (`x-amz-meta-<name>`), by lower-case name. */
  metadata: Record<string, string>;
  storageClass?: string;
  websiteRedirect?: string;
  tagCount?: number;
}

export interface StoredVersion extends Partial<ObjectHeaders> {
  /** `null` for a version written while the bucket did not version. */
  versionId: string;
  deleteMarker?: true;
  /** Epoch milliseconds. */
  lastModified: number;
  size: number;
  /** Quoted, as the ETag header carries it. */
  eTag: string;
  /** The file of its bytes (none for a delete marker). */
  blob?: string;
  checksum?: StoredChecksum;
  /** A multipart upload's number of parts, and each part's size (for GetObject's partNumber). */
  partSizes?: number[];
}

interface KeyRecord {
  key: string;
  versions: StoredVersion[];
}

export interface BucketRecord {
  name: string;
  /** Epoch milliseconds. */
  created: number;
  versioning?: 'Enabled' | 'Suspended';
  cors?: CorsRule[];
  /** `Stack/LogicalId` of the template's bucket, when the template declares it. */
  source?: string;
}

export interface BucketState {
  buckets: BucketRecord[];
}

export const emptyBuckets = (): BucketState => ({ buckets: [] });

/** A JSON file of the service's, read; a damaged one named, as a RunnerError (the service answers 500 and logs it). */
export const readJson = <T>(files: Files, path: string): T | undefined => {
  const data = files.read(path);
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data.toString('utf8')) as T;
  } catch (error) {
    throw new RunnerError(
      `services/s3/${path} in the data folder is not what the runner writes (${(error as Error).message}): restore it, or delete it to lose that object`,
    );
  }
};

const keyFile = (bucket: string, key: string) =>
  `${bucket}/keys/${createHash('sha256').update(key).digest('hex')}.json`;

let sequence = 0;
/** S3's sequencer: hex, increasing for a key (the clock, then a count within a millisecond). */
export const nextSequencer = () => {
  sequence = (sequence + 1) % 0x100000;
  return ((BigInt(Date.now()) << 20n) | BigInt(sequence)).toString(16).toUpperCase().padStart(18, '0');
};

/** A new version's id: 32 URL-safe characters, as S3's look. */
export const newVersionId = () => randomBytes(24).toString('base64url');

export class ObjectStore {
  readonly #files: Files;
  readonly #buckets: StateFile<BucketState>;
  constructor(files: Files, buckets: StateFile<BucketState>) {
    this.#files = files;
    this.#buckets = buckets;
  }

  buckets() {
    return this.#buckets.read().buckets;
  }

  bucket(name: string) {
    const found = this.buckets().find((bucket) => bucket.name === name);
    if (!found) throw noSuchBucket(name);
    return found;
  }

  /** Changes the bucket `name` (creating it with `create`, else refusing a missing one). */
  updateBucket(name: string, change: (bucket: BucketRecord) => void, create = false) {
    const state = this.#buckets.read();
    let bucket = state.buckets.find((b) => b.name === name);
    if (!bucket) {
      if (!create) throw noSuchBucket(name);
      bucket = { name, created: Date.now() };
      state.buckets.push(bucket);
    }
    change(bucket);
    this.#buckets.write(state);
    return bucket;
  }

  deleteBucket(name: string) {
    this.bucket(name);
    if (this.#files.list(`${name}/keys`).length > 0)
      throw new S3Error(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty', { BucketName: name });
    const state = this.#buckets.read();
    state.buckets = state.buckets.filter((bucket) => bucket.name !== name);
    this.#buckets.write(state);
    this.#files.remove(name);
  }

  /** The versions of `key`, newest first (none when it has none). */
  versions(bucket: string, key: string): StoredVersion[] {
    return readJson<KeyRecord>(this.#files, keyFile(bucket, key))?.versions ?? [];
  }

  /** Every key of `bucket` with its versions, in UTF-8 binary order (as S3 lists them). */
  keys(bucket: string): KeyRecord[] {
    const records: KeyRecord[] = [];
    for (const name of this.#files.list(`${bucket}/keys`)) {
      const record = readJson<KeyRecord>(this.#files, `${bucket}/keys/${name}`);
      if (record !== undefined) records.push(record);
    }
    return records.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  }

  readBlob(bucket: string, version: StoredVersion) {
    const data = version.blob === undefined ? undefined : this.#files.read(`${bucket}/blobs/${version.blob}`);
    if (data === undefined)
      throw new S3Error(500, 'InternalError', `the bytes of this object are missing from the data folder`);
    return data;
  }

  /** Keeps `data` as a new blob of `bucket`; its id. */
  writeBlob(bucket: string, data: Buffer) {
    const id = randomUUID();
    this.#files.write(`${bucket}/blobs/${id}`, data);
    return id;
  }

  removeBlob(bucket: string, blob: string | undefined) {
    if (blob !== undefined) this.#files.remove(`${bucket}/blobs/${blob}`);
  }

  /**
   * Adds `version` as the newest of `key`: with versioning enabled beside the others; otherwise in place of the
   * `null` version (whose bytes go).
   */
  addVersion(bucket: string, key: string, version: StoredVersion) {
    const versions = this.versions(bucket, key);
    const replaced = version.versionId === 'null' ? versions.filter((v) => v.versionId === 'null') : [];
    const kept = versions.filter((v) => !replaced.includes(v));
    this.#writeKey(bucket, key, [version, ...kept]);
    for (const gone of replaced) this.removeBlob(bucket, gone.blob);
  }

  /** Removes the version `versionId` of `key` for good; the version removed, if there was one. */
  removeVersion(bucket: string, key: string, versionId: string) {
    const versions = this.versions(bucket, key);
    const gone = versions.find((v) => v.versionId === versionId);
    if (!gone) return undefined;
    this.#writeKey(
      bucket,
      key,
      versions.filter((v) => v !== gone),
    );
    this.removeBlob(bucket, gone.blob);
    return gone;
  }

  #writeKey(bucket: string, key: string, versions: StoredVersion[]) {
    const file = keyFile(bucket, key);
    if (versions.length === 0) this.#files.remove(file);
    else this.#files.write(file, JSON.stringify({ key, versions } satisfies KeyRecord));
  }

  /** The files of multipart uploads (multipart.ts). */
  get files() {
    return this.#files;
  }
}
