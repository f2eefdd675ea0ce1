// The local S3's object operations beyond the plain PUT and GET, as the SDK for JavaScript v3 calls them: multipart
// uploads ("Uploading and copying objects using multipart upload", Amazon S3 User Guide,
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html), ranges and conditional requests
// ("GetObject", https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html), CopyObject
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html), versioning ("Retaining multiple versions of
// objects with S3 Versioning", https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html), and
// virtual-hosted style addressing ("Virtual hosting of buckets", https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ObjectChange } from '../../src/services/s3-change.ts';
import { s3Client, startS3 } from '../helpers/s3-services.ts';

let s3: Awaited<ReturnType<typeof startS3>>;
const changes: ObjectChange[] = [];
beforeAll(async () => {
  s3 = await startS3([
    { source: 'App/Plain', name: 'plain' },
    { source: 'App/Versioned', name: 'versioned', versioning: 'Enabled' },
  ]);
  s3.services.onChange((change) => changes.push(change));
});
afterAll(() => s3?.close());

const bytes = (size: number, fill: number) => Buffer.alloc(size, fill);
const md5 = (data: Buffer) => createHash('md5').update(data).digest();
const bodyOf = async (output: { Body?: { transformToByteArray(): Promise<Uint8Array> } }) =>
  Buffer.from((await output.Body?.transformToByteArray()) ?? []);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

// "Amazon S3 multipart upload limits": parts of at least 5 MiB but the last; the ETag of the whole is the MD5 of
// the parts' MD5s, `-<parts>` (what deployed S3 answers; "Checking object integrity" describes it).
test('a multipart upload (parts sent whole and streamed) is the parts joined, its ETag and checksum as S3s', async () => {
  const parts = [bytes(5 * 1024 * 1024, 1), bytes(5 * 1024 * 1024 + 17, 2), bytes(12_345, 3)];
  const { UploadId } = await s3.client.send(
    new CreateMultipartUploadCommand({
      Bucket: 'plain',
      Key: 'big/object',
      ContentType: 'video/mp4',
      ChecksumAlgorithm: 'CRC32',
    }),
  );
  const uploaded = [];
  for (const [index, part] of parts.entries())
    uploaded.push(
      await s3.client.send(
        new UploadPartCommand({
          Bucket: 'plain',
          Key: 'big/object',
          UploadId,
          PartNumber: index + 1,
          // The second streamed: aws-chunked, its checksum in a trailer.
          Body: index === 1 ? Readable.from([part.subarray(0, 70_000), part.subarray(70_000)]) : part,
          ContentLength: part.length,
          ChecksumAlgorithm: 'CRC32',
        }),
      ),
    );
  const listed = await s3.client.send(new ListPartsCommand({ Bucket: 'plain', Key: 'big/object', UploadId }));
  expect(listed.Parts?.map(({ PartNumber, Size }) => [PartNumber, Size])).toEqual(
    parts.map((p, i) => [i + 1, p.length]),
  );
  const done = await s3.client.send(
    new CompleteMultipartUploadCommand({
      Bucket: 'plain',
      Key: 'big/object',
      UploadId,
      MultipartUpload: {
        Parts: uploaded.map(({ ETag, ChecksumCRC32 }, i) => ({ PartNumber: i + 1, ETag, ChecksumCRC32 })),
      },
    }),
  );
  const eTag = `"${createHash('md5')
    .update(Buffer.concat(parts.map(md5)))
    .digest('hex')}-3"`;
  expect(done).toMatchObject({ ETag: eTag, ChecksumCRC32: expect.stringMatching(/-3$/) });
  const got = await s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'big/object' }));
  expect({ same: (await bodyOf(got)).equals(Buffer.concat(parts)), type: got.ContentType, eTag: got.ETag }).toEqual({
    same: true,
    type: 'video/mp4',
    eTag,
  });
  const second = await s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'big/object', PartNumber: 2 }));
  expect((await bodyOf(second)).equals(parts[1] as Buffer)).toBe(true);
  expect(second.PartsCount).toBe(3);
  expect(changes.filter((c) => c.key === 'big/object').map((c) => [c.eventName, c.size])).toEqual([
    ['ObjectCreated:CompleteMultipartUpload', parts.reduce((sum, p) => sum + p.length, 0)],
  ]);
}, 60_000);

