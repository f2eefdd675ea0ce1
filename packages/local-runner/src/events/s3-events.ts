// What S3 sends of an object's change: the event record of a notification to a function, a queue or a topic ("Event
// message structure", Amazon S3 User Guide,
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html), and the event it puts on
// the default bus when the bucket sends to EventBridge ("EventBridge event message structure",
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/ev-events.html). The local S3's notifications
// (services/s3-notifications.ts) and `generate-event s3` (sample-events.ts) build them here.
import { createHash } from 'node:crypto';
import { isIPv4 } from 'node:net';
import { localAws } from '../app/local-aws.ts';
import type { ObjectChange } from '../services/s3-change.ts';

/**
 * A key as a record gives it: "The object key name value is URL encoded. For example, "red flower.jpg" becomes
 * "red+flower.jpg"" (application/x-www-form-urlencoded: a space as `+`, every byte but letters, digits and `*-._` as
 * `%XX` of its UTF-8), with `/` left as it is, as S3 does (observed: minio/minio#11665, aws/aws-sdk-net#640).
 */
export const encodedKey = (key: string) => new URLSearchParams({ k: key }).toString().slice(2).replaceAll('%2F', '/');

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The bucket owner's canonical-looking id and the caller's principal: the runner's one local account's. */
const ownerId = `A${md5(`owner:${localAws.accountId}`).slice(0, 13).toUpperCase()}`;
const principalId = `AWS:AIDA${md5(`caller:${localAws.accountId}`).slice(0, 17).toUpperCase()}`;

/** The caller's address as S3 gives it, an IPv4 address (a loopback client's IPv4-mapped IPv6 one unmapped). */
const sourceAddress = (ip: string) => {
  const unmapped = ip.replace(/^::ffff:/, '');
  return isIPv4(unmapped) ? unmapped : '127.0.0.1';
};

const bucketArn = (bucket: string) => `arn:${localAws.partition}:s3:::${bucket}`;

const isCreated = (change: ObjectChange) => change.eventName.startsWith('ObjectCreated:');

/** The record of `change` for the notification configuration `configurationId`. */
const s3Record = (change: ObjectChange, configurationId: string) => ({
  eventVersion: '2.1',
  eventSource: 'aws:s3',
  awsRegion: localAws.region,
  eventTime: change.time.toISOString(),
  eventName: change.eventName,
  userIdentity: { principalId },
  requestParameters: { sourceIPAddress: sourceAddress(change.sourceIp) },
  responseElements: {
    'x-amz-request-id': change.requestId,
    'x-amz-id-2': Buffer.from(md5(`host:${change.requestId}`)).toString('base64'),
  },
  s3: {
    s3SchemaVersion: '1.0',
    configurationId,
    bucket: { name: change.bucket, ownerIdentity: { principalId: ownerId }, arn: bucketArn(change.bucket) },
    object: {
      key: encodedKey(change.key),
      // An object removed has no size or ETag in its record.
      ...(isCreated(change) && change.size !== undefined && { size: change.size }),
      ...(isCreated(change) && change.eTag !== undefined && { eTag: change.eTag.replaceAll('"', '') }),
      ...(change.versionId !== undefined && { versionId: change.versionId }),
      sequencer: change.sequencer,
    },
  },
});

/** What S3 sends to a function, a queue or a topic: one record. */
export const s3Event = (change: ObjectChange, configurationId: string) => ({
  Records: [s3Record(change, configurationId)],
});

/** The `reason` of an EventBridge event: the operation that made it. */
const reasons: Record<ObjectChange['eventName'], string> = {
  'ObjectCreated:Put': 'PutObject',
  'ObjectCreated:Post': 'POST Object',
  'ObjectCreated:Copy': 'CopyObject',
  'ObjectCreated:CompleteMultipartUpload': 'CompleteMultipartUpload',
  'ObjectRemoved:Delete': 'DeleteObject',
  'ObjectRemoved:DeleteMarkerCreated': 'DeleteObject',
};

/**
 * The event S3 puts on the default bus for `change`: `Object Created` or `Object Deleted`, its detail's key not
 * encoded, `deletion-type` telling a delete marker from an object deleted.
 */
export const s3BusEvent = (change: ObjectChange) => {
  const created = isCreated(change);
  return {
    source: 'aws.s3',
    'detail-type': created ? 'Object Created' : 'Object Deleted',
    time: change.time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    resources: [bucketArn(change.bucket)],
    detail: {
      version: '0',
      bucket: { name: change.bucket },
      object: {
        key: change.key,
        ...(created && change.size !== undefined && { size: change.size }),
        ...(created && change.eTag !== undefined && { etag: change.eTag.replaceAll('"', '') }),
        ...(change.versionId !== undefined && { 'version-id': change.versionId }),
        sequencer: change.sequencer,
      },
      'request-id': change.requestId,
      requester: localAws.accountId,
      'source-ip-address': sourceAddress(change.sourceIp),
      reason: reasons[change.eventName],
      ...(!created && {
        'deletion-type':
          change.eventName === 'ObjectRemoved:DeleteMarkerCreated' ? 'Delete Marker Created' : 'Permanently Deleted',
      }),
    },
  };
};

/** The message S3 sends a queue or topic when a configuration first sends to it ("Using Amazon SQS, Amazon SNS, and Lambda"). */
export const s3TestEvent = (bucket: string, time: Date, requestId: string) => ({
  Service: 'Amazon S3',
  Event: 's3:TestEvent',
  Time: time.toISOString(),
  Bucket: bucket,
  RequestId: requestId,
  HostId: Buffer.from(md5(`host:${requestId}`)).toString('base64'),
});
