// The object operations of the local S3 (Amazon S3 API Reference): PutObject, GetObject and HeadObject (Range,
// partNumber, conditional headers, response-* overrides), DeleteObject, DeleteObjects and CopyObject, on the
// versions ObjectStore keeps, each change told once stored.
import { createHash } from 'node:crypto';
import type { ObjectChange } from '../s3-change.ts';
import { header, type S3Answer, type S3Call, type S3Context, xmlAnswer } from './call.ts';
import { algorithmNamed, checksumHeader, checksumOf } from './checksums.ts';
import {
  invalidArgument,
  invalidRequest,
  malformedXml,
  noSuchKey,
  noSuchVersion,
  preconditionFailed,
  S3Error,
} from './errors.ts';
import { uploadedBytes } from './payload.ts';
import {
  type BucketRecord,
  newVersionId,
  nextSequencer,
  type ObjectHeaders,
  type StoredChecksum,
  type StoredVersion,
} from './store.ts';
import { childrenOf, parseXml, textOf, type XmlChild, xmlDocument } from './xml.ts';

/** The content headers S3 keeps and returns as they were sent. */
const contentHeaders = ['content-disposition', 'content-language', 'cache-control', 'expires'];

/** What a PUT's headers say of the object: its type, content headers, and metadata (`x-amz-meta-*`). */
export const headersOf = (call: S3Call): ObjectHeaders => {
  const content: Record<string, string> = {};
  for (const name of contentHeaders) {
    const value = header(call, name);
    if (value !== undefined) content[name] = value;
  }
  // aws-chunked is how the bytes travelled, not what they are ("Content-Encoding" in PutObject).
  const encoding = (header(call, 'content-encoding') ?? '')
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding.toLowerCase() !== 'aws-chunked');
  if (encoding.length > 0) content['content-encoding'] = encoding.join(',');
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers))
    if (name.startsWith('x-amz-meta-') && value !== undefined)
      metadata[name.slice(11)] = Array.isArray(value) ? value.join(',') : value;
  const metadataSize = Object.entries(metadata).reduce((sum, [k, v]) => sum + Buffer.byteLength(k + v), 0);
  if (metadataSize > 2048)
    throw new S3Error(400, 'MetadataTooLarge', 'Your metadata headers exceed the maximum allowed metadata size', {
      Size: String(metadataSize),
      MaxSizeAllowed: '2048',
    });
  const storageClass = header(call, 'x-amz-storage-class');
  const websiteRedirect = header(call, 'x-amz-website-redirect-location');
  const tagging = header(call, 'x-amz-tagging');
  return {
    contentType: header(call, 'content-type') ?? 'binary/octet-stream',
    content,
    metadata,
    ...(storageClass !== undefined && { storageClass }),
    ...(websiteRedirect !== undefined && { websiteRedirect }),
    ...(tagging !== undefined && tagging !== '' && { tagCount: new URLSearchParams(tagging).size }),
  };
};

/**
 * The checksum S3 computes of an object sent without one: CRC-64/NVME of the whole ("Checking object integrity in
 * Amazon S3": objects uploaded without a checksum get a full-object CRC64NVME checksum).
 */
export const defaultChecksum = (data: Buffer): StoredChecksum => ({
  algorithm: 'CRC64NVME',
  value: checksumOf('CRC64NVME', data),
  type: 'FULL_OBJECT',
});

const md5ETag = (data: Buffer) => `"${createHash('md5').update(data).digest('hex')}"`;

/** The version id a new version gets in `bucket`: its own with versioning enabled, else `null`. */
export const versionIdFor = (bucket: BucketRecord) => (bucket.versioning === 'Enabled' ? newVersionId() : 'null');

/** The version-id header S3 answers with once a bucket has had versioning turned on. */
const versionHeader = (bucket: BucketRecord, version: StoredVersion): Record<string, string> =>
  bucket.versioning === undefined ? {} : { 'x-amz-version-id': version.versionId };