test('a part under 5 MiB but the last is refused EntityTooSmall; parts out of order InvalidPartOrder', async () => {
  const { UploadId } = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: 'plain', Key: 'small-parts' }));
  const one = await s3.client.send(
    new UploadPartCommand({ Bucket: 'plain', Key: 'small-parts', UploadId, PartNumber: 1, Body: 'one' }),
  );
  const two = await s3.client.send(
    new UploadPartCommand({ Bucket: 'plain', Key: 'small-parts', UploadId, PartNumber: 2, Body: 'two' }),
  );
  const complete = (Parts: { PartNumber: number; ETag: string | undefined }[]) =>
    failure(
      s3.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'plain',
          Key: 'small-parts',
          UploadId,
          MultipartUpload: { Parts },
        }),
      ),
    );
  expect(
    await complete([
      { PartNumber: 2, ETag: two.ETag },
      { PartNumber: 1, ETag: one.ETag },
    ]),
  ).toMatchObject({
    name: 'InvalidPartOrder',
  });
  expect(
    await complete([
      { PartNumber: 1, ETag: one.ETag },
      { PartNumber: 2, ETag: two.ETag },
    ]),
  ).toMatchObject({
    name: 'EntityTooSmall',
    $metadata: { httpStatusCode: 400 },
  });
  expect(await complete([{ PartNumber: 1, ETag: '"0123"' }])).toMatchObject({ name: 'InvalidPart' });
  expect(
    await failure(s3.client.send(new ListPartsCommand({ Bucket: 'plain', Key: 'small-parts', UploadId: 'nope' }))),
  ).toMatchObject({ name: 'NoSuchUpload', $metadata: { httpStatusCode: 404 } });
});

test('ranges: first-last, from, the last n bytes; one past the end is 416 InvalidRange', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'digits', Body: '0123456789' }));
  const range = async (Range: string) => {
    const got = await s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'digits', Range }));
    return [(await bodyOf(got)).toString(), got.ContentRange, got.$metadata.httpStatusCode];
  };
  expect(await range('bytes=2-4')).toEqual(['234', 'bytes 2-4/10', 206]);
  expect(await range('bytes=7-')).toEqual(['789', 'bytes 7-9/10', 206]);
  expect(await range('bytes=-3')).toEqual(['789', 'bytes 7-9/10', 206]);
  expect(await range('bytes=8-100')).toEqual(['89', 'bytes 8-9/10', 206]);
  expect(
    await failure(s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'digits', Range: 'bytes=10-' }))),
  ).toMatchObject({
    name: 'InvalidRange',
    $metadata: { httpStatusCode: 416 },
  });
});

test('conditions: If-Match false is 412, If-None-Match true is 304; If-None-Match: * refuses an overwrite', async () => {
  const { ETag } = await s3.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'conditional', Body: 'v1' }));
  const matched = await s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'conditional', IfMatch: ETag }));
  expect((await bodyOf(matched)).toString()).toBe('v1');
  expect(
    await failure(s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'conditional', IfMatch: '"other"' }))),
  ).toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
  expect(
    await failure(s3.client.send(new HeadObjectCommand({ Bucket: 'plain', Key: 'conditional', IfNoneMatch: ETag }))),
  ).toMatchObject({ $metadata: { httpStatusCode: 304 } });
  const later = new Date(Date.now() + 60_000);
  expect(
    await failure(
      s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'conditional', IfModifiedSince: later })),
    ),
  ).toMatchObject({ $metadata: { httpStatusCode: 304 } });
  // "Conditional writes" (Amazon S3 User Guide, https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html).
  expect(
    await failure(
      s3.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'conditional', Body: 'v2', IfNoneMatch: '*' })),
    ),
  ).toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
});

