// An upload's bytes as S3 reads them. SDK v3 sends a streaming body `aws-chunked` ("Signature Calculations for the
// Authorization Header: Transferring Payload in Multiple Chunks (Chunked Upload) (AWS Signature Version 4)",
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html, and "... with trailing checksums",
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html): chunks of `<hex size>[;chunk-
// signature=<sig>]\r\n<bytes>\r\n`, a last chunk of size 0, then trailing headers (the checksum) and an empty line.
// The object holds the bytes of the chunks alone. A checksum sent (in a header or a trailer) is checked against the
// bytes, and kept; Content-MD5 too.
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { algorithmNamed, checksumHeader, checksumOf } from './checksums.ts';
import { invalidArgument, invalidRequest, S3Error } from './errors.ts';
import type { ChecksumAlgorithm, StoredChecksum } from './store.ts';

/** The payload hashes that are not a SHA-256 of the body ("x-amz-content-sha256" in sigv4-streaming). */
export const streamingPayloads = [
  'UNSIGNED-PAYLOAD',
  'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
] as const;

/** What verifies a signed chunked upload's chunk signatures: the seed signature and the signing key's scope. */
export interface ChunkSigning {
  seed: string;
  date: string;
  scope: string;
  key: Buffer;
}

const incomplete = () =>
  new S3Error(
    400,
    'IncompleteBody',
    'You did not provide the number of bytes specified by the Content-Length HTTP header',
  );
const malformedChunks = (why: string) => invalidRequest(`The aws-chunked body is malformed: ${why}`);
const signatureMismatch = () =>
  new S3Error(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const emptyHash = sha256('');

const chunkSignature = (signing: ChunkSigning, previous: string, data: Buffer) =>
  createHmac('sha256', signing.key)
    .update(['AWS4-HMAC-SHA256-PAYLOAD', signing.date, signing.scope, previous, emptyHash, sha256(data)].join('\n'))
    .digest('hex');

const trailerSignature = (signing: ChunkSigning, previous: string, trailer: string) =>
  createHmac('sha256', signing.key)
    .update(['AWS4-HMAC-SHA256-TRAILER', signing.date, signing.scope, previous, sha256(trailer)].join('\n'))
    .digest('hex');

/** The index of the CRLF at or after `from`, or a refusal. */
const lineEnd = (body: Buffer, from: number) => {
  const end = body.indexOf('\r\n', from);
  if (end < 0) throw incomplete();
  return end;
};

/** One chunk's header line: its size and its signature, if signed. */
const chunkHeader = (line: string) => {
  const [, size, signature] = /^([0-9a-fA-F]{1,16})(?:;chunk-signature=([0-9a-f]{64}))?$/.exec(line) ?? [];
  if (size === undefined) throw malformedChunks(`a chunk starts with ${JSON.stringify(line.slice(0, 40))}`);
  return { size: Number.parseInt(size, 16), signature };
};

/** The trailing headers after the last chunk, by lower-case name, and where they end. */
const trailersOf = (body: Buffer, from: number) => {
  const trailers: Record<string, string> = {};
  const lines: string[] = [];
  let at = from;
  for (;;) {
    if (at >= body.length) break; // the final empty line left out: what the trailers say is whole
    const end = lineEnd(body, at);
    const line = body.subarray(at, end).toString('latin1');
    at = end + 2;
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon < 1) throw malformedChunks(`a trailer ${JSON.stringify(line.slice(0, 40))} is no header`);
    const name = line.slice(0, colon).trim().toLowerCase();
    trailers[name] = line.slice(colon + 1).trim();
    if (name !== 'x-amz-trailer-signature') lines.push(`${name}:${trailers[name]}\n`);
  }
  if (at !== body.length) throw malformedChunks('bytes follow the trailers');
  return { trailers, signed: lines.join('') };
};

