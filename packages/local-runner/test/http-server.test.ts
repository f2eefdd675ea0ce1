// Which hosts the runner's servers answer (src/http-server.ts): loopback names and addresses, and the names given with
// --allowed-host. Sources: RFC 9110 section 7.2 (Host is uri-host [":" port]); RFC 9112 section 3.2.2 (an
// absolute-form target's authority wins over Host); RFC 6761 section 6.3 (localhost and the names under .localhost are
// loopback); the DNS rebinding checks of Vite (https://vite.dev/config/server-options#server-allowedhosts) and
// webpack-dev-server (https://webpack.js.org/configuration/dev-server/#devserverallowedhosts), which compare the name
// without its port and read a leading `.` as the name and its subdomains.
import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { rawExchange } from 'test-support/raw-http';
import { hostIsServed, listenOnLoopback, requestHost, respondingToEveryRequest } from '../src/http-server.ts';

describe('by default, loopback alone', () => {
  test.each([
    'localhost',
    'localhost:3000',
    'LOCALHOST:3000',
    '127.0.0.1',
    '127.0.0.1:3000',
    '[::1]',
    '[::1]:3000',
    // RFC 6761 section 6.3: names under .localhost resolve to loopback, and browsers do it without DNS.
    'app.localhost:3000',
    'a.b.localhost',
    // RFC 9110 section 7.2: the port is optional, and may be empty (`uri-host ":"`).
    'localhost:',
  ])('%s is served', (host) => expect(hostIsServed(host)).toBe(true));

  test.each([
    // A page on a name its DNS rebinds to 127.0.0.1 sends that name: refused, whatever the port.
    'evil.example',
    'evil.example:3000',
    'localhost.evil.example',
    'evillocalhost',
    '127.0.0.1.nip.io',
    // Other addresses: the runner listens on 127.0.0.1 alone, so only a proxy or a forwarder sends them.
    '192.168.1.5:3000',
    '0.0.0.0:3000',
    '[::2]',
    // Not a host at all.
    '',
    'localhost:3000:3000',
    'localhost/evil',
    'localhost@evil.example',
    'local host',
  ])('%s is refused', (host) => expect(hostIsServed(host)).toBe(false));
});

describe('--allowed-host', () => {
  test('a name serves that name, with any port, and no other', () => {
    expect(hostIsServed('plants.test:3000', ['plants.test'])).toBe(true);
    expect(hostIsServed('PLANTS.test', ['plants.test'])).toBe(true);
    expect(hostIsServed('api.plants.test', ['plants.test'])).toBe(false);
    expect(hostIsServed('evil.example', ['plants.test'])).toBe(false);
  });

  test('.name serves the name and its subdomains (Vite, webpack-dev-server), not a name that merely ends like it', () => {
    expect(hostIsServed('plants.test', ['.plants.test'])).toBe(true);
    expect(hostIsServed('api.plants.test:8080', ['.plants.test'])).toBe(true);
    expect(hostIsServed('evilplants.test', ['.plants.test'])).toBe(false);
  });

  test('a name given with a port names the host alone', () => {
    expect(hostIsServed('plants.test:9999', ['plants.test:3000'])).toBe(true);
  });
});

describe('the host a request names (RFC 9112 section 3.2.2)', () => {
  const request = (url: string, host?: string) =>
    ({ url, headers: host === undefined ? {} : { host } }) as unknown as IncomingMessage;

  test('the Host header, for a target in origin form', () => {
    expect(requestHost(request('/items', 'localhost:3000'))).toBe('localhost:3000');
  });

  test("an absolute-form target's authority, over the Host header", () => {
    expect(requestHost(request('http://evil.example/items', 'localhost'))).toBe('evil.example');
  });

  test('none, for an HTTP/1.0 request without Host: served (it names no other site)', () => {
    expect(requestHost(request('/items'))).toBeUndefined();
    expect(hostIsServed(undefined)).toBe(true);
  });
});

describe('every request answered (respondingToEveryRequest), and read by the client', () => {
  const server = respondingToEveryRequest(createServer((_request, response) => response.end('ok')));
  let url: string;
  beforeAll(async () => {
    url = await listenOnLoopback(server);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  // rawExchange fails on a reset (ECONNRESET): RFC 9112 section 9.6 has a server that refuses a request half-close
  // and read what the client still sends, so that the client reads the answer.
  test('a malformed request with 1 MiB of body behind it: 400, and the connection closes without a reset', async () => {
    const request = Buffer.concat([
      Buffer.from('POST / HTTP/1.1\r\nHost: localhost\r\nX-Nul: a\u0000b\r\nContent-Length: 1048576\r\n\r\n'),
      Buffer.alloc(1024 * 1024, 'x'),
    ]);
    expect(await rawExchange(url, request)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  test('CONNECT (RFC 9110 section 9.3.6), which this is no proxy for: 405, not a dropped connection', async () => {
    expect(await rawExchange(url, 'CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 405 Method Not Allowed\r\n/,
    );
  });
});
