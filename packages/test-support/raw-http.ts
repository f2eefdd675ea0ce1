// Requests as raw bytes, for what no HTTP client sends: malformed requests, repeated singleton headers, CONNECT.
import { connect } from 'node:net';

/** Sends `request` to `url`'s port on loopback and resolves with all the server wrote until it closed the connection. */
export const rawExchange = (url: string, request: string | Buffer) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

/** Status, Content-Type and JSON body of a raw HTTP/1.1 answer. */
export const parseRaw = (raw: string) => {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1];
  return { status, contentType, json: JSON.parse(body) as unknown };
};
