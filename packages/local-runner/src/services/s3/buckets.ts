// The bucket operations of the local S3 (Amazon S3 API Reference): ListBuckets, CreateBucket, HeadBucket,
// DeleteBucket, GetBucketLocation, Get/PutBucketVersioning and Get/Put/DeleteBucketCors.
import { localAws } from '../../app/local-aws.ts';
import type { S3Answer, S3Call, S3Context } from './call.ts';
import { xmlAnswer } from './call.ts';
import { rulesOfXml, rulesXml } from './cors.ts';
import { malformedXml, S3Error } from './errors.ts';
import type { BucketRecord } from './store.ts';
import { parseXml, textOf, type XmlChild, xmlDocument } from './xml.ts';

/** "Bucket naming rules" (Amazon S3 User Guide): 3 to 63 lower-case letters, digits, dots and hyphens. */
const validBucketName = (name: string) =>
  /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
  !name.includes('..') &&
  !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
  !name.startsWith('xn--');

export const listBuckets = (context: S3Context): S3Answer => {
  const buckets = context.store.buckets().map(
    (bucket): XmlChild => [
      'Bucket',
      [
        ['Name', bucket.name],
        ['CreationDate', new Date(bucket.created).toISOString()],
        ['BucketRegion', localAws.region],
      ],
    ],
  );
  return xmlAnswer(
    xmlDocument('ListAllMyBucketsResult', [
      [
        'Owner',
        [
          ['ID', '0000000000000000000000000000000000000000000000000000000000000000'],
          ['DisplayName', 'local'],
        ],
      ],
      ['Buckets', buckets],
    ]),
  );
};

export const createBucket = (context: S3Context, name: string): S3Answer => {
  if (!validBucketName(name))
    throw new S3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.', { BucketName: name });
  if (context.store.buckets().some((bucket) => bucket.name === name))
    throw new S3Error(
      409,
      'BucketAlreadyOwnedByYou',
      'Your previous request to create the named bucket succeeded and you already own it.',
      { BucketName: name },
    );
  context.store.updateBucket(name, () => undefined, true);
  return { status: 200, headers: { Location: `/${name}` } };
};

export const getBucketLocation = (): S3Answer =>
  // us-east-1's buckets have an empty LocationConstraint ("GetBucketLocation").
  xmlAnswer(
    `<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>`,
  );

export const getBucketVersioning = (bucket: BucketRecord): S3Answer =>
  xmlAnswer(xmlDocument('VersioningConfiguration', [['Status', bucket.versioning]]));

export const putBucketVersioning = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const document = parseXml(call.body);
  if (document?.root !== 'VersioningConfiguration') throw malformedXml();
  const status = textOf(document.value, 'Status');
  if (status !== undefined && status !== 'Enabled' && status !== 'Suspended') throw malformedXml();
  // A bucket that never versioned stays so until a Status turns it on ("Enabling versioning on buckets").
  if (status !== undefined) context.store.updateBucket(bucket.name, (b) => (b.versioning = status));
  return { status: 200 };
};

export const getBucketCors = (bucket: BucketRecord): S3Answer => {
  if (!bucket.cors)
    throw new S3Error(404, 'NoSuchCORSConfiguration', 'The CORS configuration does not exist', {
      BucketName: bucket.name,
    });
  return xmlAnswer(xmlDocument('CORSConfiguration', rulesXml(bucket.cors)));
};

export const putBucketCors = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const document = parseXml(call.body);
  if (document?.root !== 'CORSConfiguration') throw malformedXml();
  const rules = rulesOfXml(document.value);
  context.store.updateBucket(bucket.name, (b) => (b.cors = rules));
  return { status: 200 };
};

export const deleteBucketCors = (context: S3Context, bucket: BucketRecord): S3Answer => {
  context.store.updateBucket(bucket.name, (b) => delete b.cors);
  return { status: 204 };
};
