// One loopback port taking both HTTP/1.1 and cleartext HTTP/2 ("Starting HTTP/2 with prior knowledge", RFC 9113
// section 3.3): the SDK's Kinesis client speaks HTTP/2 by default, the AWS CLI, boto3 and curl HTTP/1.1. Node's
// `http2.createServer` takes HTTP/2 alone (its `allowHTTP1` works over TLS only, through ALPN), so each connection is
// read until its first bytes tell: the client connection preface (RFC 9113 section 3.4, `PRI * HTTP/2.0...`) goes to
// an HTTP/2 server, anything else to an HTTP/1.1 one. Neither server listens itself: the front server below does.
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Server, ServerHttp2Session } from 'node:http2';
import { createServer, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** The client connection preface every HTTP/2 connection opens with (RFC 9113 section 3.4). */
const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** How long a connection that has not said which version it speaks is kept, at most. */
const undecidedMs = 60_000;

/** Whether `bytes` (a connection's first ones) are the preface or may still become it: undefined while they may. */
const isHttp2 = (bytes: Buffer) => {
  const length = Math.min(bytes.length, preface.length);
  if (!bytes.subarray(0, length).equals(preface.subarray(0, length))) return false;
  return length === preface.length ? true : undefined;
};

/**
 * `socket`, with `first` (read from it already) read again before the rest. Node's HTTP/2 session reads a socket's
 * handle directly and would miss bytes given back with `unshift`, so it gets this stream instead.
 */
const replaying = (socket: Socket, first: Buffer) => {
  const stream = new Duplex({
    read: () => socket.resume(),
    write: (chunk: Buffer, encoding, done) => socket.write(chunk, encoding, done),
    final: (done) => socket.end(done),
    destroy: (error, done) => {
      socket.destroy();
      done(error);
    },
  });
  stream.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('close', () => stream.destroy());
  return stream;
};

/**
 * A server (to listen with `listenOnLoopback`) handing each connection to `http1` or `http2` by its first bytes, and
 * how to close it: the listener closed, connections not yet decided ended, HTTP/2 sessions closed once their streams
 * end, HTTP/1.1 connections once their response is sent (`http1` never listens, so its own closeIdleConnections knows
 * none of them: each is followed here, with the number of its responses not yet sent).
 */
export const bothHttpVersions = (http1: HttpServer, http2: Http2Server) => {
  const undecided = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const pending = new Map<Socket, number>();
  let closing = false;
  http2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const endIfIdle = (socket: Socket) => {
    if (closing && pending.get(socket) === 0) socket.end();
  };
  http1.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    if (closing) response.shouldKeepAlive = false;
    pending.set(socket, (pending.get(socket) ?? 0) + 1);
    response.once('close', () => {
      if (!pending.has(socket)) return;
      pending.set(socket, (pending.get(socket) ?? 1) - 1);
      endIfIdle(socket);
    });
  });
  const toHttp1 = (socket: Socket, first: Buffer) => {
    pending.set(socket, 0);
    socket.once('close', () => pending.delete(socket));
    socket.unshift(first);
    http1.emit('connection', socket);
    socket.resume();
  };
  const front: Server = createServer((socket) => {
    undecided.add(socket);
    socket.on('error', () => socket.destroy());
    socket.setTimeout(undecidedMs, () => socket.destroy());
    let first = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      first = Buffer.concat([first, chunk]);
      const version2 = isHttp2(first);
      if (version2 === undefined) return;
      socket.off('data', onData);
      socket.pause();
      socket.setTimeout(0);
      undecided.delete(socket);
      if (version2) http2.emit('connection', replaying(socket, first));
      else toHttp1(socket, first);
    };
    socket.on('data', onData);
    socket.once('close', () => undecided.delete(socket));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      closing = true;
      front.close(() => resolve());
      for (const socket of undecided) socket.destroy();
      for (const session of sessions) session.close();
      for (const socket of pending.keys()) endIfIdle(socket);
    });
  return { front, close };
};
