// A state machine's calls to the local S3, over its REST API as an SDK makes them (Amazon S3 API Reference,
// https://docs.aws.amazon.com/AmazonS3/latest/API/): path-style requests (`/<bucket>/<key>`) signed with SigV4 by the
// runner's credentials, the payload's SHA-256 in `x-amz-content-sha256`. Each action's input and output are the SDK's
// members in Pascal case (`Bucket`, `Key`, `ContentType`; `ETag`, `Contents`), as an AWS SDK integration writes and
// reads them; an object's `Body` is text both ways. S3's error (`<Error><Code>`) comes back as a WireError of its code;
// a HEAD has no body, so its 404 is `NoSuchKey` (and its 403 `AccessDenied`).
import { createHash } from 'node:crypto';
import { request as httpRequest, STATUS_CODES } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { XMLParser } from 'fast-xml-parser';
import { localAws } from '../../app/local-aws.ts';
import { Sha256 } from '../../gateway/sigv4.ts';
import { WireError } from './wire-calls.ts';

type Input = Record<string, unknown>;

interface S3Request {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  bucket: string;
  key?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}

const text = (input: Input, name: string) => {
  const value = input[name];
  if (typeof value !== 'string' || value === '')
    throw new WireError('MissingParameter', `the parameter ${name} is required`);
  return value;
};

const optional = (input: Input, name: string) =>
  input[name] === undefined || input[name] === null ? undefined : String(input[name]);

/** `entries` without the undefined values. */
const defined = (entries: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined));

const encodedKey = (key: string) => key.split('/').map(encodeURIComponent).join('/');

const signedHeaders = async (url: URL, request: S3Request, body: string) => {
  const signer = new SignatureV4({
    credentials: localAws.credentials,
    region: localAws.region,
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: request.query ?? {},
    headers: {
      host: url.host,
      'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
      ...request.headers,
    },
    body,
  });
  return Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'));
};

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false });

/**
 * One exchange over node:http, the body as S3 keeps it: fetch would undo a stored object's `Content-Encoding` (gzip),
 * so a compressed object would come back changed, or not at all.
 */
const exchanged = (url: URL, method: string, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; headers: Headers; body: Buffer }>((resolve, reject) => {
    const sending = method === 'PUT' ? { 'content-length': String(Buffer.byteLength(body)) } : {};
    const call = httpRequest(url, { method, headers: { ...headers, ...sending } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answered = new Headers();
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) answered.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: response.statusCode ?? 500, headers: answered, body: Buffer.concat(chunks) });
      });
    });
    call.on('error', reject);
    call.end(method === 'PUT' ? body : undefined);
  });

/** The request made: the response's status, headers and text; S3's error answer as a WireError. */
const sent = async (endpoint: string, request: S3Request) => {
  const url = new URL(`${endpoint}/${request.bucket}${request.key === undefined ? '' : `/${encodedKey(request.key)}`}`);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  const body = request.body ?? '';
  const response = await exchanged(url, request.method, await signedHeaders(url, request, body), body);
  const answer = response.body.toString('utf8');
  if (response.status >= 200 && response.status < 300) return { headers: response.headers, text: answer };
  if (answer === '')
    throw new WireError(response.status === 404 ? 'NoSuchKey' : 'AccessDenied', STATUS_CODES[response.status] ?? '');
  const error = (parser.parse(answer) as { Error?: { Code?: string; Message?: string } }).Error ?? {};
  throw new WireError(error.Code ?? 'ServiceError', error.Message ?? answer);
};

/** An object's headers as GetObject and HeadObject give them. */
const objectHeaders = (headers: Headers) => {
  const metadata = Object.fromEntries(
    [...headers.entries()]
      .filter(([name]) => name.startsWith('x-amz-meta-'))
      .map(([name, value]) => [name.slice('x-amz-meta-'.length), value]),
  );
  const lastModified = headers.get('last-modified');
  return {
    AcceptRanges: headers.get('accept-ranges') ?? 'bytes',
    ContentLength: Number(headers.get('content-length') ?? 0),
    ContentType: headers.get('content-type') ?? undefined,
    ...(headers.get('content-encoding') !== null && { ContentEncoding: headers.get('content-encoding') }),
    ETag: headers.get('etag') ?? undefined,
    ...(lastModified !== null && { LastModified: new Date(lastModified).toISOString() }),
    Metadata: metadata,
    ...(headers.get('x-amz-version-id') !== null && { VersionId: headers.get('x-amz-version-id') }),
  };
};