test("CopyObject keeps the metadata (COPY) or takes the request's (REPLACE); a copy onto itself must change some", async () => {
  await s3.client.send(
    new PutObjectCommand({
      Bucket: 'plain',
      Key: 'source file',
      Body: 'copied bytes',
      ContentType: 'text/plain',
      Metadata: { a: '1' },
    }),
  );
  const copied = await s3.client.send(
    new CopyObjectCommand({ Bucket: 'versioned', Key: 'copy', CopySource: 'plain/source%20file' }),
  );
  expect(copied.CopyObjectResult?.ETag).toBe(`"${createHash('md5').update('copied bytes').digest('hex')}"`);
  const got = await s3.client.send(new GetObjectCommand({ Bucket: 'versioned', Key: 'copy' }));
  expect([(await bodyOf(got)).toString(), got.ContentType, got.Metadata]).toEqual([
    'copied bytes',
    'text/plain',
    { a: '1' },
  ]);
  await s3.client.send(
    new CopyObjectCommand({
      Bucket: 'plain',
      Key: 'source file',
      CopySource: 'plain/source%20file',
      MetadataDirective: 'REPLACE',
      Metadata: { b: '2' },
    }),
  );
  const replaced = await s3.client.send(new HeadObjectCommand({ Bucket: 'plain', Key: 'source file' }));
  expect(replaced.Metadata).toEqual({ b: '2' });
  expect(
    await failure(
      s3.client.send(new CopyObjectCommand({ Bucket: 'plain', Key: 'source file', CopySource: 'plain/source%20file' })),
    ),
  ).toMatchObject({ name: 'InvalidRequest', $metadata: { httpStatusCode: 400 } });
  expect(changes.filter((c) => c.eventName === 'ObjectCreated:Copy').map((c) => [c.bucket, c.key])).toEqual([
    ['versioned', 'copy'],
    ['plain', 'source file'],
  ]);
});

test('a versioned bucket keeps every version; a delete puts a marker; an old version is read by its id', async () => {
  const first = await s3.client.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'doc', Body: 'one' }));
  const second = await s3.client.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'doc', Body: 'two' }));
  expect(first.VersionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect(second.VersionId).not.toBe(first.VersionId);
  const deleted = await s3.client.send(new DeleteObjectCommand({ Bucket: 'versioned', Key: 'doc' }));
  expect(deleted.DeleteMarker).toBe(true);
  expect(await failure(s3.client.send(new GetObjectCommand({ Bucket: 'versioned', Key: 'doc' })))).toMatchObject({
    name: 'NoSuchKey',
  });
  const old = await s3.client.send(
    new GetObjectCommand({ Bucket: 'versioned', Key: 'doc', VersionId: first.VersionId }),
  );
  expect([(await bodyOf(old)).toString(), old.VersionId]).toEqual(['one', first.VersionId]);
  const versions = await s3.client.send(new ListObjectVersionsCommand({ Bucket: 'versioned', Prefix: 'doc' }));
  expect(versions.Versions?.map(({ VersionId, IsLatest }) => [VersionId, IsLatest])).toEqual([
    [second.VersionId, false],
    [first.VersionId, false],
  ]);
  expect(versions.DeleteMarkers?.map(({ VersionId, IsLatest }) => [VersionId, IsLatest])).toEqual([
    [deleted.VersionId, true],
  ]);
  expect(changes.filter((c) => c.key === 'doc').map((c) => c.eventName)).toEqual([
    'ObjectCreated:Put',
    'ObjectCreated:Put',
    'ObjectRemoved:DeleteMarkerCreated',
  ]);
  // Removing the marker (by its version) brings the object back.
  await s3.client.send(new DeleteObjectCommand({ Bucket: 'versioned', Key: 'doc', VersionId: deleted.VersionId }));
  expect(
    (await bodyOf(await s3.client.send(new GetObjectCommand({ Bucket: 'versioned', Key: 'doc' })))).toString(),
  ).toBe('two');
});

test('virtual-hosted style: <bucket>.localhost names the bucket, the path the key', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'hosted/key.txt', Body: 'by host' }));
  const port = new URL(s3.services.urls.s3).port;
  // Signed by a client addressing the bucket by host (forcePathStyle off, an endpoint naming localhost).
  const hosted = s3Client(`http://localhost:${port}`, { forcePathStyle: false });
  const sent: string[] = [];
  hosted.middlewareStack.add(
    (next) => async (args) => {
      const { hostname, path } = args.request as { hostname: string; path: string };
      sent.push(`${hostname}${path}`);
      // Node resolves plain `localhost` alone: the request goes to 127.0.0.1, its Host header naming the bucket.
      (args.request as { hostname: string }).hostname = '127.0.0.1';
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low' },
  );
  try {
    const got = await hosted.send(new GetObjectCommand({ Bucket: 'plain', Key: 'hosted/key.txt' }));
    expect([sent, (await bodyOf(got)).toString()]).toEqual([['plain.localhost/hosted/key.txt'], 'by host']);
  } finally {
    hosted.destroy();
  }
});

