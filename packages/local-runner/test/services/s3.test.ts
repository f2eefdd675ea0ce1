// The local S3 as the SDK for JavaScript v3 calls it (Amazon S3 API Reference, https://docs.aws.amazon.com/AmazonS3/latest/API/):
// PutObject then GetObject gives back the bytes sent, whichever way the SDK sends them (a body it knows whole, with
// its checksum in a header; a stream, `aws-chunked` with its checksum in a trailer: "Signature Calculations for the
// Authorization Header: Transferring Payload in Multiple Chunks", https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
// and "... with trailing checksums", https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html);
// HeadObject, DeleteObject and ListObjectsV2 (prefix, delimiter, pages); errors in S3's shape ("Error responses",
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html); the listeners of changes told once stored.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { ObjectChange } from '../../src/services/s3-change.ts';
import { s3Client, startS3 } from '../helpers/s3-services.ts';

let dataDir: string;
let s3: Awaited<ReturnType<typeof startS3>>;
const changes: ObjectChange[] = [];
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 's3-'));
  s3 = await startS3([{ source: 'App/Uploads', name: 'uploads' }], dataDir);
  s3.services.onChange((change) => changes.push(change));
});
afterAll(async () => {
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const crc32Of = (data: Uint8Array) => {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(crc32(data));
  return digest.toString('base64');
};

/** Bytes of `size`, each from a seeded sequence (the same at every run of a seed). */
const bytesOf = (size: number, seed: number) => {
  const data = Buffer.alloc(size);
  let state = seed | 1;
  for (let index = 0; index < size; index += 1) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    data[index] = state >> 16;
  }
  return data;
};

/** `data` cut at `cuts` (fractions), as a stream's chunks: each an aws-chunked chunk of the SDK's. */
const chunksOf = (data: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * data.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const point of [...points, data.length]) {
    if (point > at) chunks.push(data.subarray(at, point));
    at = Math.max(at, point);
  }
  return chunks;
};

// PutObject ("PutObject", https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html): the object holds the
// bytes sent, not their framing; the CRC-32 the SDK sends (its default checksum) is checked and returned by GetObject
// with x-amz-checksum-mode ENABLED, which the SDK sends and checks by default.
test('a stream PutObject sends aws-chunked (any sizes, any chunks) is stored as the bytes sent', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.constantFrom(0, 1, 2, 8191, 8192, 8193, 65535, 65536, 65537, 131072),
        fc.integer({ min: 0, max: 300_000 }),
      ),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
      fc.integer(),
      async (size, cuts, seed) => {
        const data = bytesOf(size, seed);
        const key = `streamed/${size}-${seed}`;
        const put = await s3.client.send(
          new PutObjectCommand({
            Bucket: 'uploads',
            Key: key,
            Body: Readable.from(chunksOf(data, cuts)),
            ContentLength: size,
          }),
        );
        expect(put.ChecksumCRC32).toBe(crc32Of(data));
        const got = await s3.client.send(new GetObjectCommand({ Bucket: 'uploads', Key: key }));
        const body = Buffer.from((await got.Body?.transformToByteArray()) ?? []);
        expect({ size: body.length, same: body.equals(data), checksum: got.ChecksumCRC32 }).toEqual({
          size,
          same: true,
          checksum: crc32Of(data),
        });
      },
    ),
    { numRuns: 25 },
  );
});

test('a body the SDK knows whole (its checksum in a header) is stored as sent, with its content headers', async () => {
  const data = bytesOf(70_000, 7);
  await s3.client.send(
    new PutObjectCommand({
      Bucket: 'uploads',
      Key: 'whole.bin',
      Body: data,
      ContentType: 'application/x-test',
      ContentDisposition: 'attachment; filename="whole.bin"',
      CacheControl: 'max-age=60',
      Metadata: { owner: 'tests', Mixed: 'Case' },
    }),
  );
  const got = await s3.client.send(new GetObjectCommand({ Bucket: 'uploads', Key: 'whole.bin' }));
  expect(Buffer.from((await got.Body?.transformToByteArray()) ?? []).equals(data)).toBe(true);
  expect(got).toMatchObject({
    ContentType: 'application/x-test',
    ContentDisposition: 'attachment; filename="whole.bin"',
    CacheControl: 'max-age=60',
    ContentLength: 70_000,
    Metadata: { owner: 'tests', mixed: 'Case' },
    ETag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
  });
});

// "Checking object integrity in Amazon S3" (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html):
// a checksum that is not the bytes' is refused (BadDigest) and nothing is stored.
test('a checksum that does not match the bytes is refused BadDigest, and nothing is stored', async () => {
  const failure = await s3.client
    .send(new PutObjectCommand({ Bucket: 'uploads', Key: 'bad-digest', Body: 'some bytes', ChecksumCRC32: 'AAAAAA==' }))
    .catch((error: unknown) => error);
  expect(failure).toMatchObject({ name: 'BadDigest', $metadata: { httpStatusCode: 400 } });
  const missing = await s3.client
    .send(new HeadObjectCommand({ Bucket: 'uploads', Key: 'bad-digest' }))
    .catch((error: unknown) => error);
  expect(missing).toMatchObject({ name: 'NotFound', $metadata: { httpStatusCode: 404 } });
});

