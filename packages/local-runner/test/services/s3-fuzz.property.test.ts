// A fuzz of the local S3's endpoint: keys of every class of character (controls, punctuation, every plane of
// Unicode), encoded more or less strictly; Range headers of every shape; documents that are not S3's XML; aws-chunked
// bodies with their framing broken; and requests of any method, path and query. Every request is answered, an error
// in S3's shape ("Error responses", Amazon S3 API Reference, https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html)
// with a 4xx status (501 for what is not served), never a 500, and the server answers on after each.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { localAws } from '../../src/app/local-aws.ts';
import { Sha256 } from '../../src/gateway/sigv4.ts';
import { startS3 } from '../helpers/s3-services.ts';

let s3: Awaited<ReturnType<typeof startS3>>;
let port = 0;
beforeAll(async () => {
  s3 = await startS3([
    { source: 'App/Keys', name: 'keys' },
    { source: 'App/Xml', name: 'xml' },
  ]);
  port = Number(new URL(s3.services.urls.s3).port);
});
afterAll(() => s3?.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Sends a request whose path (with its query) goes on the wire as given. */
const send = (method: string, path: string, headers: Record<string, string>, body: Buffer = Buffer.alloc(0)) =>
  new Promise<Answer>((resolve, reject) => {
    const sent = request({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { ...headers, 'content-length': String(body.length) },
    });
    sent.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    sent.on('error', reject);
    sent.end(body);
  });

/** RFC 3986's strict encoding (every byte but the unreserved characters), S3's for a key's path. */
const strict = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const keyPath = (text: string) => strict(text).replace(/%2F/g, '/');

const signer = new SignatureV4({
  credentials: localAws.credentials,
  region: localAws.region,
  service: 's3',
  sha256: Sha256,
  uriEscapePath: false,
  applyChecksum: false,
});

/** A request signed as an SDK signs it: `path` already encoded, `query` decoded; the wire path may be encoded otherwise. */
const signed = async (
  method: string,
  path: string,
  {
    query = {},
    headers = {},
    body = Buffer.alloc(0),
    wirePath = path,
  }: {
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: Buffer;
    wirePath?: string;
  } = {},
) => {
  const payload = headers['x-amz-content-sha256'] ?? createHash('sha256').update(body).digest('hex');
  const host = `127.0.0.1:${port}`;
  const toSign = {
    method,
    protocol: 'http:',
    hostname: '127.0.0.1',
    port,
    path,
    query,
    headers: { ...headers, host, 'x-amz-content-sha256': payload },
    body,
  };
  const { headers: signedHeaders } = await signer.sign(toSign);
  const search = Object.entries(query)
    .map(([name, value]) => (value === '' ? strict(name) : `${strict(name)}=${strict(value)}`))
    .join('&');
  const { host: _host, ...rest } = signedHeaders;
  return send(method, `${wirePath}${search ? `?${search}` : ''}`, rest, body);
};

/** An answer that is S3's: not a 500; an error (4xx, 501) with its `<Error>` document unless to a HEAD. */
const expectS3Answer = (answer: Answer, method: string) => {
  expect(answer.status).not.toBe(500);
  expect(answer.status < 500 || answer.status === 501).toBe(true);
  if (answer.status >= 400 && method !== 'HEAD')
    expect(answer.body.toString('utf8')).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error><Code>[A-Za-z]+<\/Code><Message>[^<]*<\/Message>.*<RequestId>[0-9A-F]{16}<\/RequestId><\/Error>$/s,
    );
};

/** The server still answers: a plain signed ListBuckets. */
const stillAnswering = async () => {
  const listing = await signed('GET', '/');
  expect([listing.status, listing.body.toString()]).toEqual([200, expect.stringContaining('<ListAllMyBucketsResult')]);
};

