// Listing a bucket ("ListObjectsV2", "ListObjects", "ListObjectVersions", Amazon S3 API Reference): keys in UTF-8
// binary order, under a prefix, the keys sharing a part up to the delimiter rolled into one CommonPrefixes entry
// (which counts as one of max-keys), a page at a time. A page's continuation token is the last entry it listed.
import { header, type S3Answer, type S3Call, type S3Context, xmlAnswer } from './call.ts';
import { invalidArgument } from './errors.ts';
import type { BucketRecord, StoredVersion } from './store.ts';
import { type XmlChild, xmlDocument } from './xml.ts';

/** An entry of a listing: a key (with its versions) or a common prefix. */
type Entry = { key: string; versions: StoredVersion[] } | { prefix: string };

const maxKeysOf = (call: S3Call) => {
  const given = call.query.get('max-keys');
  if (given === null) return 1000;
  if (!/^\d+$/.test(given))
    throw invalidArgument('Provided max-keys not an integer or within integer range', 'max-keys', given);
  return Math.min(Number(given), 1000);
};

const after = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b)) > 0;

/**
 * The entries after `start` (exclusive; a common prefix listed last skips the keys under it), at most `max`, and
 * whether more follow.
 */
const entries = (
  keys: { key: string; versions: StoredVersion[] }[],
  { prefix, delimiter, start, max }: { prefix: string; delimiter: string; start: string; max: number },
) => {
  const listed: Entry[] = [];
  let lastPrefix: string | undefined;
  for (const record of keys) {
    const { key } = record;
    if (!key.startsWith(prefix) || (start !== '' && !after(key, start))) continue;
    const rest = key.slice(prefix.length);
    const cut = delimiter === '' ? -1 : rest.indexOf(delimiter);
    const entry: Entry = cut < 0 ? record : { prefix: prefix + rest.slice(0, cut + delimiter.length) };
    if ('prefix' in entry) {
      if (entry.prefix === lastPrefix || entry.prefix === start) continue;
      lastPrefix = entry.prefix;
    }
    if (listed.length === max) return { listed, truncated: true };
    listed.push(entry);
  }
  return { listed, truncated: false };
};

/** A key as `encoding-type=url` writes it (spaces and reserved characters percent-encoded). */
const encoder = (call: S3Call) => {
  const type = call.query.get('encoding-type');
  if (type !== null && type !== 'url')
    throw invalidArgument('Invalid Encoding Method specified in Request', 'encoding-type', type);
  return type === 'url' ? (text: string) => encodeURIComponent(text).replace(/%2F/g, '/') : (text: string) => text;
};

const owner: XmlChild = [
  'Owner',
  [
    ['ID', '0000000000000000000000000000000000000000000000000000000000000000'],
    ['DisplayName', 'local'],
  ],
];

const contentOf = (
  key: string,
  version: StoredVersion,
  encode: (t: string) => string,
  withOwner: boolean,
): XmlChild[] => [
  ['Key', encode(key)],
  ['LastModified', new Date(version.lastModified).toISOString()],
  ['ETag', version.eTag],
  ...(version.checksum
    ? [
        ['ChecksumAlgorithm', version.checksum.algorithm] as XmlChild,
        ['ChecksumType', version.checksum.type] as XmlChild,
      ]
    : []),
  ['Size', version.size],
  ...(withOwner ? [owner] : []),
  ['StorageClass', version.storageClass ?? 'STANDARD'],
];

/** The keys whose newest version is an object (not a delete marker). */
const liveKeys = (context: S3Context, bucket: BucketRecord) =>
  context.store.keys(bucket.name).filter(({ versions }) => versions[0] && !versions[0].deleteMarker);

const token = (entry: Entry | undefined) =>
  entry === undefined ? undefined : Buffer.from('prefix' in entry ? entry.prefix : entry.key).toString('base64url');

const tokenStart = (value: string) => {
  const decoded = Buffer.from(value, 'base64url').toString('utf8');
  if (value === '' || Buffer.from(decoded).toString('base64url') !== value)
    throw invalidArgument('The continuation token provided is incorrect', 'continuation-token', value);
  return decoded;
};

const prefixesXml = (listed: Entry[], encode: (t: string) => string): XmlChild[] =>
  listed.flatMap((entry): XmlChild[] =>
    'prefix' in entry ? [['CommonPrefixes', [['Prefix', encode(entry.prefix)]]]] : [],
  );

