// The answer to a WebSocket opening handshake (RFC 6455 section 4.1) sent to `url` with `headers`: 101 when the
// upgrade is accepted (the socket then closed at once), else the status and body of the refusal, read before any
// WebSocket is made.
import { request } from 'node:http';

export const upgradeStatus = (url: string | URL, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const asked = request(String(url).replace(/^ws:/, 'http:'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
        'Sec-WebSocket-Version': '13',
        ...headers,
      },
    });
    asked.on('upgrade', (_response, socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    asked.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    asked.on('error', reject);
    asked.end();
  });
