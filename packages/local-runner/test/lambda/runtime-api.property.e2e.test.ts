// Any bytes sent to a live runner's Runtime API (and to the endpoint it gives functions for the AWS services it does
// not serve) get an HTTP answer and never end the runner: random request lines, methods, paths (bad percent-encoding),
// Host and browser headers, and bodies (`null`, non-JSON, large, truncated), sent raw over TCP beside a waiting
// runtime. Afterwards the runner still serves an invocation. The answers the Runtime API may give are those of the
// OpenAPI description AWS publishes ("Using the Lambda runtime API for custom runtimes",
// https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html), Node's parser's 400/413/431 besides.
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';
import { type Launched, startApp, stopStarted } from '../helpers/runner-process.ts';

let cloudAssemblyDir: string;
let runner: Launched & { url: string };
/** The warm environment's Runtime API (host:port), and the endpoint of the services the runner does not serve. */
let runtimeApi: string;
let unservedServices: string;

beforeAll(async () => {
  cloudAssemblyDir = synthesizeFixtureApp();
  runner = await startApp(cloudAssemblyDir, { args: ['--max-workers', '1'] });
  // One warm environment, its runtime waiting on invocation/next; the echo says its variables (a spare process was
  // handed them after it started, so /proc's copy of its environment does not hold them).
  const response = await fetch(`${runner.url}/test/echo`);
  expect(response.status).toBe(200);
  const { lambda } = (await response.json()) as { lambda: Record<string, string> };
  runtimeApi = lambda.AWS_LAMBDA_RUNTIME_API ?? '';
  unservedServices = new URL(lambda.AWS_ENDPOINT_URL ?? '').host;
}, 120_000);
afterAll(() => {
  stopStarted();
  rmSync(cloudAssemblyDir, { recursive: true, force: true });
});

/**
 * Sends `bytes` to `address` (host:port), half-closes, and resolves with the first line the server wrote before it
 * closed the connection ('' when it wrote nothing).
 */
const exchange = (address: string, bytes: Buffer) =>
  new Promise<string>((resolve, reject) => {
    const [host = '', port] = address.split(':');
    const socket = connect(Number(port), host, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may answer and close before it has read all a large request (413, 431): the answer counts.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') socket.destroy();
      else reject(error);
    });
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').split('\r\n')[0] ?? ''));
  });

const percentJunk = fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', '%C0%AF', '%FF', '%2F', '%25', '%ED%A0%80');
const segment = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.tuple(fc.string({ maxLength: 6 }), percentJunk).map(([text, junk]) => `${encodeURIComponent(text)}${junk}`),
);
const path = fc.oneof(
  fc.constantFrom('/2018-06-01/runtime/invocation/next', '/2018-06-01/runtime/init/error', '/', '*', ''),
  fc
    .tuple(segment, fc.constantFrom('response', 'error', 'next', ''))
    .map(([id, outcome]) => `/2018-06-01/runtime/invocation/${id}/${outcome}`),
  fc.tuple(fc.constantFrom('/2018-06-01/runtime/', '/', '//'), segment).map(([base, rest]) => `${base}${rest}`),
);
const method = fc.oneof(
  fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE'),
  fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,8}$/),
);
const body = fc.oneof(
  fc.constantFrom('null', '7', '"text"', '{', '[]', '{"errorType":1,"errorMessage":null}', ''),
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.integer({ min: 1, max: 200_000 }).map((size) => 'x'.repeat(size)),
);
/** How the body is framed: its length, a length larger than sent (truncated), chunked (whole or cut), or none. */
const framing = fc.constantFrom('length', 'truncated', 'chunked', 'cut-chunk', 'none');

const request = (address: string) =>
  fc
    .record({
      method,
      path,
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 x'),
      host: fc.constantFrom(address, address, 'evil.example', '127.0.0.1', `localhost:${address.split(':')[1]}`, null),
      browser: fc.option(fc.constantFrom('Origin: http://evil.example', 'Sec-Fetch-Site: cross-site', 'Origin: null'), {
        nil: undefined,
      }),
      extra: fc.array(
        fc.tuple(fc.stringMatching(/^[\w-]{1,20}$/), fc.string({ maxLength: 40 })).map(([n, v]) => `${n}: ${v}`),
        { maxLength: 3 },
      ),
      errorType: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
      body,
      framing,
    })
    .map(({ method, path, version, host, browser, extra, errorType, body, framing }) => {
      const bytes = Buffer.from(body, 'utf8');
      const headers = [
        ...(host === null ? [] : [`Host: ${host}`]),
        ...(browser ? [browser] : []),
        ...(errorType === undefined ? [] : [`Lambda-Runtime-Function-Error-Type: ${errorType}`]),
        ...extra,
        'Connection: close',
      ];
      const framed =
        framing === 'length' || framing === 'truncated'
          ? {
              head: `Content-Length: ${bytes.length + (framing === 'truncated' ? 10 : 0)}`,
              payload: bytes,
            }
          : framing === 'chunked' || framing === 'cut-chunk'
            ? {
                head: 'Transfer-Encoding: chunked',
                payload: Buffer.concat([
                  Buffer.from(`${bytes.length.toString(16)}\r\n`),
                  bytes,
                  Buffer.from(framing === 'chunked' ? '\r\n0\r\n\r\n' : ''),
                ]),
              }
            : { head: undefined, payload: Buffer.alloc(0) };
      return Buffer.concat([
        Buffer.from(
          `${method} ${path} ${version}\r\n${[...headers, ...(framed.head ? [framed.head] : [])].join('\r\n')}\r\n\r\n`,
          'latin1',
        ),
        framed.payload,
      ]);
    });

/** The status line of any HTTP answer. */
const answered = /^HTTP\/1\.[01] \d{3} /;

test('thousands of random requests to the Runtime API: each answered, the runner up, then an invocation served', async () => {
  await fc.assert(
    fc.asyncProperty(request(runtimeApi), async (bytes) => {
      expect(await exchange(runtimeApi, bytes)).toMatch(answered);
    }),
    { numRuns: 2_000 },
  );
  // Whatever arrived in the meantime, the environment's own poll kept its place.
  const after = await fetch(`${runner.url}/test/echo`);
  expect(after.status).toBe(200);
  expect(JSON.parse(await after.text())).toMatchObject({ invocations: 2 });
  expect(runner.child.exitCode).toBeNull();
}, 120_000);

test('random requests to the endpoint of the services the runner does not serve: each answered', async () => {
  await fc.assert(
    fc.asyncProperty(request(unservedServices), async (bytes) => {
      expect(await exchange(unservedServices, bytes)).toMatch(answered);
    }),
    { numRuns: 500 },
  );
  expect((await fetch(`${runner.url}/test/echo`)).status).toBe(200);
  expect(runner.child.exitCode).toBeNull();
}, 120_000);