const objectRequest = (input: Input) => ({
  bucket: text(input, 'Bucket'),
  key: text(input, 'Key'),
  query: defined({ versionId: optional(input, 'VersionId') }),
});

const asList = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** ListObjectsV2's answer, its numbers and flags as the SDK reads them. */
const listed = (xml: string) => {
  const result = (parser.parse(xml) as { ListBucketResult: Record<string, unknown> }).ListBucketResult;
  const contents = asList(result.Contents as Record<string, string> | Record<string, string>[] | undefined);
  const prefixes = asList(result.CommonPrefixes as { Prefix: string } | { Prefix: string }[] | undefined);
  return {
    ...result,
    IsTruncated: result.IsTruncated === 'true',
    KeyCount: Number(result.KeyCount),
    MaxKeys: Number(result.MaxKeys),
    Contents: contents.map((content) => ({
      ...content,
      LastModified: new Date(String(content.LastModified)).toISOString(),
      Size: Number(content.Size),
    })),
    ...(prefixes.length > 0 && { CommonPrefixes: prefixes }),
  };
};

const body = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? ''));

const actions: Record<string, (endpoint: string, input: Input) => Promise<Record<string, unknown>>> = {
  GetObject: async (endpoint, input) => {
    const { headers, text: content } = await sent(endpoint, { method: 'GET', ...objectRequest(input) });
    return { Body: content, ...objectHeaders(headers) };
  },
  HeadObject: async (endpoint, input) =>
    objectHeaders((await sent(endpoint, { method: 'HEAD', ...objectRequest(input) })).headers),
  PutObject: async (endpoint, input) => {
    const metadata = (input.Metadata ?? {}) as Record<string, string>;
    const { headers } = await sent(endpoint, {
      method: 'PUT',
      bucket: text(input, 'Bucket'),
      key: text(input, 'Key'),
      headers: defined({
        'content-type': optional(input, 'ContentType'),
        ...Object.fromEntries(Object.entries(metadata).map(([name, value]) => [`x-amz-meta-${name}`, String(value)])),
      }),
      body: body(input.Body),
    });
    const version = headers.get('x-amz-version-id');
    return { ETag: headers.get('etag'), ...(version !== null && { VersionId: version }) };
  },
  DeleteObject: async (endpoint, input) => {
    const { headers } = await sent(endpoint, { method: 'DELETE', ...objectRequest(input) });
    const version = headers.get('x-amz-version-id');
    return {
      ...(headers.get('x-amz-delete-marker') === 'true' && { DeleteMarker: true }),
      ...(version !== null && { VersionId: version }),
    };
  },
  CopyObject: async (endpoint, input) => {
    const { text: xml } = await sent(endpoint, {
      method: 'PUT',
      bucket: text(input, 'Bucket'),
      key: text(input, 'Key'),
      headers: defined({
        'x-amz-copy-source': text(input, 'CopySource'),
        'x-amz-metadata-directive': optional(input, 'MetadataDirective'),
      }),
    });
    const result = (parser.parse(xml) as { CopyObjectResult: Record<string, string> }).CopyObjectResult;
    return {
      CopyObjectResult: { ETag: result.ETag, LastModified: new Date(String(result.LastModified)).toISOString() },
    };
  },
  ListObjectsV2: async (endpoint, input) => {
    const query = defined({
      'list-type': '2',
      prefix: optional(input, 'Prefix'),
      delimiter: optional(input, 'Delimiter'),
      'max-keys': optional(input, 'MaxKeys'),
      'continuation-token': optional(input, 'ContinuationToken'),
      'start-after': optional(input, 'StartAfter'),
    });
    return listed((await sent(endpoint, { method: 'GET', bucket: text(input, 'Bucket'), query })).text);
  },
};

/** The S3 actions a state machine calls (AWS SDK integrations `aws-sdk:s3:<action>`, a Map's ItemReader and ResultWriter). */
export const s3Actions = Object.keys(actions);

/** `action` (`GetObject`, ...) of the S3 at `endpoint` with `input`: its output, or a WireError. */
export const s3Call = (endpoint: string | undefined, action: string, input: Input) => {
  if (endpoint === undefined) throw new WireError('ServiceUnavailable', 'the local s3 is not serving');
  const call = actions[action];
  if (!call) throw new WireError('NotServedLocally', `S3 ${action} is not called by state machines locally`);
  return call(endpoint, input);
};
