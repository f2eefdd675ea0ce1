// What the local S3 tells its listeners after each change it stored (never before): the object, what happened to it,
// and the fields an S3 event notification carries ("Event message structure", Amazon S3 User Guide). S3's
// notifications are built on it, apart from the S3 service, which imports nothing of theirs.

export interface ObjectChange {
  bucket: string;
  key: string; // key as stored (not encoded)
  eventName:
    | 'ObjectCreated:Put'
    | 'ObjectCreated:Post'
    | 'ObjectCreated:Copy'
    | 'ObjectCreated:CompleteMultipartUpload'
    | 'ObjectRemoved:Delete'
    | 'ObjectRemoved:DeleteMarkerCreated';
  size?: number;
  eTag?: string;
  versionId?: string;
  sequencer: string; // hex, increasing per key, as S3's
  time: Date;
  sourceIp: string;
  requestId: string;
}
