// Multipart uploads ("Uploading and copying objects using multipart upload", Amazon S3 User Guide;
// CreateMultipartUpload, UploadPart, UploadPartCopy, CompleteMultipartUpload, AbortMultipartUpload, ListParts and
// ListMultipartUploads in the API Reference). An upload is a folder of the bucket's (`uploads/<id>/`): what
// CreateMultipartUpload was told, and each part's bytes and record. Completing joins the parts named, in order, into
// one object whose ETag is the MD5 of the parts' MD5s, `-<number of parts>`, as S3's.
import { createHash, randomBytes } from 'node:crypto';
import { header, type S3Answer, type S3Call, type S3Context, xmlAnswer } from './call.ts';
import { algorithmNamed, checksumDigest, checksumHeader, checksumOf } from './checksums.ts';
import { invalidArgument, invalidRequest, malformedXml, noSuchUpload, S3Error } from './errors.ts';
import { changeOf, checkCopyConditions, copySource, headersOf, versionIdFor, versionNamed } from './objects.ts';
import { uploadedBytes } from './payload.ts';
import {
  type BucketRecord,
  type ChecksumAlgorithm,
  type ObjectHeaders,
  readJson,
  type StoredChecksum,
  type StoredVersion,
} from './store.ts';
import { childrenOf, parseXml, textOf, type XmlChild, xmlDocument } from './xml.ts';

interface Upload {
  key: string;
  /** Epoch milliseconds. */
  initiated: number;
  headers: ObjectHeaders;
  algorithm?: ChecksumAlgorithm;
  checksumType?: 'FULL_OBJECT' | 'COMPOSITE';
}

interface Part {
  number: number;
  eTag: string;
  size: number;
  lastModified: number;
  checksum?: StoredChecksum;
}

/** "Amazon S3 multipart upload limits": every part but the last at least 5 MiB. */
const minimumPartSize = 5 * 1024 * 1024;

const folder = (bucket: string, uploadId: string) => `${bucket}/uploads/${uploadId}`;

const readUpload = (context: S3Context, bucket: string, key: string, uploadId: string) => {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(uploadId)) throw noSuchUpload(uploadId);
  const upload = readJson<Upload>(context.store.files, `${folder(bucket, uploadId)}/upload.json`);
  if (!upload || upload.key !== key) throw noSuchUpload(uploadId);
  return upload;
};

const partsOf = (context: S3Context, bucket: string, uploadId: string): Part[] =>
  context.store.files
    .list(`${folder(bucket, uploadId)}/parts`)
    .map((name) => readJson<Part>(context.store.files, `${folder(bucket, uploadId)}/parts/${name}`))
    .filter((part): part is Part => part !== undefined)
    .sort((a, b) => a.number - b.number);