export const listObjectsV2 = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const { query } = call;
  const encode = encoder(call);
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const max = maxKeysOf(call);
  const continuation = query.get('continuation-token');
  const startAfter = query.get('start-after') ?? '';
  const start = continuation !== null ? tokenStart(continuation) : startAfter;
  const { listed, truncated } = entries(liveKeys(context, bucket), { prefix, delimiter, start, max });
  const withOwner = query.get('fetch-owner') === 'true';
  const children: XmlChild[] = [
    ['Name', bucket.name],
    ['Prefix', encode(prefix)],
    ['Delimiter', delimiter === '' ? undefined : encode(delimiter)],
    ['MaxKeys', max],
    ['KeyCount', listed.length],
    ['IsTruncated', truncated],
    ['EncodingType', query.get('encoding-type') ?? undefined],
    ['ContinuationToken', continuation ?? undefined],
    ['NextContinuationToken', truncated ? token(listed.at(-1)) : undefined],
    ['StartAfter', startAfter === '' ? undefined : encode(startAfter)],
    ...listed.flatMap((entry): XmlChild[] =>
      'key' in entry ? [['Contents', contentOf(entry.key, entry.versions[0] as StoredVersion, encode, withOwner)]] : [],
    ),
    ...prefixesXml(listed, encode),
  ];
  return xmlAnswer(xmlDocument('ListBucketResult', children));
};

/** ListObjects (version 1): `marker` for the start; NextMarker only with a delimiter, as S3 answers it. */
export const listObjects = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const { query } = call;
  const encode = encoder(call);
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const max = maxKeysOf(call);
  const marker = query.get('marker') ?? '';
  const { listed, truncated } = entries(liveKeys(context, bucket), { prefix, delimiter, start: marker, max });
  const last = listed.at(-1);
  const children: XmlChild[] = [
    ['Name', bucket.name],
    ['Prefix', encode(prefix)],
    ['Marker', encode(marker)],
    [
      'NextMarker',
      truncated && delimiter !== '' && last ? encode('prefix' in last ? last.prefix : last.key) : undefined,
    ],
    ['MaxKeys', max],
    ['Delimiter', delimiter === '' ? undefined : encode(delimiter)],
    ['IsTruncated', truncated],
    ['EncodingType', query.get('encoding-type') ?? undefined],
    ...listed.flatMap((entry): XmlChild[] =>
      'key' in entry ? [['Contents', contentOf(entry.key, entry.versions[0] as StoredVersion, encode, true)]] : [],
    ),
    ...prefixesXml(listed, encode),
  ];
  return xmlAnswer(xmlDocument('ListBucketResult', children));
};

/** ListObjectVersions: every version and delete marker, newest first within a key; a page ends at a whole key. */
export const listObjectVersions = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const { query } = call;
  const encode = encoder(call);
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const max = maxKeysOf(call);
  const keyMarker = query.get('key-marker') ?? '';
  const all = context.store.keys(bucket.name);
  const { listed, truncated } = entries(all, { prefix, delimiter, start: keyMarker, max });
  const last = listed.at(-1);
  const versions = listed.flatMap((entry): XmlChild[] =>
    'key' in entry
      ? entry.versions.map((version, index): XmlChild => {
          const common: XmlChild[] = [
            ['Key', encode(entry.key)],
            ['VersionId', version.versionId],
            ['IsLatest', index === 0],
            ['LastModified', new Date(version.lastModified).toISOString()],
          ];
          return version.deleteMarker
            ? ['DeleteMarker', [...common, owner]]
            : [
                'Version',
                [
                  ...common,
                  ['ETag', version.eTag],
                  ['Size', version.size],
                  ['StorageClass', version.storageClass ?? 'STANDARD'],
                  owner,
                ],
              ];
        })
      : [],
  );
  const children: XmlChild[] = [
    ['Name', bucket.name],
    ['Prefix', encode(prefix)],
    ['KeyMarker', encode(keyMarker)],
    ['VersionIdMarker', query.get('version-id-marker') ?? ''],
    ['NextKeyMarker', truncated && last ? encode('prefix' in last ? last.prefix : last.key) : undefined],
    ['MaxKeys', max],
    ['Delimiter', delimiter === '' ? undefined : encode(delimiter)],
    ['IsTruncated', truncated],
    ['EncodingType', query.get('encoding-type') ?? undefined],
    ...versions,
    ...prefixesXml(listed, encode),
  ];
  return xmlAnswer(xmlDocument('ListVersionsResult', children));
};

/** Whether the call asks for ListObjectsV2 (`list-type=2`). */
export const isListV2 = (call: S3Call) => call.query.get('list-type') === '2' || header(call, 'x-list-type') === '2';