/** The keys of a listing with encoding-type=url, decoded (XML's escapes, then the URL encoding). */
const listedKeys = (body: Buffer) =>
  [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map(([, key]) =>
    decodeURIComponent(
      (key ?? '').replace(
        /&(amp|lt|gt|quot|apos);/g,
        (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name] as string,
      ),
    ),
  );

/** Characters of every class: C0 and C1 controls, ASCII punctuation, Latin-1, the BMP's, and the other planes'. */
const keyCharacter = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
  fc.constantFrom(...' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.split('')),
  fc.integer({ min: 0x7f, max: 0xff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x100, max: 0xd7ff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0xe000, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
  fc.constantFrom('a', 'Z', '0', '/', '.', '..', '//'),
);

// Object key naming ("Naming Amazon S3 objects", Amazon S3 User Guide, https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html):
// any UTF-8 characters, at most 1,024 bytes; ListObjectsV2's encoding-type=url for the keys XML 1.0 cannot hold.
test('a key of any characters, however its path is encoded, is put, got, listed, deleted', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(keyCharacter, { minLength: 1, maxLength: 40 }),
      fc.boolean(),
      async (characters, loose) => {
        const key = characters.join('');
        const path = `/keys/${keyPath(key)}`;
        // Loosely encoded (RFC 3986's sub-delimiters and others left as they are): the same key once decoded.
        const wirePath = loose
          ? `/keys/${encodeURIComponent(key).replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%40/g, '@')}`
          : path;
        const body = Buffer.from(key);
        const put = await signed('PUT', path, { body, wirePath });
        expectS3Answer(put, 'PUT');
        expect(put.status).toBe(200);
        const got = await signed('GET', path);
        expect([got.status, got.body.equals(body)]).toEqual([200, true]);
        const listed = await signed('GET', '/keys', {
          query: { 'list-type': '2', prefix: key, 'encoding-type': 'url' },
        });
        expect(listedKeys(listed.body)).toContain(key);
        const deleted = await signed('DELETE', path);
        expect(deleted.status).toBe(204);
        expect((await signed('HEAD', path)).status).toBe(404);
      },
    ),
    { numRuns: 100 },
  );
}, 120_000);

test('a key over 1,024 bytes is refused KeyTooLongError', async () => {
  const answer = await signed('PUT', `/keys/${keyPath('é'.repeat(513))}`, { body: Buffer.from('x') });
  expectS3Answer(answer, 'PUT');
  expect(answer.body.toString()).toContain('<Code>KeyTooLongError</Code>');
});

/**
 * What a Range header selects of `size` bytes, written apart from the service (RFC 9110 section 14.1.2 and 14.4;
 * "GetObject": one range; a header that is not one range is ignored): a slice, the whole (200), or unsatisfiable.
 */
const rangeOracle = (
  header: string,
  size: number,
): { status: 200 } | { status: 206; start: number; end: number } | { status: 416 } => {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { status: 200 };
  const [first, last] = [match[1] as string, match[2] as string];
  if (first === '' && last === '') return { status: 200 };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { status: 416 };
    return { status: 206, start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { status: 200 };
  if (start >= size) return { status: 416 };
  return { status: 206, start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
};

const rangeHeader = fc.oneof(
  fc
    .tuple(fc.option(fc.nat({ max: 3000 }), { nil: undefined }), fc.option(fc.nat({ max: 3000 }), { nil: undefined }))
    .map(([a, b]) => `bytes=${a ?? ''}-${b ?? ''}`),
  fc.tuple(fc.nat(50), fc.nat(50), fc.nat(50), fc.nat(50)).map(([a, b, c, d]) => `bytes=${a}-${b},${c}-${d}`),
  fc.constantFrom(
    'bytes=',
    'bytes=-',
    'items=0-1',
    'bytes=1-2-3',
    'bytes=a-b',
    '',
    ' bytes=0-0',
    'bytes=99999999999999999999-',
  ),
  fc.string({ maxLength: 20 }),
);

test('a Range of any shape answers the bytes RFC 9110 selects, the whole, or 416', async () => {
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: 2000 }), rangeHeader, async (size, range) => {
      const data = Buffer.alloc(size, 7).map((_, i) => i % 251);
      const path = `/keys/ranged-${size}`;
      expect((await signed('PUT', path, { body: Buffer.from(data) })).status).toBe(200);
      // Node refuses to send a header with control characters: such a Range is not a request at all.
      if (/[^\t\x20-\x7e]/.test(range)) return;
      const answer = await signed('GET', path, { headers: { range } });
      expectS3Answer(answer, 'GET');
      const expected = rangeOracle(range, size);
      expect(answer.status).toBe(expected.status);
      if (expected.status === 206) {
        expect(answer.headers['content-range']).toBe(`bytes ${expected.start}-${expected.end}/${size}`);
        expect(answer.body.equals(Buffer.from(data).subarray(expected.start, expected.end + 1))).toBe(true);
      }
      if (expected.status === 200) expect(answer.body.equals(Buffer.from(data))).toBe(true);
    }),
    { numRuns: 300 },
  );
});