// "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)"
// (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html): a presigned URL is good for
// X-Amz-Expires seconds after X-Amz-Date; "Error responses": AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch.
test('a presigned URL works until it expires, then AccessDenied; unsigned, another key, a changed URL refused', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'signed.txt', Body: 'signed' }));
  const get = new GetObjectCommand({ Bucket: 'plain', Key: 'signed.txt' });
  const fresh = await getSignedUrl(s3.client, get, { expiresIn: 60 });
  expect(await (await fetch(fresh)).text()).toBe('signed');
  const old = await getSignedUrl(s3.client, get, { expiresIn: 60, signingDate: new Date(Date.now() - 3_600_000) });
  const expired = await fetch(old);
  expect([expired.status, await expired.text()]).toEqual([
    403,
    expect.stringMatching(
      /<Code>AccessDenied<\/Code><Message>Request has expired<\/Message><X-Amz-Expires>60<\/X-Amz-Expires>/,
    ),
  ]);
  const unsigned = await fetch(`${s3.services.urls.s3}/plain/signed.txt`);
  expect([unsigned.status, await unsigned.text()]).toEqual([403, expect.stringContaining('<Code>AccessDenied</Code>')]);
  const changed = await fetch(fresh.replace('signed.txt', 'other.txt'));
  expect([changed.status, await changed.text()]).toEqual([
    403,
    expect.stringContaining('<Code>SignatureDoesNotMatch</Code>'),
  ]);
  const stranger = s3Client(s3.services.urls.s3, {
    credentials: { accessKeyId: 'AKIDSTRANGER', secretAccessKey: 'x' },
  });
  try {
    expect(await failure(stranger.send(get))).toMatchObject({
      name: 'InvalidAccessKeyId',
      $metadata: { httpStatusCode: 403 },
    });
  } finally {
    stranger.destroy();
  }
});

// "How does Amazon S3 evaluate the CORS configuration on a bucket?" (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html):
// the first rule whose AllowedOrigin, AllowedMethod and AllowedHeader match the preflight answers it; none: 403.
test('a preflight is answered by the first rule that matches; a bucket with no CORS rules refuses it', async () => {
  await s3.client.send(
    new PutBucketCorsCommand({
      Bucket: 'versioned',
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: ['http://*.example.localhost'],
            AllowedMethods: ['GET'],
            AllowedHeaders: ['x-amz-*'],
            MaxAgeSeconds: 30,
          },
          { AllowedOrigins: ['*'], AllowedMethods: ['GET', 'PUT'], ExposeHeaders: ['ETag'] },
        ],
      },
    }),
  );
  const preflight = (bucket: string, origin: string, method: string, headers?: string) =>
    fetch(`${s3.services.urls.s3}/${bucket}/object`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': method,
        ...(headers && { 'Access-Control-Request-Headers': headers }),
      },
    });
  const first = await preflight('versioned', 'http://app.example.localhost', 'GET', 'x-amz-date');
  expect([
    first.status,
    first.headers.get('access-control-allow-origin'),
    first.headers.get('access-control-max-age'),
  ]).toEqual([200, 'http://app.example.localhost', '30']);
  const second = await preflight('versioned', 'http://app.example.localhost', 'PUT');
  expect([
    second.status,
    second.headers.get('access-control-allow-origin'),
    second.headers.get('access-control-allow-methods'),
  ]).toEqual([200, '*', 'GET, PUT']);
  const headerRefused = await preflight('versioned', 'http://app.example.localhost', 'PUT', 'x-custom');
  expect([headerRefused.status, await headerRefused.text()]).toEqual([
    403,
    expect.stringContaining('<Code>AccessForbidden</Code>'),
  ]);
  const noRules = await preflight('plain', 'http://localhost:3000', 'GET');
  expect([noRules.status, await noRules.text()]).toEqual([
    403,
    expect.stringContaining('CORS is not enabled for this bucket'),
  ]);
});