/** The bytes of an `aws-chunked` body, and its trailing headers; chunk signatures checked when `signing` is given. */
export const decodeChunked = (body: Buffer, signing: ChunkSigning | undefined) => {
  const parts: Buffer[] = [];
  let at = 0;
  let previous = signing?.seed ?? '';
  for (;;) {
    const end = lineEnd(body, at);
    const { size, signature } = chunkHeader(body.subarray(at, end).toString('latin1'));
    const start = end + 2;
    if (start + size > body.length) throw incomplete();
    const data = body.subarray(start, start + size);
    if (signing) {
      if (signature === undefined || chunkSignature(signing, previous, data) !== signature) throw signatureMismatch();
      previous = signature;
    }
    if (size === 0) {
      const { trailers, signed } = trailersOf(body, start);
      const trailerSig = trailers['x-amz-trailer-signature'];
      if (signing && trailerSig !== undefined && trailerSignature(signing, previous, signed) !== trailerSig)
        throw signatureMismatch();
      return { data: Buffer.concat(parts), trailers };
    }
    if (body.subarray(start + size, start + size + 2).toString('latin1') !== '\r\n')
      throw start + size + 2 > body.length ? incomplete() : malformedChunks('a chunk is longer than its size');
    parts.push(data);
    at = start + size + 2;
  }
};

/** The checksum the client sends for its bytes (a header, or the trailer it announces), with its algorithm. */
const sentChecksum = (headers: IncomingHttpHeaders, trailers: Record<string, string>) => {
  const announced = String(headers['x-amz-trailer'] ?? '')
    .trim()
    .toLowerCase();
  const sdkAlgorithm = algorithmNamed(String(headers['x-amz-sdk-checksum-algorithm'] ?? ''));
  const found: { algorithm: ChecksumAlgorithm; value: string }[] = [];
  for (const [name, value] of [...Object.entries(headers), ...Object.entries(trailers)]) {
    const algorithm = name.startsWith('x-amz-checksum-') ? algorithmNamed(name.slice(15)) : undefined;
    if (algorithm && typeof value === 'string') found.push({ algorithm, value });
  }
  if (announced !== '' && !(announced in trailers))
    throw invalidRequest(`The x-amz-trailer ${announced} was announced but not sent`);
  if (found.length > 1)
    throw invalidRequest('Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  const [checksum] = found;
  if (sdkAlgorithm && checksum && checksum.algorithm !== sdkAlgorithm)
    throw invalidRequest(
      `Value for x-amz-sdk-checksum-algorithm header is invalid: it names ${sdkAlgorithm}, the checksum sent is ${checksum.algorithm}`,
    );
  return checksum;
};

/** Checks `data` against the checksum and Content-MD5 sent; the checksum to keep, if one was sent. */
export const checkedChecksum = (
  data: Buffer,
  headers: IncomingHttpHeaders,
  trailers: Record<string, string> = {},
): StoredChecksum | undefined => {
  const md5 = headers['content-md5'];
  if (typeof md5 === 'string') {
    if (Buffer.from(md5, 'base64').length !== 16)
      throw new S3Error(400, 'InvalidDigest', 'The Content-MD5 you specified was invalid.');
    if (createHash('md5').update(data).digest('base64') !== md5)
      throw new S3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
  }
  const sent = sentChecksum(headers, trailers);
  if (!sent) return undefined;
  const computed = checksumOf(sent.algorithm, data);
  if (Buffer.from(sent.value, 'base64').toString('base64') !== sent.value)
    throw invalidArgument(`Value for ${checksumHeader(sent.algorithm)} header is invalid.`);
  if (computed !== sent.value)
    throw new S3Error(400, 'BadDigest', `The ${sent.algorithm} you specified did not match the calculated checksum.`);
  return { algorithm: sent.algorithm, value: computed, type: 'FULL_OBJECT' };
};

/** Whether `headers` say the body is `aws-chunked` (Content-Encoding, or a STREAMING- payload hash). */
const isChunked = (headers: IncomingHttpHeaders) =>
  String(headers['content-encoding'] ?? '')
    .split(',')
    .some((coding) => coding.trim().toLowerCase() === 'aws-chunked') ||
  String(headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');

/** The bytes of an upload's body and their checked checksum. */
export const uploadedBytes = (body: Buffer, headers: IncomingHttpHeaders, signing: ChunkSigning | undefined) => {
  if (!isChunked(headers)) return { data: body, checksum: checkedChecksum(body, headers) };
  const { data, trailers } = decodeChunked(body, signing);
  const declared = headers['x-amz-decoded-content-length'];
  if (declared !== undefined && Number(declared) !== data.length) throw incomplete();
  return { data, checksum: checkedChecksum(data, headers, trailers) };
};