/** Documents that are not the one expected: text, broken XML, XML of other shapes, and near-misses of S3's. */
const notS3Xml = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.constantFrom(
    '',
    '<',
    '<Delete>',
    '<Delete><Object><Key>a</Key></Object>',
    '<Delete></Delete>',
    '<Delete><Object></Object></Delete>',
    '<Delete><Object><Key></Key></Object></Delete>',
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "&e;&e;">]><Delete><Object><Key>&e;</Key></Object></Delete>',
    '<VersioningConfiguration><Status>On</Status></VersioningConfiguration>',
    '<CORSConfiguration><CORSRule><AllowedMethod>PATCH</AllowedMethod><AllowedOrigin>*</AllowedOrigin></CORSRule></CORSConfiguration>',
    '<CORSConfiguration><CORSRule></CORSRule></CORSConfiguration>',
    '<CompleteMultipartUpload><Part><PartNumber>x</PartNumber></Part></CompleteMultipartUpload>',
    '<a><b>text</b><b><c/></b></a>',
    '\u0000\u0001<Delete/>',
    '<Delete><Object><Key>a</Key><Key>b</Key></Object><Quiet>maybe</Quiet></Delete>',
  ),
  fc
    .array(
      fc.constantFrom(
        '<Delete>',
        '</Delete>',
        '<Object>',
        '</Object>',
        '<Key>',
        '</Key>',
        'k',
        '&amp;',
        '&bogus;',
        '<![CDATA[x]]>',
        '<!-- c -->',
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join('')),
);

test('a document that is not S3 XML is refused MalformedXML (or another 4xx), never a 500', async () => {
  const { body: created } = await signed('POST', '/xml/upload', { query: { uploads: '' } });
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.toString())?.[1] ?? '';
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        ['POST', '/xml', { delete: '' }] as const,
        ['PUT', '/xml', { versioning: '' }] as const,
        ['PUT', '/xml', { cors: '' }] as const,
        ['POST', '/xml/upload', { uploadId }] as const,
      ),
      notS3Xml,
      async ([method, path, query], document) => {
        const answer = await signed(method, path, { query, body: Buffer.from(document) });
        expectS3Answer(answer, method);
        expect(answer.status === 200 || (answer.status >= 400 && answer.status < 500)).toBe(true);
      },
    ),
    { numRuns: 300 },
  );
  await stillAnswering();
});

/** `data` framed aws-chunked in chunks of `sizes`, with a CRC-32 trailer (sigv4-streaming-trailers). */
const framed = (data: Buffer, sizes: number[]) => {
  const parts: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    const chunk = data.subarray(at, at + size);
    if (chunk.length === 0) break;
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    at += chunk.length;
  }
  if (at < data.length)
    parts.push(Buffer.from(`${(data.length - at).toString(16)}\r\n`), data.subarray(at), Buffer.from('\r\n'));
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(data));
  parts.push(Buffer.from(`0\r\nx-amz-checksum-crc32:${checksum.toString('base64')}\r\n\r\n`));
  return Buffer.concat(parts);
};

