// S3's errors, as its REST API answers them ("Error responses", Amazon S3 API Reference,
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html): a status, a code the SDKs read, a message,
// and the resource concerned, in an `<Error>` document (no body to a HEAD).
import { type XmlChild, xmlDocument } from './xml.ts';

export class S3Error extends Error {
  override name = 'S3Error';
  readonly code: string;
  readonly status: number;
  /** More elements of the `<Error>` document (Key, BucketName, ...). */
  readonly details: Record<string, string>;
  /** Headers the answer carries besides (a delete marker's). */
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const noSuchBucket = (bucket: string) =>
  new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
export const noSuchKey = (key: string, headers: Record<string, string> = {}) =>
  new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key }, headers);
export const noSuchVersion = (key: string, versionId: string) =>
  new S3Error(404, 'NoSuchVersion', 'The specified version does not exist.', { Key: key, VersionId: versionId });
export const noSuchUpload = (uploadId: string) =>
  new S3Error(
    404,
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    { UploadId: uploadId },
  );
export const invalidArgument = (message: string, name?: string, value?: string) =>
  new S3Error(400, 'InvalidArgument', message, {
    ...(name !== undefined && { ArgumentName: name }),
    ...(value !== undefined && { ArgumentValue: value }),
  });
export const invalidRequest = (message: string) => new S3Error(400, 'InvalidRequest', message);
export const malformedXml = () =>
  new S3Error(
    400,
    'MalformedXML',
    'The XML you provided was not well-formed or did not validate against our published schema',
  );
export const preconditionFailed = (condition: string) =>
  new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
    Condition: condition,
  });

/** The `<Error>` document of `error` for request `requestId`. */
export const errorDocument = (error: S3Error, resource: string, requestId: string) => {
  const children: XmlChild[] = [
    ['Code', error.code],
    ['Message', error.message],
    ...Object.entries(error.details).map(([name, value]): XmlChild => [name, value]),
    ['Resource', resource],
    ['RequestId', requestId],
  ];
  return xmlDocument('Error', children, { namespace: false });
};
