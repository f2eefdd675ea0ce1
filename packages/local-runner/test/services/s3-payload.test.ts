// How the local S3 reads an upload's bytes. A chunk-signed upload, checked against the worked example of "Signature
// Calculations for the Authorization Header: Transferring Payload in Multiple Chunks (Chunked Upload)" (Amazon S3 API
// Reference, https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html, "Example: PUT Object": its secret
// key, date and scope, its seed signature, and the signatures of a 65,536-byte chunk, a 1,024-byte chunk and the
// final empty one); and the checksums, against the check values of the CRC catalogue (the CRC of "123456789") that
// "Checking object integrity in Amazon S3" (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html)
// names by algorithm.
import { createHmac } from 'node:crypto';
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { checksumDigest } from '../../src/services/s3/checksums.ts';
import { decodeChunked } from '../../src/services/s3/payload.ts';

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();
const example = {
  seed: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
  date: '20130524T000000Z',
  scope: '20130524/us-east-1/s3/aws4_request',
  key: hmac(
    hmac(hmac(hmac('AWS4wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524'), 'us-east-1'), 's3'),
    'aws4_request',
  ),
};
const chunks = [
  { data: Buffer.alloc(65536, 'a'), signature: 'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648' },
  { data: Buffer.alloc(1024, 'a'), signature: '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497' },
  { data: Buffer.alloc(0), signature: 'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9' },
];
const body = (given = chunks) =>
  Buffer.concat(
    given.flatMap(({ data, signature }) => [
      Buffer.from(`${data.length.toString(16)};chunk-signature=${signature}\r\n`),
      data,
      Buffer.from('\r\n'),
    ]),
  );

test("the documented example's chunk signatures check, and the object is the chunks' bytes", () => {
  const { data } = decodeChunked(body(), example);
  expect(data.equals(Buffer.alloc(66560, 'a'))).toBe(true);
});

test('a chunk changed, or chunks in another order, no longer check: SignatureDoesNotMatch', () => {
  const changed = chunks.map((chunk, index) => (index === 1 ? { ...chunk, data: Buffer.alloc(1024, 'b') } : chunk));
  expect(() => decodeChunked(body(changed), example)).toThrow(
    expect.objectContaining({ code: 'SignatureDoesNotMatch', status: 403 }),
  );
  const swapped = [chunks[1], chunks[0], chunks[2]] as typeof chunks;
  expect(() => decodeChunked(body(swapped), example)).toThrow(
    expect.objectContaining({ code: 'SignatureDoesNotMatch' }),
  );
  const unsigned = Buffer.from(
    body()
      .toString('latin1')
      .replace(/;chunk-signature=[0-9a-f]+/g, ''),
    'latin1',
  );
  expect(() => decodeChunked(unsigned, example)).toThrow(expect.objectContaining({ code: 'SignatureDoesNotMatch' }));
});

test('an unsigned chunked body (SDK v3 with a trailing checksum) is its chunks, the trailer read apart', () => {
  const sent = Buffer.from('5\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n');
  expect(decodeChunked(sent, undefined)).toEqual({
    data: Buffer.from('hello world'),
    trailers: { 'x-amz-checksum-crc32': 'DUoRhQ==' },
  });
});

test('the checksums are the CRC catalogue check values of "123456789", and SHA-1 and SHA-256', () => {
  const check = Buffer.from('123456789');
  expect(
    Object.fromEntries(
      (['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const).map((algorithm) => [
        algorithm,
        checksumDigest(algorithm, check).toString('hex'),
      ]),
    ),
  ).toEqual({
    CRC32: 'cbf43926',
    CRC32C: 'e3069283',
    CRC64NVME: 'ae8b14860a799888',
    SHA1: 'f7c3bc1d808e04732adf679965ccc34ca7ae3441',
    SHA256: '15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225',
  });
});

/** CRC-64/NVME bit by bit, as its definition reads (reflected, all-ones in and out): the oracle of the sliced one. */
const crc64Bitwise = (data: Uint8Array) => {
  let crc = 0xffffffffffffffffn;
  for (const byte of data) {
    crc ^= BigInt(byte);
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1n ? (crc >> 1n) ^ 0x9a6c9329ac4bc9b5n : crc >> 1n;
  }
  return (crc ^ 0xffffffffffffffffn).toString(16).padStart(16, '0');
};

test('CRC-64/NVME, eight bytes at a time, is the bitwise CRC of any bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 100 }), (data) => {
      expect(checksumDigest('CRC64NVME', data).toString('hex')).toBe(crc64Bitwise(data));
    }),
    { numRuns: 300 },
  );
});