/** A change to a framed body: none, cut short, a byte changed, bytes put in, or a chunk's size line rewritten. */
const mutation = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), byte: fc.nat(255) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.constantFrom('\r\n', ';', 'zz', '0\r\n', ';chunk-signature=0\r\n', ':', '\r\n\r\n'),
  }),
  fc.record({
    kind: fc.constant('size' as const),
    size: fc.constantFrom('g', 'FFFFFFFFFFFFFFFF', '-1', '', ' 1', '1;x=y', '10000000'),
  }),
);

const mutated = (
  body: Buffer,
  change: fc.Arbitrary<unknown> extends never
    ? never
    : { kind: string; at?: number; byte?: number; bytes?: string; size?: string },
) => {
  const at = Math.floor((change.at ?? 0) * body.length);
  switch (change.kind) {
    case 'cut':
      return body.subarray(0, at);
    case 'flip': {
      const copy = Buffer.from(body);
      if (copy.length > 0) copy[Math.min(at, copy.length - 1)] = change.byte ?? 0;
      return copy;
    }
    case 'insert':
      return Buffer.concat([body.subarray(0, at), Buffer.from(change.bytes ?? ''), body.subarray(at)]);
    case 'size':
      return Buffer.concat([Buffer.from(change.size ?? ''), body.subarray(body.indexOf('\r\n'))]);
    default:
      return body;
  }
};

test('an aws-chunked body is stored as its bytes, or refused when its framing is broken; never a 500', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 3000 }),
      fc.array(fc.integer({ min: 1, max: 1500 }), { maxLength: 4 }),
      mutation,
      async (bytes, sizes, change) => {
        const data = Buffer.from(bytes);
        const body = mutated(framed(data, sizes), change);
        const headers = {
          'content-encoding': 'aws-chunked',
          'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
          'x-amz-decoded-content-length': String(data.length),
          'x-amz-trailer': 'x-amz-checksum-crc32',
        };
        const answer = await signed('PUT', '/keys/chunked', { headers, body });
        expectS3Answer(answer, 'PUT');
        if (change.kind === 'none') expect(answer.status).toBe(200);
        if (answer.status === 200) {
          const got = await signed('GET', '/keys/chunked');
          expect(got.body.equals(data)).toBe(true);
        } else expect([400, 403]).toContain(answer.status);
      },
    ),
    { numRuns: 300 },
  );
});

const pathPart = fc.oneof(
  fc.constantFrom(
    '',
    '/',
    '//',
    '/keys',
    '/keys/',
    '/keys/a',
    '/xml',
    '/no-such',
    '/UPPER',
    '/a..b',
    '/%zz',
    '/%C0%80',
    '/%ED%A0%80',
    '/keys/%',
    '/keys/%2',
    '/%2Fkeys',
    '*',
  ),
  fc.stringMatching(/^\/(keys\/|xml\/)?[A-Za-z0-9._~/-]{0,20}(%[0-9A-F]{2})?$/),
);
const queryPart = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    'uploads',
    'uploadId=x',
    'partNumber=0&uploadId=x',
    'versioning',
    'cors',
    'delete',
    'versions',
    'location',
    'acl',
    'tagging',
    'list-type=2&max-keys=-1',
    'list-type=2&continuation-token=%%%',
    'versionId=',
    'versionId=nope',
    'partNumber=99999',
    'encoding-type=base64&list-type=2',
    'max-keys=abc',
    'X-Amz-Signature=00',
    'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=local%2F20200101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20200101T000000Z&X-Amz-Expires=1&X-Amz-SignedHeaders=host&X-Amz-Signature=' +
      '0'.repeat(64),
  ),
  fc.stringMatching(/^[A-Za-z0-9=&%.-]{0,30}$/),
);
const headerSet = fc.dictionary(
  fc.constantFrom(
    'range',
    'if-match',
    'if-none-match',
    'if-modified-since',
    'x-amz-copy-source',
    'x-amz-copy-source-range',
    'content-md5',
    'x-amz-checksum-crc32',
    'x-amz-checksum-sha256',
    'x-amz-checksum-algorithm',
    'content-encoding',
    'x-amz-content-sha256',
    'x-amz-decoded-content-length',
    'x-amz-trailer',
    'x-amz-metadata-directive',
    'authorization',
    'origin',
    'access-control-request-method',
    'x-amz-checksum-mode',
    'x-amz-sdk-checksum-algorithm',
  ),
  fc.oneof(
    fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
    fc.constantFrom(
      '*',
      'aws-chunked',
      'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'keys/a',
      '/no-such/key',
      'bytes=0-1',
      'ENABLED',
      'crc32',
      'AAAAAA==',
      'http://localhost:1',
    ),
  ),
  { maxKeys: 4 },
);