// "UploadPartCopy" (https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPartCopy.html), "ListMultipartUploads",
// "AbortMultipartUpload": a part copied from an object's range; an upload listed until aborted, then NoSuchUpload.
test('UploadPartCopy copies a range of an object; uploads are listed until aborted', async () => {
  await s3.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'copy-source', Body: 'abcdefghij' }));
  const { UploadId } = await s3.client.send(
    new CreateMultipartUploadCommand({
      Bucket: 'plain',
      Key: 'assembled',
      ChecksumAlgorithm: 'SHA256',
      ChecksumType: 'COMPOSITE',
    }),
  );
  const listed = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: 'plain', Prefix: 'assembled' }));
  expect(listed.Uploads?.map(({ Key, UploadId: id }) => [Key, id])).toEqual([['assembled', UploadId]]);
  const copied = await s3.client.send(
    new UploadPartCopyCommand({
      Bucket: 'plain',
      Key: 'assembled',
      UploadId,
      PartNumber: 1,
      CopySource: 'plain/copy-source',
      CopySourceRange: 'bytes=2-5',
    }),
  );
  expect(copied.CopyPartResult?.ETag).toBe(`"${createHash('md5').update('cdef').digest('hex')}"`);
  const done = await s3.client.send(
    new CompleteMultipartUploadCommand({
      Bucket: 'plain',
      Key: 'assembled',
      UploadId,
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: copied.CopyPartResult?.ETag, ChecksumSHA256: copied.CopyPartResult?.ChecksumSHA256 },
        ],
      },
    }),
  );
  expect(done.ChecksumSHA256).toMatch(/-1$/);
  expect(
    (await bodyOf(await s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'assembled' })))).toString(),
  ).toBe('cdef');
  const second = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: 'plain', Key: 'abandoned' }));
  await s3.client.send(
    new AbortMultipartUploadCommand({ Bucket: 'plain', Key: 'abandoned', UploadId: second.UploadId }),
  );
  expect(
    (await s3.client.send(new ListMultipartUploadsCommand({ Bucket: 'plain', Prefix: 'abandoned' }))).Uploads ?? [],
  ).toEqual([]);
  expect(
    await failure(
      s3.client.send(new AbortMultipartUploadCommand({ Bucket: 'plain', Key: 'abandoned', UploadId: second.UploadId })),
    ),
  ).toMatchObject({ name: 'NoSuchUpload', $metadata: { httpStatusCode: 404 } });
});

// "CreateBucket", "DeleteBucket", "PutBucketVersioning" (Amazon S3 API Reference): a bucket made, versioning turned
// on and suspended (a suspended bucket writes the `null` version), refused while it holds objects, then deleted.
test('buckets are created, versioned, suspended, refused deletion while not empty, deleted', async () => {
  await s3.client.send(new CreateBucketCommand({ Bucket: 'made-here' }));
  expect(await failure(s3.client.send(new CreateBucketCommand({ Bucket: 'made-here' })))).toMatchObject({
    name: 'BucketAlreadyOwnedByYou',
  });
  expect(await failure(s3.client.send(new CreateBucketCommand({ Bucket: 'Not_Valid' })))).toMatchObject({
    name: 'InvalidBucketName',
  });
  await s3.client.send(
    new PutBucketVersioningCommand({ Bucket: 'made-here', VersioningConfiguration: { Status: 'Enabled' } }),
  );
  const first = await s3.client.send(new PutObjectCommand({ Bucket: 'made-here', Key: 'k', Body: '1' }));
  await s3.client.send(
    new PutBucketVersioningCommand({ Bucket: 'made-here', VersioningConfiguration: { Status: 'Suspended' } }),
  );
  const second = await s3.client.send(new PutObjectCommand({ Bucket: 'made-here', Key: 'k', Body: '2' }));
  expect([first.VersionId?.length, second.VersionId]).toEqual([32, 'null']);
  expect((await s3.client.send(new GetBucketVersioningCommand({ Bucket: 'made-here' }))).Status).toBe('Suspended');
  expect(await failure(s3.client.send(new DeleteBucketCommand({ Bucket: 'made-here' })))).toMatchObject({
    name: 'BucketNotEmpty',
    $metadata: { httpStatusCode: 409 },
  });
  await s3.client.send(
    new DeleteObjectsCommand({
      Bucket: 'made-here',
      Delete: {
        Objects: [
          { Key: 'k', VersionId: first.VersionId },
          { Key: 'k', VersionId: 'null' },
        ],
      },
    }),
  );
  await s3.client.send(new DeleteBucketCommand({ Bucket: 'made-here' }));
  expect(await failure(s3.client.send(new HeadBucketCommand({ Bucket: 'made-here' })))).toMatchObject({
    $metadata: { httpStatusCode: 404 },
  });
});

