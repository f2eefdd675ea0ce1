// One port taking HTTP/1.1 and cleartext HTTP/2 with prior knowledge (RFC 9113 section 3.3), each connection handed on
// by its first bytes (the client connection preface, RFC 9113 section 3.4): both versions answered, a connection that
// sends anything at all (random bytes, a preface cut short, the preface then random frames) never ends the process,
// and the server answers both versions after. A failure names the seed that sends the same bytes again.
import { createServer } from 'node:http';
import { connect as connectHttp2, createServer as createHttp2Server } from 'node:http2';
import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { bothHttpVersions } from '../src/both-http-versions.ts';
import { listenOnLoopback, respondingToEveryRequest } from '../src/http-server.ts';

const preface = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  // Answers each request with its HTTP version and the body it read.
  const handle = (request: Readable & { httpVersion: string }, response: { end(body: string): unknown }) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => response.end(`${request.httpVersion} ${Buffer.concat(chunks).toString()}`));
  };
  const both = bothHttpVersions(respondingToEveryRequest(createServer(handle)), createHttp2Server(handle));
  url = await listenOnLoopback(both.front);
  close = both.close;
});
afterAll(() => close());

const http1 = async (body: string) => (await fetch(url, { method: 'POST', body })).text();

const http2 = (body: string) =>
  new Promise<string>((resolve, reject) => {
    const session = connectHttp2(url);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/' });
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      session.close();
      resolve(Buffer.concat(chunks).toString());
    });
    stream.on('error', reject);
    stream.end(body);
  });

test('HTTP/1.1 and HTTP/2 on the same port, each answered in its own version', async () => {
  expect(await http1('one')).toBe('1.1 one');
  expect(await http2('two')).toBe('2.0 two');
  const large = 'x'.repeat(300_000);
  expect(await http2(large)).toBe(`2.0 ${large}`);
  expect(await http1(large)).toBe(`1.1 ${large}`);
});

/** Sends `bytes` on a connection of its own, half-closes it, and resolves once the server has closed it too. */
const sendRaw = (bytes: Buffer) =>
  new Promise<void>((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.end(bytes));
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });

/** A frame header (RFC 9113 section 4.1) with any length, type, flags and stream, and any payload after it. */
const frame = fc
  .tuple(fc.integer({ min: 0, max: 2 ** 24 - 1 }), fc.nat(255), fc.nat(255), fc.nat(2 ** 31 - 1), fc.uint8Array())
  .map(([length, type, flags, stream, payload]) => {
    const header = Buffer.alloc(9);
    header.writeUIntBE(length, 0, 3);
    header.writeUInt8(type, 3);
    header.writeUInt8(flags, 4);
    header.writeUInt32BE(stream, 5);
    return Buffer.concat([header, payload]);
  });

/** What a connection sends: random bytes, a preface cut short, the preface then random bytes or random frames. */
const connectionBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.nat(preface.length - 1).map((length) => Buffer.from(preface.slice(0, length))),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.concat([Buffer.from(preface), bytes])),
  fc
    .array(frame, { maxLength: 6 })
    .map((frames) => Buffer.concat([Buffer.from(preface), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), ...frames])),
);

test('no connection, whatever its bytes, ends the process; both versions are answered after', async () => {
  const seed = Date.now();
  const sent = fc.sample(connectionBytes, { seed, numRuns: 300 });
  for (const bytes of sent) await sendRaw(bytes);
  expect({ seed, http1: await http1('after') }).toEqual({ seed, http1: '1.1 after' });
  expect({ seed, http2: await http2('after') }).toEqual({ seed, http2: '2.0 after' });
}, 60_000);