test('requests of any method, path, query and headers, signed or not, are answered as S3 answers', async () => {
  await signed('PUT', '/keys/a', { body: Buffer.from('a') });
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND'),
      pathPart,
      queryPart,
      headerSet,
      fc.boolean(),
      fc.uint8Array({ maxLength: 200 }),
      async (method, path, query, headers, signIt, bytes) => {
        const body = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(bytes);
        const wire = `${path.startsWith('/') ? path : `/${path}`}${query ? `?${query}` : ''}`;
        let answer: Answer;
        if (signIt && !/%(?![0-9A-Fa-f]{2})/.test(wire)) {
          const search = new URLSearchParams(query);
          const decodedQuery = Object.fromEntries(search.entries());
          let decodedPath: string;
          try {
            decodedPath = decodeURIComponent(path.startsWith('/') ? path : `/${path}`);
          } catch {
            decodedPath = path;
          }
          const { authorization: _a, ...unsigned } = headers;
          answer = await signed(method, keyPath(decodedPath), {
            query: decodedQuery,
            headers: unsigned,
            body,
            wirePath: wire.split('?')[0] as string,
          }).catch(() => send(method, wire, headers, body));
        } else answer = await send(method, wire, headers, body);
        expectS3Answer(answer, method);
      },
    ),
    { numRuns: 400 },
  );
  await stillAnswering();
});

/** Bodies of multipart/form-data, whole or broken: parts with or without names, files, closing delimiters. */
const formBody = fc
  .array(
    fc.constantFrom(
      '--b\r\n',
      'Content-Disposition: form-data; name="key"\r\n\r\nposted\r\n',
      'Content-Disposition: form-data; name="file"; filename="f.txt"\r\nContent-Type: text/plain\r\n\r\nbytes\r\n',
      'Content-Disposition: form-data; name="policy"\r\n\r\neyJleHBpcmF0aW9uIjoiMjAwMC0wMS0wMVQwMDowMDowMFoiLCJjb25kaXRpb25zIjpbXX0=\r\n',
      'Content-Disposition: form-data; name="x-amz-algorithm"\r\n\r\nAWS4-HMAC-SHA256\r\n',
      'Content-Disposition: form-data; name="x-amz-credential"\r\n\r\nlocal/20200101/us-east-1/s3/aws4_request\r\n',
      'Content-Disposition: form-data\r\n\r\nno name\r\n',
      '--b--\r\n',
      '\r\n',
      'garbage',
    ),
    { maxLength: 10 },
  )
  .map((parts) => Buffer.from(parts.join('')));

test('a form upload of any shape (PostObject) is refused as S3 refuses it, never a 500', async () => {
  await fc.assert(
    fc.asyncProperty(
      formBody,
      fc.constantFrom('multipart/form-data; boundary=b', 'multipart/form-data', 'multipart/form-data; boundary="b"'),
      async (body, type) => {
        const answer = await send('POST', '/keys', { 'content-type': type }, body);
        expectS3Answer(answer, 'POST');
        expect(answer.status >= 400 && answer.status < 500).toBe(true);
      },
    ),
    { numRuns: 200 },
  );
  await stillAnswering();
});