// "PostObject" (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html) and "Creating a POST policy"
// (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html): a form the SDK's
// createPresignedPost signs uploads the file under its key (`${filename}` replaced), told as ObjectCreated:Post; a
// field the policy does not allow, a file over its content-length-range, or another signature is refused.
test('a form upload (createPresignedPost) stores the file; the policy and its signature are enforced', async () => {
  const post = await createPresignedPost(s3.client, {
    Bucket: 'plain',
    Key: 'forms/${filename}',
    Conditions: [
      ['starts-with', '$key', 'forms/'],
      ['content-length-range', 1, 100],
      ['starts-with', '$Content-Type', 'text/'],
    ],
    Fields: { success_action_status: '201' },
    Expires: 60,
  });
  const upload = (fields: Record<string, string>, file: string) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([file], { type: 'text/plain' }), 'note.txt');
    return fetch(post.url, { method: 'POST', body: form });
  };
  const stored = await upload({ ...post.fields, 'Content-Type': 'text/plain' }, 'posted by a form');
  expect([stored.status, await stored.text()]).toEqual([201, expect.stringContaining('<Key>forms/note.txt</Key>')]);
  const got = await s3.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'forms/note.txt' }));
  expect([(await bodyOf(got)).toString(), got.ContentType]).toEqual(['posted by a form', 'text/plain']);
  expect(changes.filter((c) => c.key === 'forms/note.txt').map((c) => c.eventName)).toEqual(['ObjectCreated:Post']);
  const tooBig = await upload({ ...post.fields, 'Content-Type': 'text/plain' }, 'x'.repeat(101));
  expect([tooBig.status, await tooBig.text()]).toEqual([400, expect.stringContaining('<Code>EntityTooLarge</Code>')]);
  const extra = await upload({ ...post.fields, 'Content-Type': 'text/plain', 'x-amz-meta-extra': '1' }, 'x');
  expect([extra.status, await extra.text()]).toEqual([
    403,
    expect.stringContaining('Extra input fields: x-amz-meta-extra'),
  ]);
  const wrongType = await upload({ ...post.fields, 'Content-Type': 'image/png' }, 'x');
  expect([wrongType.status, await wrongType.text()]).toEqual([403, expect.stringContaining('Policy Condition failed')]);
  const forged = await upload({ ...post.fields, 'Content-Type': 'text/plain', 'X-Amz-Signature': '0'.repeat(64) }, 'x');
  expect([forged.status, await forged.text()]).toEqual([
    403,
    expect.stringContaining('<Code>SignatureDoesNotMatch</Code>'),
  ]);
});

// The SDK for JavaScript v2 (which nodejs16.x and older functions have), with the path-style addressing the runner
// gives its S3 client (lambda/runtime.mjs): its calls served; its presigned URLs, Signature Version 2 by default,
// refused as S3 refuses them where it takes Signature Version 4 alone.
test('the SDK v2 puts and gets; its Signature Version 2 URL is refused InvalidRequest, its v4 one served', async () => {
  const AWS = createRequire(import.meta.url)('aws-sdk') as {
    S3: new (
      options: object,
    ) => {
      putObject(input: object): { promise(): Promise<unknown> };
      getObject(input: object): { promise(): Promise<{ Body: Buffer }> };
      getSignedUrl(operation: string, input: object): string;
    };
  };
  const options = {
    endpoint: s3.services.urls.s3,
    s3ForcePathStyle: true,
    region: 'us-east-1',
    credentials: localAws.credentials,
  };
  const v2 = new AWS.S3(options);
  await v2.putObject({ Bucket: 'plain', Key: 'v2 object', Body: 'from the SDK v2' }).promise();
  expect(String((await v2.getObject({ Bucket: 'plain', Key: 'v2 object' }).promise()).Body)).toBe('from the SDK v2');
  const sigV2 = await fetch(v2.getSignedUrl('getObject', { Bucket: 'plain', Key: 'v2 object' }));
  expect([sigV2.status, await sigV2.text()]).toEqual([400, expect.stringContaining('Please use AWS4-HMAC-SHA256')]);
  const v4 = new AWS.S3({ ...options, signatureVersion: 'v4' });
  const sigV4 = await fetch(v4.getSignedUrl('getObject', { Bucket: 'plain', Key: 'v2 object' }));
  expect([sigV4.status, await sigV4.text()]).toEqual([200, 'from the SDK v2']);
});
