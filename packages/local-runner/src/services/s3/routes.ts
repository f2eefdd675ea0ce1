// Which S3 operation a request is: its method, whether it names a bucket and a key, and its subresource (the query
// parameter that names one: `?versioning`, `?uploads`, ...), as the Amazon S3 API Reference lays each out.
import {
  createBucket,
  deleteBucketCors,
  getBucketCors,
  getBucketLocation,
  getBucketVersioning,
  listBuckets,
  putBucketCors,
  putBucketVersioning,
} from './buckets.ts';
import { header, type S3Answer, type S3Call, type S3Context } from './call.ts';
import { S3Error } from './errors.ts';
import { isListV2, listObjects, listObjectsV2, listObjectVersions } from './list.ts';
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listMultipartUploads,
  listParts,
  uploadPart,
} from './multipart.ts';
import { copyObject, deleteObject, deleteObjects, getObject, putObject } from './objects.ts';
import { isFormUpload, postObject } from './post.ts';
import type { BucketRecord } from './store.ts';

/** Subresources the local S3 does not serve: answered 501 NotImplemented, naming them. */
const unserved = [
  'acl',
  'policy',
  'policyStatus',
  'tagging',
  'lifecycle',
  'notification',
  'website',
  'encryption',
  'replication',
  'logging',
  'accelerate',
  'requestPayment',
  'object-lock',
  'legal-hold',
  'retention',
  'inventory',
  'analytics',
  'metrics',
  'intelligent-tiering',
  'ownershipControls',
  'publicAccessBlock',
  'restore',
  'select',
  'torrent',
  'attributes',
  'session',
  'renameObject',
];

const notImplemented = (what: string) =>
  new S3Error(501, 'NotImplemented', `${what}: the local S3 does not serve it (docs/s3.md says what it serves)`);

const methodNotAllowed = (method: string, resource: string) =>
  new S3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', {
    Method: method,
    ResourceType: resource,
  });

const has = (call: S3Call, name: string) => call.query.has(name);

const bucketRoute = (context: S3Context, call: S3Call, name: string): S3Answer => {
  const { method } = call;
  if (method === 'PUT' && !has(call, 'versioning') && !has(call, 'cors')) return createBucket(context, name);
  const bucket = context.store.bucket(name);
  switch (method) {
    case 'HEAD':
      return { status: 200, headers: { 'x-amz-bucket-region': 'us-east-1' } };
    case 'GET':
      if (has(call, 'versioning')) return getBucketVersioning(bucket);
      if (has(call, 'cors')) return getBucketCors(bucket);
      if (has(call, 'location')) return getBucketLocation();
      if (has(call, 'versions')) return listObjectVersions(context, call, bucket);
      if (has(call, 'uploads')) return listMultipartUploads(context, call, bucket);
      return isListV2(call) ? listObjectsV2(context, call, bucket) : listObjects(context, call, bucket);
    case 'PUT':
      return has(call, 'versioning')
        ? putBucketVersioning(context, call, bucket)
        : putBucketCors(context, call, bucket);
    case 'DELETE':
      if (has(call, 'cors')) return deleteBucketCors(context, bucket);
      context.store.deleteBucket(name);
      return { status: 204 };
    case 'POST':
      if (has(call, 'delete')) return deleteObjects(context, call, bucket);
      if (isFormUpload({ ...call, contentType: header(call, 'content-type') }))
        return postObject(context, call, bucket);
      throw new S3Error(
        400,
        'InvalidRequest',
        'A POST to a bucket is a form upload: its body must be multipart/form-data',
      );
  }
  throw methodNotAllowed(method, 'BUCKET');
};

const objectRoute = (context: S3Context, call: S3Call, bucket: BucketRecord, key: string): S3Answer => {
  const { method } = call;
  const uploadId = call.query.get('uploadId');
  switch (method) {
    case 'PUT':
      if (uploadId !== null) return uploadPart(context, call, bucket, key, uploadId);
      if (header(call, 'x-amz-copy-source') !== undefined) return copyObject(context, call, bucket, key);
      return putObject(context, call, bucket, key);
    case 'GET':
    case 'HEAD':
      if (uploadId !== null) return listParts(context, call, bucket, key, uploadId);
      return getObject(context, call, bucket, key);
    case 'DELETE':
      if (uploadId !== null) return abortMultipartUpload(context, bucket, key, uploadId);
      return deleteObject(context, call, bucket, key);
    case 'POST':
      if (has(call, 'uploads')) return createMultipartUpload(context, call, bucket, key);
      if (uploadId !== null) return completeMultipartUpload(context, call, bucket, key, uploadId);
      throw notImplemented(`POST to an object with ?${call.query.toString()}`);
  }
  throw methodNotAllowed(method, 'OBJECT');
};

/** The answer of the operation `call` names. */
export const route = (context: S3Context, call: S3Call): S3Answer => {
  const subresource = unserved.find((name) => call.query.has(name));
  if (subresource !== undefined) throw notImplemented(`${call.method} ?${subresource}`);
  if (call.bucket === undefined) {
    if (call.method === 'GET') return listBuckets(context);
    throw methodNotAllowed(call.method, 'SERVICE');
  }
  if (call.key === undefined) return bucketRoute(context, call, call.bucket);
  if (Buffer.byteLength(call.key) > 1024)
    throw new S3Error(400, 'KeyTooLongError', 'Your key is too long', {
      Size: String(Buffer.byteLength(call.key)),
      MaxSizeAllowed: '1024',
    });
  return objectRoute(context, call, context.store.bucket(call.bucket), call.key);
};