/** The change a stored version makes, for the listeners. */
export const changeOf = (
  call: S3Call,
  bucket: string,
  key: string,
  eventName: ObjectChange['eventName'],
  version: StoredVersion,
): ObjectChange => ({
  bucket,
  key,
  eventName,
  ...(!version.deleteMarker && { size: version.size, eTag: version.eTag.replace(/"/g, '') }),
  ...(version.versionId !== 'null' && { versionId: version.versionId }),
  sequencer: nextSequencer(),
  time: new Date(version.lastModified),
  sourceIp: call.sourceIp,
  requestId: call.requestId,
});

/** The newest version of `key`, unless it is a delete marker or there is none. */
const current = (context: S3Context, bucket: string, key: string) => {
  const [newest] = context.store.versions(bucket, key);
  return newest && !newest.deleteMarker ? newest : undefined;
};

/** A conditional write's refusal (If-None-Match: *, If-Match), "Conditional requests", Amazon S3 User Guide. */
const checkWriteConditions = (call: S3Call, existing: StoredVersion | undefined, key: string) => {
  const noneMatch = header(call, 'if-none-match');
  const match = header(call, 'if-match');
  if (noneMatch !== undefined && noneMatch.trim() !== '*')
    throw new S3Error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented', {
      Header: 'If-None-Match',
    });
  if (noneMatch !== undefined && existing) throw preconditionFailed('If-None-Match');
  if (match !== undefined) {
    if (!existing) throw noSuchKey(key);
    if (!etagMatches(match, existing.eTag)) throw preconditionFailed('If-Match');
  }
};

export const putObject = (context: S3Context, call: S3Call, bucket: BucketRecord, key: string): S3Answer => {
  checkWriteConditions(call, current(context, bucket.name, key), key);
  const uploaded = uploadedBytes(call.body, call.headers, call.signing);
  const { data } = uploaded;
  const checksum = uploaded.checksum ?? defaultChecksum(data);
  const version: StoredVersion = {
    versionId: versionIdFor(bucket),
    lastModified: Date.now(),
    size: data.length,
    eTag: md5ETag(data),
    ...headersOf(call),
    checksum,
    blob: context.store.writeBlob(bucket.name, data),
  };
  context.store.addVersion(bucket.name, key, version);
  context.changed(changeOf(call, bucket.name, key, 'ObjectCreated:Put', version));
  return {
    status: 200,
    headers: {
      ETag: version.eTag,
      ...versionHeader(bucket, version),
      [checksumHeader(checksum.algorithm)]: checksum.value,
      'x-amz-checksum-type': checksum.type,
    },
  };
};

/** The version a GET, HEAD or copy names (`versionId`), or the newest; refusals as S3's. */
export const versionNamed = (context: S3Context, bucket: BucketRecord, key: string, versionId: string | null) => {
  const versions = context.store.versions(bucket.name, key);
  if (versionId !== null) {
    const found = versions.find((v) => v.versionId === versionId);
    if (!found) {
      if (versionId !== 'null' && !/^[A-Za-z0-9._-]{1,1024}$/.test(versionId))
        throw invalidArgument('Invalid version id specified', 'versionId', versionId);
      throw noSuchVersion(key, versionId);
    }
    if (found.deleteMarker)
      throw new S3Error(
        405,
        'MethodNotAllowed',
        'The specified method is not allowed against this resource.',
        { Method: 'GET', ResourceType: 'DeleteMarker' },
        { 'x-amz-delete-marker': 'true', 'x-amz-version-id': found.versionId },
      );
    return found;
  }
  const [newest] = versions;
  if (!newest) throw noSuchKey(key);
  if (newest.deleteMarker)
    throw noSuchKey(key, { 'x-amz-delete-marker': 'true', 'x-amz-version-id': newest.versionId });
  return newest;
};

/** Whether an If-Match / If-None-Match list names `eTag` (`*` names any). */
const etagMatches = (list: string, eTag: string) =>
  list.split(',').some((given) => {
    const tag = given.trim().replace(/^W\//, '');
    return tag === '*' || tag === eTag || `"${tag}"` === eTag;
  });

/** An HTTP date's time (seconds), or undefined when it is none (then the condition is ignored, RFC 9110 13.1.3). */
const httpTime = (value: string | undefined) => {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
};

/**
 * The status a GET's or HEAD's conditions call for (304 or 412), or undefined to answer: If-Match then
 * If-Unmodified-Since, If-None-Match then If-Modified-Since, as RFC 9110 section 13.2.2 orders them and
 * "GetObject" (If-Match true and If-Unmodified-Since false: 200; If-None-Match false and If-Modified-Since true: 304)
 * says.
 */
const conditionStatus = (
  headers: { match?: string; noneMatch?: string; modifiedSince?: string; unmodifiedSince?: string },
  version: StoredVersion,
) => {
  const modified = Math.floor(version.lastModified / 1000);
  const unmodifiedSince = httpTime(headers.unmodifiedSince);
  if (headers.match !== undefined) {
    if (!etagMatches(headers.match, version.eTag)) return { status: 412, condition: 'If-Match' };
  } else if (unmodifiedSince !== undefined && modified > unmodifiedSince)
    return { status: 412, condition: 'If-Unmodified-Since' };
  const modifiedSince = httpTime(headers.modifiedSince);
  if (headers.noneMatch !== undefined) {
    if (etagMatches(headers.noneMatch, version.eTag)) return { status: 304 };
  } else if (modifiedSince !== undefined && modified <= modifiedSince) return { status: 304 };
  return undefined;
};

/** A single byte range of `size` bytes (RFC 9110 section 14.1.2), or undefined to send the whole object. */
const rangeOf = (value: string | undefined, size: number) => {
  const [, first, last] = /^bytes=(\d*)-(\d*)$/.exec(value?.trim() ?? '') ?? [];
  if (first === undefined || last === undefined || (first === '' && last === '')) return undefined;
  if (first === '') {
    const length = Math.min(Number(last), size);
    if (length === 0) throw invalidRange(size, value as string);
    return { start: size - length, end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) throw invalidRange(size, value as string);
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
};

const invalidRange = (size: number, range: string) =>
  new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', {
    RangeRequested: range,
    ActualObjectSize: String(size),
  });

/** The response-* query parameters' headers, which override the stored ones ("GetObject"). */
const overrides = (call: S3Call) => {
  const names = {
    'response-content-type': 'Content-Type',
    'response-content-language': 'Content-Language',
    'response-expires': 'Expires',
    'response-cache-control': 'Cache-Control',
    'response-content-disposition': 'Content-Disposition',
    'response-content-encoding': 'Content-Encoding',
  };
  const headers: Record<string, string> = {};
  for (const [parameter, name] of Object.entries(names)) {
    const value = call.query.get(parameter);
    if (value !== null) headers[name] = value;
  }
  return headers;
};

/** The headers every GET and HEAD of `version` answers with. */
const objectHeaders = (bucket: BucketRecord, version: StoredVersion): Record<string, string> => {
  const headers: Record<string, string> = {
    'Last-Modified': new Date(version.lastModified).toUTCString(),
    ETag: version.eTag,
    'Content-Type': version.contentType ?? 'binary/octet-stream',
    'Accept-Ranges': 'bytes',
    ...versionHeader(bucket, version),
  };
  for (const [name, value] of Object.entries(version.content ?? {})) headers[name] = value;
  for (const [name, value] of Object.entries(version.metadata ?? {})) headers[`x-amz-meta-${name}`] = value;
  if (version.storageClass !== undefined && version.storageClass !== 'STANDARD')
    headers['x-amz-storage-class'] = version.storageClass;
  if (version.websiteRedirect !== undefined) headers['x-amz-website-redirect-location'] = version.websiteRedirect;
  if (version.tagCount !== undefined) headers['x-amz-tagging-count'] = String(version.tagCount);
  if (version.partSizes !== undefined) headers['x-amz-mp-parts-count'] = String(version.partSizes.length);
  return headers;
};

/** The bytes `partNumber` names of a multipart object (1 of a single-part one: all of it). */
const partRange = (version: StoredVersion, partNumber: string) => {
  const number = Number(partNumber);
  const sizes = version.partSizes ?? [version.size];
  if (!Number.isInteger(number) || number < 1 || number > 10_000)
    throw invalidArgument('Part number must be an integer between 1 and 10000, inclusive', 'partNumber', partNumber);
  if (number > sizes.length) throw new S3Error(416, 'InvalidPartNumber', 'The requested partnumber is not satisfiable');
  const start = sizes.slice(0, number - 1).reduce((sum, size) => sum + size, 0);
  return { start, end: start + (sizes[number - 1] as number) - 1 };
};

/** GetObject and HeadObject (`head`: no body). */
export const getObject = (context: S3Context, call: S3Call, bucket: BucketRecord, key: string): S3Answer => {
  const version = versionNamed(context, bucket, key, call.query.get('versionId'));
  const headers = objectHeaders(bucket, version);
  const condition = conditionStatus(
    {
      match: header(call, 'if-match'),
      noneMatch: header(call, 'if-none-match'),
      modifiedSince: header(call, 'if-modified-since'),
      unmodifiedSince: header(call, 'if-unmodified-since'),
    },
    version,
  );
  if (condition?.status === 412) throw preconditionFailed(condition.condition ?? '');
  if (condition?.status === 304)
    return {
      status: 304,
      headers: { ETag: headers.ETag as string, 'Last-Modified': headers['Last-Modified'] as string },
    };
  const partNumber = call.query.get('partNumber');
  const range = partNumber !== null ? partRange(version, partNumber) : rangeOf(header(call, 'range'), version.size);
  const whole = range === undefined || (range.start === 0 && range.end === version.size - 1 && partNumber === null);
  if (whole && header(call, 'x-amz-checksum-mode')?.toUpperCase() === 'ENABLED' && version.checksum) {
    headers[checksumHeader(version.checksum.algorithm)] = version.checksum.value;
    headers['x-amz-checksum-type'] = version.checksum.type;
  }
  Object.assign(headers, overrides(call));
  const length = range ? range.end - range.start + 1 : version.size;
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${version.size}`;
  headers['Content-Length'] = String(length);
  const status = range && (partNumber === null || version.partSizes !== undefined || !whole) ? 206 : 200;
  if (call.method === 'HEAD') return { status, headers };
  const data = context.store.readBlob(bucket.name, version);
  return { status, headers, body: range ? data.subarray(range.start, range.end + 1) : data };
};

/** Deletes `key` (or its version `versionId`) as the bucket's versioning says; what was done, for the answer. */
const deleteOne = (context: S3Context, call: S3Call, bucket: BucketRecord, key: string, versionId: string | null) => {
  const { store } = context;
  if (versionId !== null) {
    const gone = store.removeVersion(bucket.name, key, versionId);
    if (gone) context.changed(changeOf(call, bucket.name, key, 'ObjectRemoved:Delete', gone));
    return { versionId, deleteMarker: gone?.deleteMarker === true };
  }
  if (bucket.versioning === undefined) {
    const gone = store.removeVersion(bucket.name, key, 'null');
    if (gone) context.changed(changeOf(call, bucket.name, key, 'ObjectRemoved:Delete', gone));
    return { deleteMarker: false };
  }
  const marker: StoredVersion = {
    versionId: versionIdFor(bucket),
    deleteMarker: true,
    lastModified: Date.now(),
    size: 0,
    eTag: '""',
  };
  store.addVersion(bucket.name, key, marker);
  context.changed(changeOf(call, bucket.name, key, 'ObjectRemoved:DeleteMarkerCreated', marker));
  return { versionId: marker.versionId, deleteMarker: true };
};

export const deleteObject = (context: S3Context, call: S3Call, bucket: BucketRecord, key: string): S3Answer => {
  const done = deleteOne(context, call, bucket, key, call.query.get('versionId'));
  return {
    status: 204,
    headers: {
      ...(done.versionId !== undefined && { 'x-amz-version-id': done.versionId }),
      ...(done.deleteMarker && { 'x-amz-delete-marker': 'true' }),
    },
  };
};

/** DeleteObjects: the keys (and versions) of a `<Delete>` document, at most 1,000. */
export const deleteObjects = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const document = parseXml(call.body);
  if (document?.root !== 'Delete') throw malformedXml();
  const objects = childrenOf(document.value, 'Object');
  if (objects.length === 0 || objects.length > 1000) throw malformedXml();
  const quiet = textOf(document.value, 'Quiet') === 'true';
  const results: XmlChild[] = [];
  for (const object of objects) {
    const key = textOf(object, 'Key');
    if (key === undefined || key === '') throw malformedXml();
    const versionId = textOf(object, 'VersionId') ?? null;
    const done = deleteOne(context, call, bucket, key, versionId);
    if (!quiet)
      results.push([
        'Deleted',
        [
          ['Key', key],
          ['VersionId', versionId ?? undefined],
          ['DeleteMarker', done.deleteMarker && versionId === null ? true : undefined],
          ['DeleteMarkerVersionId', done.deleteMarker && versionId === null ? done.versionId : undefined],
        ],
      ]);
  }
  return xmlAnswer(xmlDocument('DeleteResult', results));
};

/** The bucket, key and version `x-amz-copy-source` names (`[/]bucket/key[?versionId=id]`, URL-encoded). */
export const copySource = (value: string) => {
  const [path = '', query = ''] = value.split('?');
  let decoded: string;
  try {
    decoded = decodeURIComponent(path.replace(/^\//, ''));
  } catch {
    throw invalidArgument('Invalid copy source encoding', 'x-amz-copy-source', value);
  }
  const slash = decoded.indexOf('/');
  if (slash < 1 || slash === decoded.length - 1)
    throw invalidArgument('Invalid copy source object key', 'x-amz-copy-source', value);
  return {
    bucket: decoded.slice(0, slash),
    key: decoded.slice(slash + 1),
    versionId: new URLSearchParams(query).get('versionId'),
  };
};

/** The copy source's conditions (x-amz-copy-source-if-*), refused 412 as "CopyObject" says. */
export const checkCopyConditions = (call: S3Call, source: StoredVersion) => {
  const condition = conditionStatus(
    {
      match: header(call, 'x-amz-copy-source-if-match'),
      noneMatch: header(call, 'x-amz-copy-source-if-none-match'),
      modifiedSince: header(call, 'x-amz-copy-source-if-modified-since'),
      unmodifiedSince: header(call, 'x-amz-copy-source-if-unmodified-since'),
    },
    source,
  );
  if (condition) throw preconditionFailed(condition.condition ?? 'x-amz-copy-source-If-None-Match');
};

/** CopyObject: a new version of `key` with the source's bytes, and its metadata or the request's (REPLACE). */
export const copyObject = (context: S3Context, call: S3Call, bucket: BucketRecord, key: string): S3Answer => {
  const from = copySource(header(call, 'x-amz-copy-source') ?? '');
  const sourceBucket = context.store.bucket(from.bucket);
  const source = versionNamed(context, sourceBucket, from.key, from.versionId);
  checkCopyConditions(call, source);
  const directive = (header(call, 'x-amz-metadata-directive') ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE')
    throw invalidArgument('Unknown metadata directive.', 'x-amz-metadata-directive', directive);
  if (from.bucket === bucket.name && from.key === key && directive === 'COPY' && !header(call, 'x-amz-storage-class'))
    throw invalidRequest(
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    );
  const data = context.store.readBlob(sourceBucket.name, source);
  const algorithm = algorithmNamed(header(call, 'x-amz-checksum-algorithm'));
  const checksum = algorithm
    ? { algorithm, value: checksumOf(algorithm, data), type: 'FULL_OBJECT' as const }
    : source.checksum?.type === 'FULL_OBJECT'
      ? source.checksum
      : defaultChecksum(data);
  const kept =
    directive === 'REPLACE'
      ? headersOf(call)
      : {
          contentType: source.contentType ?? 'binary/octet-stream',
          content: source.content ?? {},
          metadata: source.metadata ?? {},
          ...(source.tagCount !== undefined && { tagCount: source.tagCount }),
        };
  const storageClass = header(call, 'x-amz-storage-class');
  const version: StoredVersion = {
    versionId: versionIdFor(bucket),
    lastModified: Date.now(),
    size: data.length,
    eTag: md5ETag(data),
    ...kept,
    ...(storageClass !== undefined && { storageClass }),
    checksum,
    blob: context.store.writeBlob(bucket.name, data),
  };
  context.store.addVersion(bucket.name, key, version);
  context.changed(changeOf(call, bucket.name, key, 'ObjectCreated:Copy', version));
  const result: XmlChild[] = [
    ['ETag', version.eTag],
    ['LastModified', new Date(version.lastModified).toISOString()],
    [`Checksum${checksum.algorithm}`, checksum.value],
  ];
  return xmlAnswer(xmlDocument('CopyObjectResult', result), {
    ...versionHeader(bucket, version),
    ...(sourceBucket.versioning !== undefined && { 'x-amz-copy-source-version-id': source.versionId }),
  });
};