export const createMultipartUpload = (
  context: S3Context,
  call: S3Call,
  bucket: BucketRecord,
  key: string,
): S3Answer => {
  const uploadId = randomBytes(36).toString('base64url');
  const algorithm = algorithmNamed(header(call, 'x-amz-checksum-algorithm'));
  const givenType = header(call, 'x-amz-checksum-type')?.toUpperCase();
  if (givenType !== undefined && givenType !== 'FULL_OBJECT' && givenType !== 'COMPOSITE')
    throw invalidRequest(`Value for x-amz-checksum-type header is invalid.`);
  const checksumType = algorithm && (givenType ?? (algorithm === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE'));
  if (checksumType === 'FULL_OBJECT' && (algorithm === 'SHA1' || algorithm === 'SHA256'))
    throw invalidRequest(`The FULL_OBJECT checksum type cannot be used with the ${algorithm} checksum algorithm.`);
  if (checksumType === 'COMPOSITE' && algorithm === 'CRC64NVME')
    throw invalidRequest('The COMPOSITE checksum type cannot be used with the CRC64NVME checksum algorithm.');
  const upload: Upload = {
    key,
    initiated: Date.now(),
    headers: headersOf(call),
    ...(algorithm && { algorithm, checksumType }),
  };
  context.store.files.write(`${folder(bucket.name, uploadId)}/upload.json`, JSON.stringify(upload));
  return xmlAnswer(
    xmlDocument('InitiateMultipartUploadResult', [
      ['Bucket', bucket.name],
      ['Key', key],
      ['UploadId', uploadId],
    ]),
    algorithm ? { 'x-amz-checksum-algorithm': algorithm, 'x-amz-checksum-type': checksumType as string } : {},
  );
};

const partNumberOf = (call: S3Call) => {
  const given = call.query.get('partNumber') ?? '';
  const number = Number(given);
  if (!/^\d+$/.test(given) || number < 1 || number > 10_000)
    throw invalidArgument('Part number must be an integer between 1 and 10000, inclusive', 'partNumber', given);
  return number;
};

/** The bytes UploadPartCopy copies: the source's, or its x-amz-copy-source-range. */
const copiedBytes = (context: S3Context, call: S3Call) => {
  const from = copySource(header(call, 'x-amz-copy-source') ?? '');
  const source = versionNamed(context, context.store.bucket(from.bucket), from.key, from.versionId);
  checkCopyConditions(call, source);
  const data = context.store.readBlob(from.bucket, source);
  const range = header(call, 'x-amz-copy-source-range');
  if (range === undefined) return data;
  const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(range) ?? [];
  if (first === undefined || last === undefined || Number(last) < Number(first) || Number(last) >= data.length)
    throw new S3Error(
      400,
      'InvalidArgument',
      'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
      { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: range },
    );
  return data.subarray(Number(first), Number(last) + 1);
};

/** UploadPart and UploadPartCopy (`x-amz-copy-source`). */
export const uploadPart = (
  context: S3Context,
  call: S3Call,
  bucket: BucketRecord,
  key: string,
  uploadId: string,
): S3Answer => {
  const number = partNumberOf(call);
  const upload = readUpload(context, bucket.name, key, uploadId);
  const copying = header(call, 'x-amz-copy-source') !== undefined;
  const { data, checksum: sent } = copying
    ? { data: copiedBytes(context, call), checksum: undefined }
    : uploadedBytes(call.body, call.headers, call.signing);
  if (upload.algorithm && sent && sent.algorithm !== upload.algorithm)
    throw invalidRequest(
      `Checksum Type mismatch occurred, expected checksum Type: ${upload.algorithm.toLowerCase()}, actual checksum Type: ${sent.algorithm.toLowerCase()}`,
    );
  const checksum =
    upload.algorithm && !sent
      ? { algorithm: upload.algorithm, value: checksumOf(upload.algorithm, data), type: 'FULL_OBJECT' as const }
      : sent;
  const part: Part = {
    number,
    eTag: `"${createHash('md5').update(data).digest('hex')}"`,
    size: data.length,
    lastModified: Date.now(),
    ...(checksum && { checksum }),
  };
  const base = folder(bucket.name, uploadId);
  context.store.files.write(`${base}/${number}`, data);
  context.store.files.write(`${base}/parts/${number}.json`, JSON.stringify(part));
  const checksumHeaders: Record<string, string> = checksum
    ? { [checksumHeader(checksum.algorithm)]: checksum.value }
    : {};
  if (copying)
    return xmlAnswer(
      xmlDocument('CopyPartResult', [
        ['ETag', part.eTag],
        ['LastModified', new Date(part.lastModified).toISOString()],
        ...(checksum ? [[`Checksum${checksum.algorithm}`, checksum.value] as XmlChild] : []),
      ]),
    );
  return { status: 200, headers: { ETag: part.eTag, ...checksumHeaders } };
};

/** The parts a CompleteMultipartUpload document names, checked against those uploaded, in order. */
const namedParts = (call: S3Call, uploaded: Part[], upload: Upload) => {
  const document = parseXml(call.body);
  if (document?.root !== 'CompleteMultipartUpload') throw malformedXml();
  const named = childrenOf(document.value, 'Part');
  if (named.length === 0) throw malformedXml();
  let previous = 0;
  return named.map((given) => {
    const number = Number(textOf(given, 'PartNumber'));
    const eTag = textOf(given, 'ETag') ?? '';
    if (!Number.isInteger(number) || number < 1) throw malformedXml();
    if (number <= previous)
      throw new S3Error(
        400,
        'InvalidPartOrder',
        'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
      );
    previous = number;
    const part = uploaded.find((p) => p.number === number);
    const sentChecksum = upload.algorithm && textOf(given, `Checksum${upload.algorithm}`);
    if (
      !part ||
      (part.eTag !== eTag && part.eTag !== `"${eTag}"`) ||
      (sentChecksum && part.checksum?.value !== sentChecksum)
    )
      throw new S3Error(
        400,
        'InvalidPart',
        "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        { UploadId: call.query.get('uploadId') ?? '', PartNumber: String(number), ETag: eTag },
      );
    return part;
  });
};

/** The object's checksum: over the whole (FULL_OBJECT), or of the parts' checksums, `-<parts>` (COMPOSITE). */
const completedChecksum = (upload: Upload, parts: Part[], data: Buffer): StoredChecksum => {
  const algorithm = upload.algorithm ?? 'CRC64NVME';
  if (upload.checksumType !== 'COMPOSITE')
    return { algorithm, value: checksumOf(algorithm, data), type: 'FULL_OBJECT' };
  const digests = parts.map((part) => Buffer.from(part.checksum?.value ?? '', 'base64'));
  return {
    algorithm,
    value: `${checksumDigest(algorithm, Buffer.concat(digests)).toString('base64')}-${parts.length}`,
    type: 'COMPOSITE',
  };
};

export const completeMultipartUpload = (
  context: S3Context,
  call: S3Call,
  bucket: BucketRecord,
  key: string,
  uploadId: string,
): S3Answer => {
  const upload = readUpload(context, bucket.name, key, uploadId);
  const parts = namedParts(call, partsOf(context, bucket.name, uploadId), upload);
  const small = parts.slice(0, -1).find((part) => part.size < minimumPartSize);
  if (small)
    throw new S3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.', {
      ProposedSize: String(small.size),
      MinSizeAllowed: String(minimumPartSize),
      PartNumber: String(small.number),
    });
  const base = folder(bucket.name, uploadId);
  const data = Buffer.concat(
    parts.map((part) => context.store.files.read(`${base}/${part.number}`) ?? Buffer.alloc(0)),
  );
  const md5s = Buffer.concat(parts.map((part) => Buffer.from(part.eTag.replace(/"/g, ''), 'hex')));
  const checksum = completedChecksum(upload, parts, data);
  const version: StoredVersion = {
    versionId: versionIdFor(bucket),
    lastModified: Date.now(),
    size: data.length,
    eTag: `"${createHash('md5').update(md5s).digest('hex')}-${parts.length}"`,
    ...upload.headers,
    checksum,
    partSizes: parts.map((part) => part.size),
    blob: context.store.writeBlob(bucket.name, data),
  };
  context.store.addVersion(bucket.name, key, version);
  context.store.files.remove(base);
  context.changed(changeOf(call, bucket.name, key, 'ObjectCreated:CompleteMultipartUpload', version));
  return xmlAnswer(
    xmlDocument('CompleteMultipartUploadResult', [
      ['Location', `/${bucket.name}/${encodeURIComponent(key).replace(/%2F/g, '/')}`],
      ['Bucket', bucket.name],
      ['Key', key],
      ['ETag', version.eTag],
      ...(upload.algorithm
        ? [[`Checksum${checksum.algorithm}`, checksum.value] as XmlChild, ['ChecksumType', checksum.type] as XmlChild]
        : []),
    ]),
    bucket.versioning === undefined ? {} : { 'x-amz-version-id': version.versionId },
  );
};

export const abortMultipartUpload = (
  context: S3Context,
  bucket: BucketRecord,
  key: string,
  uploadId: string,
): S3Answer => {
  readUpload(context, bucket.name, key, uploadId);
  context.store.files.remove(folder(bucket.name, uploadId));
  return { status: 204 };
};

const maxOf = (call: S3Call, name: string) => {
  const given = call.query.get(name);
  if (given === null) return 1000;
  if (!/^\d+$/.test(given))
    throw invalidArgument(`Provided ${name} not an integer or within integer range`, name, given);
  return Math.min(Number(given), 1000);
};

export const listParts = (
  context: S3Context,
  call: S3Call,
  bucket: BucketRecord,
  key: string,
  uploadId: string,
): S3Answer => {
  const upload = readUpload(context, bucket.name, key, uploadId);
  const max = maxOf(call, 'max-parts');
  const marker = Number(call.query.get('part-number-marker') ?? '0') || 0;
  const after = partsOf(context, bucket.name, uploadId).filter((part) => part.number > marker);
  const page = after.slice(0, max);
  const truncated = after.length > max;
  return xmlAnswer(
    xmlDocument('ListPartsResult', [
      ['Bucket', bucket.name],
      ['Key', key],
      ['UploadId', uploadId],
      ['PartNumberMarker', marker],
      ['NextPartNumberMarker', page.at(-1)?.number ?? marker],
      ['MaxParts', max],
      ['IsTruncated', truncated],
      ['StorageClass', upload.headers.storageClass ?? 'STANDARD'],
      ['ChecksumAlgorithm', upload.algorithm],
      ['ChecksumType', upload.checksumType],
      ...page.map(
        (part): XmlChild => [
          'Part',
          [
            ['PartNumber', part.number],
            ['LastModified', new Date(part.lastModified).toISOString()],
            ['ETag', part.eTag],
            ['Size', part.size],
            ...(part.checksum ? [[`Checksum${part.checksum.algorithm}`, part.checksum.value] as XmlChild] : []),
          ],
        ],
      ),
    ]),
  );
};

export const listMultipartUploads = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const max = maxOf(call, 'max-uploads');
  const prefix = call.query.get('prefix') ?? '';
  const keyMarker = call.query.get('key-marker') ?? '';
  const uploads = context.store.files
    .list(`${bucket.name}/uploads`)
    .map((id) => {
      const upload = readJson<Upload>(context.store.files, `${folder(bucket.name, id)}/upload.json`);
      return upload === undefined ? undefined : { id, ...upload };
    })
    .filter((upload) => upload?.key.startsWith(prefix) && upload.key > keyMarker)
    .map((upload) => upload as Upload & { id: string })
    .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)) || a.initiated - b.initiated);
  const page = uploads.slice(0, max);
  const truncated = uploads.length > max;
  return xmlAnswer(
    xmlDocument('ListMultipartUploadsResult', [
      ['Bucket', bucket.name],
      ['KeyMarker', keyMarker],
      ['UploadIdMarker', call.query.get('upload-id-marker') ?? ''],
      ['NextKeyMarker', truncated ? page.at(-1)?.key : undefined],
      ['NextUploadIdMarker', truncated ? page.at(-1)?.id : undefined],
      ['Prefix', prefix],
      ['MaxUploads', max],
      ['IsTruncated', truncated],
      ...page.map(
        (upload): XmlChild => [
          'Upload',
          [
            ['Key', upload.key],
            ['UploadId', upload.id],
            ['Initiated', new Date(upload.initiated).toISOString()],
            ['StorageClass', upload.headers.storageClass ?? 'STANDARD'],
            ['ChecksumAlgorithm', upload.algorithm],
            ['ChecksumType', upload.checksumType],
          ],
        ],
      ),
    ]),
  );
};