test('HeadObject, DeleteObject; a missing key and a missing bucket answered as S3 answers them', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'to-delete', Body: 'eleven byte' }));
  const head = await s3.client.send(new HeadObjectCommand({ Bucket: 'uploads', Key: 'to-delete' }));
  expect(head).toMatchObject({ ContentLength: 11, ETag: '"b7b63b3c5ab232ff5122fbf1e81f0529"' });
  await s3.client.send(new DeleteObjectCommand({ Bucket: 'uploads', Key: 'to-delete' }));
  const missingKey = await s3.client
    .send(new GetObjectCommand({ Bucket: 'uploads', Key: 'to-delete' }))
    .catch((error: unknown) => error);
  expect(missingKey).toMatchObject({
    name: 'NoSuchKey',
    Key: 'to-delete',
    message: 'The specified key does not exist.',
    $metadata: { httpStatusCode: 404 },
  });
  const missingBucket = await s3.client
    .send(new GetObjectCommand({ Bucket: 'no-such-bucket', Key: 'x' }))
    .catch((error: unknown) => error);
  expect(missingBucket).toMatchObject({
    name: 'NoSuchBucket',
    BucketName: 'no-such-bucket',
    $metadata: { httpStatusCode: 404 },
  });
});

// "ListObjectsV2" (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html): keys in UTF-8 binary
// order; with a delimiter, the keys sharing a prefix up to it are one CommonPrefixes entry, counted in MaxKeys; a
// truncated page gives NextContinuationToken.
test('ListObjectsV2 lists by prefix and delimiter, a page at a time', async () => {
  const keys = ['list/a', 'list/b/1', 'list/b/2', 'list/c', 'list/d/1', 'list/é', 'list/z'];
  for (const key of keys) await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: key, Body: key }));
  const pages: { keys: string[]; prefixes: string[] }[] = [];
  let token: string | undefined;
  do {
    const page = await s3.client.send(
      new ListObjectsV2Command({
        Bucket: 'uploads',
        Prefix: 'list/',
        Delimiter: '/',
        MaxKeys: 2,
        ContinuationToken: token,
      }),
    );
    pages.push({
      keys: (page.Contents ?? []).map(({ Key }) => Key as string),
      prefixes: (page.CommonPrefixes ?? []).map(({ Prefix }) => Prefix as string),
    });
    token = page.NextContinuationToken;
    expect(page.IsTruncated).toBe(token !== undefined);
  } while (token);
  expect(pages).toEqual([
    { keys: ['list/a'], prefixes: ['list/b/'] },
    { keys: ['list/c'], prefixes: ['list/d/'] },
    { keys: ['list/z', 'list/é'], prefixes: [] },
  ]);
  const all = await s3.client.send(new ListObjectsV2Command({ Bucket: 'uploads', Prefix: 'list/b' }));
  expect(all.Contents?.map(({ Key, Size }) => [Key, Size])).toEqual([
    ['list/b/1', 8],
    ['list/b/2', 8],
  ]);
});

test('each change is told once stored, with its size, ETag and a sequencer that grows', async () => {
  const told: { change: ObjectChange; stored: boolean }[] = [];
  const stop = s3.services.onChange((change) => {
    // Stored before told: the object is in the data folder already.
    const stored = readdirSync(join(dataDir, 'services', 's3', 'uploads', 'keys')).length > 0;
    told.push({ change, stored });
  });
  try {
    await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'told/one file', Body: 'abc' }));
    await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'told/one file', Body: 'abcd' }));
    await s3.client.send(new DeleteObjectCommand({ Bucket: 'uploads', Key: 'told/one file' }));
  } finally {
    stop();
  }
  expect(told.map(({ change, stored }) => [change.eventName, change.key, change.size, stored])).toEqual([
    ['ObjectCreated:Put', 'told/one file', 3, true],
    ['ObjectCreated:Put', 'told/one file', 4, true],
    ['ObjectRemoved:Delete', 'told/one file', 4, true],
  ]);
  const [first, second] = told.map(({ change }) => change);
  expect(first).toMatchObject({
    bucket: 'uploads',
    eTag: '900150983cd24fb0d6963f7d28e17f72',
    sourceIp: '127.0.0.1',
    requestId: expect.stringMatching(/^[0-9A-F]{16}$/),
    sequencer: expect.stringMatching(/^[0-9A-F]+$/),
  });
  expect(BigInt(`0x${second?.sequencer}`) > BigInt(`0x${first?.sequencer}`)).toBe(true);
});

test('objects are kept in the data folder: a new start serves them', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'kept', Body: 'kept bytes' }));
  const again = await startS3([{ source: 'App/Uploads', name: 'uploads' }], dataDir);
  try {
    const got = await again.client.send(new GetObjectCommand({ Bucket: 'uploads', Key: 'kept' }));
    expect(await got.Body?.transformToString()).toBe('kept bytes');
  } finally {
    await again.close();
  }
});

test('a damaged file of the data folder is named: the request answers 500, the log says which file', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'damaged', Body: 'x' }));
  const folder = join(dataDir, 'services', 's3', 'uploads', 'keys');
  const before = new Set(readdirSync(folder));
  const written = await s3.client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'to-damage', Body: 'y' }));
  expect(written.ETag).toBeDefined();
  const file = readdirSync(folder).find((name) => !before.has(name)) as string;
  writeFileSync(join(folder, file), '{"key": "to-dam');
  const once = s3Client(s3.services.urls.s3, { maxAttempts: 1 });
  try {
    const failure = await once
      .send(new GetObjectCommand({ Bucket: 'uploads', Key: 'to-damage' }))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      name: 'InternalError',
      message: expect.stringContaining(
        `services/s3/uploads/keys/${file} in the data folder is not what the runner writes`,
      ),
      $metadata: { httpStatusCode: 500 },
    });
  } finally {
    once.destroy();
    rmSync(join(folder, file));
  }
  expect(s3.log).toEqual([expect.stringContaining(`services/s3/uploads/keys/${file} in the data folder`)]);
});
