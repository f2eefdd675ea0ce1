// The local runner's API Gateway semantics over real HTTP, on a fixture app with an echo function, failing
// functions and a scripted TOKEN authorizer (see fixtures/fixture-app.ts).
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { recordedLog } from 'test-support/log-lines';
import { parseRaw, rawExchange as sendRaw } from 'test-support/raw-http';
import { listenOnLoopback } from '../../src/http-server.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';

let api: Runner;
const { lines: logLines, log, next: nextLogLine } = recordedLog();
const rawExchange = (request: string) => sendRaw(api.url, request);

/**
 * A barrier on loopback: it answers no request until `maxWorkers` wait at it at once, then all of them. Invocations
 * that pass it ran at the same time, which only that many execution environments can do.
 */
const maxWorkers = 3;
const waiting: (() => void)[] = [];
const barrier = createServer((_request, response) => {
  waiting.push(() => response.end());
  if (waiting.length >= maxWorkers) for (const release of waiting.splice(0)) release();
});

beforeAll(async () => {
  const barrierUrl = await listenOnLoopback(barrier);
  api = await startRunner({
    cloudAssemblyDir: synthesizeFixtureApp(),
    port: 0,
    dataDir: undefined,
    maxWorkers,
    envVars: { BarrierFunction: { BARRIER_URL: barrierUrl } },
    log,
    functionLog: () => undefined, // the fixture functions' failures, logged by design
  });
  // A synth and the database's start: 30 s was exceeded once with two CI runs on 2 cores.
}, 90_000);

afterAll(async () => {
  await api.close();
  await new Promise((resolve) => barrier.close(resolve));
});

const call = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}`, init);
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
const echoed = async (response: Response) =>
  (await response.json()) as {
    event: Record<string, unknown> & { requestContext: Record<string, unknown> };
    invocations: number;
    awsRequestId: string;
  };

describe('the proxy event (v1)', () => {
  test('carries method, paths, header case as sent, multi-value headers and query, and a null body', async () => {
    const response = await call('/echo?color=green&color=red&size=2', {
      headers: [
        ['X-Mixed-Case', 'kept'],
        ['X-Twice', 'first'],
        ['X-Twice', 'second'],
      ],
    });
    const { event } = await echoed(response);

    expect(response.status).toBe(200);
    expect(event).toMatchObject({
      resource: '/echo',
      path: '/echo',
      httpMethod: 'GET',
      body: null,
      isBase64Encoded: false,
      pathParameters: null,
      stageVariables: null,
      queryStringParameters: { color: 'red', size: '2' },
      multiValueQueryStringParameters: { color: ['green', 'red'], size: ['2'] },
    });
    expect(event.headers).toMatchObject({ 'X-Mixed-Case': 'kept' });
    expect(event.multiValueHeaders).toMatchObject({ 'X-Mixed-Case': ['kept'] });
    expect(event.requestContext).toMatchObject({
      stage: 'test',
      resourcePath: '/echo',
      httpMethod: 'GET',
      path: '/test/echo',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      identity: expect.objectContaining({ sourceIp: '127.0.0.1' }),
    });
    expect(response.headers.get('x-amzn-requestid')).toBe(event.requestContext.requestId);
  });

  test("adds a regional REST API's own headers: X-Forwarded-For (appended), -Port, -Proto and an X-Ray trace id", async () => {
    // Captured regional REST events carry these (e.g. powertools-lambda-typescript's apiGatewayProxyEvent test
    // event: X-Forwarded-For, X-Forwarded-Port "443", X-Forwarded-Proto "https", X-Amzn-Trace-Id "Root=1-...").
    const port = new URL(api.url).port;
    const plain = (await echoed(await call('/echo'))).event;
    expect(plain.headers).toMatchObject({
      'X-Forwarded-For': '127.0.0.1',
      'X-Forwarded-Port': port,
      'X-Forwarded-Proto': 'http',
      'X-Amzn-Trace-Id': expect.stringMatching(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/),
    });
    expect(plain.multiValueHeaders).toMatchObject({ 'X-Forwarded-For': ['127.0.0.1'] });

    const proxied = (
      await echoed(
        await call('/echo', { headers: { 'x-forwarded-for': '203.0.113.7', 'X-Amzn-Trace-Id': 'Root=1-abc-def' } }),
      )
    ).event;
    expect(proxied.headers).toMatchObject({
      'X-Forwarded-For': '203.0.113.7, 127.0.0.1',
      'X-Amzn-Trace-Id': 'Root=1-abc-def',
    });
    expect(Object.keys(proxied.headers as object).filter((name) => /^x-forwarded-for$/i.test(name))).toHaveLength(1);
  });

  test("each invocation has its own id, apart from API Gateway's request id and extended request id", async () => {
    // On AWS the function's context.awsRequestId is Lambda's id for that invocation; requestContext.requestId and
    // extendedRequestId are API Gateway's (captured REST events: a UUID and 16 characters of base64).
    const first = await echoed(await call('/echo'));
    const second = await echoed(await call('/echo'));
    const { requestId, extendedRequestId } = first.event.requestContext;
    expect(first.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.awsRequestId).not.toBe(requestId);
    expect(extendedRequestId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(extendedRequestId).not.toBe(requestId);
    expect(second.awsRequestId).not.toBe(first.awsRequestId);
  });

  test('serves the stage prefix of the deployed invoke URL too, with the same event', async () => {
    // https://<api>.execute-api.<region>.amazonaws.com/test/echo on AWS: event.path without the stage,
    // requestContext.path with it (captured REST events).
    const prefixed = (await echoed(await call('/test/echo?x=1'))).event;
    expect(prefixed).toMatchObject({ path: '/echo', resource: '/echo', queryStringParameters: { x: '1' } });
    expect(prefixed.requestContext).toMatchObject({ path: '/test/echo', stage: 'test' });
    expect((await call('/test/nowhere')).status).toBe((await call('/nowhere')).status);
  });

  test('passes the body as text and path parameters by name', async () => {
    const posted = await echoed(await call('/echo', { method: 'POST', body: '{"a": 1}' }));
    expect(posted.event).toMatchObject({ body: '{"a": 1}', httpMethod: 'POST' });

    // Percent-encoded as sent, as a REST API delivers it (docs/local-runner.md, "Lambda proxy integration").
    const item = await echoed(await call('/items/a%20b'));
    expect(item.event).toMatchObject({ resource: '/items/{id}', pathParameters: { id: 'a%20b' } });
  });

  test('merges headers and multiValueHeaders of the result, and applies the template environment', async () => {
    const response = await call('/echo');
    expect(response.headers.get('x-single')).toBe('one');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(((await response.json()) as { env: string }).env).toBe('from-template');
  });
});

describe('execution environments', () => {
  test('stay warm: the module is loaded once and reused', async () => {
    const first = await echoed(await call('/echo'));
    const second = await echoed(await call('/echo'));
    expect(second.invocations).toBeGreaterThan(first.invocations);
  });

  test('more start under concurrency, up to --max-workers: that many invocations run at once', async () => {
    const responses = await Promise.all(Array.from({ length: maxWorkers }, () => call('/barrier')));

    expect(responses.map((response) => response.status)).toEqual(Array(maxWorkers).fill(200));
    expect(logLines.filter((line) => /^GET \/barrier 200 .*cold start BarrierFunction/.test(line))).toHaveLength(
      maxWorkers,
    );
  });

  test('beyond --max-workers requests wait for a free environment, and every one is answered', async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, () => call('/echo')));
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(200));
  });
});

describe('a function that fails', () => {
  test.each([
    ['crashes (the process exits)', '/faults/crash'],
    ['throws', '/faults/throw'],
    ['answers a malformed result', '/faults/malformed'],
    ['answers a result JSON cannot hold (a bigint)', '/faults/unserializable'],
    ['runs past its own timeout', '/faults/slow'],
    ['runs out of memory', '/faults/hog'],
  ])(
    '%s: 502 {"message": "Internal server error"}, and the next call still works',
    async (_case, path) => {
      const response = await call(path);

      expect(response.status).toBe(502);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({ message: 'Internal server error' });
      expect((await call('/echo')).status).toBe(200);
    },
    20_000,
  );

  test('past the integration timeout: 504, before the function itself times out', async () => {
    const started = Date.now();
    const response = await call('/faults/slow-integration');

    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ message: 'Endpoint request timed out' });
    // The function's own timeout is 10 s: an answer before that is the integration timeout's (1 s) doing.
    expect(Date.now() - started).toBeLessThan(9_000);
  });
});

describe('routes and limits', () => {
  test('an unknown path or method is MISSING_AUTHENTICATION_TOKEN: 403 by default', async () => {
    for (const [path, method] of [
      ['/nowhere', 'GET'],
      ['/faults/crash', 'POST'],
      ['/echo/deeper', 'GET'],
    ] as const) {
      const response = await call(path, { method });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: 'Missing Authentication Token' });
    }
  });

  test('overlapping routes declared in the worst order: each request reaches the most specific resource', async () => {
    const resourceOf = async (path: string, method = 'GET') => {
      const response = await call(path, { method });
      expect(response.status).toBe(200);
      const { event } = (await response.json()) as { event: { resource: string; pathParameters: unknown } };
      return [event.resource, event.pathParameters];
    };
    expect(await resourceOf('/routes/things/static')).toEqual(['/routes/things/static', null]);
    expect(await resourceOf('/routes/things/a/b', 'PUT')).toEqual(['/routes/things/{proxy+}', { proxy: 'a/b' }]);
    expect(await resourceOf('/routes/pairs/x/1')).toEqual(['/routes/pairs/x/{b}', { b: '1' }]);
    expect(await resourceOf('/routes/pairs/y/1')).toEqual(['/routes/pairs/{a}/{b}', { a: 'y', b: '1' }]);
    expect(await resourceOf('/routes/anything')).toEqual(['/routes/anything', null]);
    expect(await resourceOf('/routes/else')).toEqual(['/routes/{p}', { p: 'else' }]);
    // The resource decides first: /routes/things/static has no POST, and the greedy sibling does not take it.
    expect((await call('/routes/things/static', { method: 'POST' })).status).toBe(403);
  });

  test('a target starting with // is a path (with empty segments), not a host name', async () => {
    const answer = await rawExchange('GET //echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"path":"//echo"');
  });

  test('a body over 10 MB is 413 without invoking anything', async () => {
    const before = api.invocations('EchoFunction');
    const response = await call('/echo', { method: 'POST', body: 'x'.repeat(10 * 1024 * 1024 + 1) });

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'Request Too Long' });
    expect(api.invocations('EchoFunction')).toBe(before);
  });
});

describe("what the runner answers itself is the Error JSON, never Node's bare answers", () => {
  test("request line and header values over API Gateway's 10,240-byte quota: 431, nothing invoked", async () => {
    const before = api.invocations('EchoFunction');
    const response = await call('/echo', { headers: { 'X-Big': 'a'.repeat(10_300) } });

    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ error: 431, message: 'Request Header Fields Too Large' });
    expect(api.invocations('EchoFunction')).toBe(before);
    expect((await call('/echo', { headers: { 'X-Big': 'a'.repeat(9_000) } })).status).toBe(200);
  });

  test('a header section even larger than Node parses (64 KiB): 431 as JSON', async () => {
    const answer = parseRaw(
      await rawExchange(`GET /echo HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`),
    );
    expect(answer).toEqual({
      status: 431,
      contentType: 'application/json',
      json: { error: 431, message: 'Request Header Fields Too Large' },
    });
  });

  test.each([
    [
      'a bad chunk size',
      'POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
    ],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    ],
    ['a NUL in a header', 'GET /echo HTTP/1.1\r\nHost: localhost\r\nX-Nul: a\u0000b\r\n\r\n'],
    ['an obs-fold header line', 'GET /echo HTTP/1.1\r\nHost: localhost\r\nX-Folded: a\r\n  b\r\n\r\n'],
    ['a lower-case method', 'get /echo HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    // RFC 9112 section 3.2: a Host header, and only one, in every HTTP/1.1 request.
    ['no Host header', 'GET /echo HTTP/1.1\r\n\r\n'],
    ['two Host headers', 'GET /echo HTTP/1.1\r\nHost: localhost\r\nHost: y\r\n\r\n'],
  ])('a malformed request (%s): 400 as JSON', async (_case, request) => {
    expect(parseRaw(await rawExchange(request))).toEqual({
      status: 400,
      contentType: 'application/json',
      json: { error: 400, message: 'Bad Request' },
    });
  });

  test('a malformed request with a large body still behind it: the 400 is read, the connection not reset', async () => {
    // RFC 9112 section 9.6: a server closing at once while the client still sends may reset the connection and take
    // its answer away; it half-closes and reads the rest first. rawExchange fails on a reset (ECONNRESET).
    const request = Buffer.concat([
      Buffer.from('POST /echo HTTP/1.1\r\nHost: localhost\r\nX-Nul: a\u0000b\r\nContent-Length: 1048576\r\n\r\n'),
      Buffer.alloc(1024 * 1024, 'x'),
    ]);
    expect(parseRaw(await sendRaw(api.url, request))).toEqual({
      status: 400,
      contentType: 'application/json',
      json: { error: 400, message: 'Bad Request' },
    });
  });

  test('CONNECT is an unknown route, answered as JSON, not a dropped connection', async () => {
    expect(parseRaw(await rawExchange('CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n'))).toEqual({
      status: 403,
      contentType: 'application/json',
      json: { message: 'Missing Authentication Token' },
    });
  });

  test('malformed percent-encoding in a path parameter is passed on as sent', async () => {
    const item = await echoed(await call('/items/100%'));
    expect(item.event).toMatchObject({ pathParameters: { id: '100%' } });
  });
});

describe('the request log', () => {
  test('never shows the query string (it may carry a token)', async () => {
    const logged = nextLogLine(/^GET \/echo /);
    await call('/echo?access_token=secret-token-value');
    expect(await logged).toMatch(/^GET \/echo 200 \d+ ms/);
    expect(logLines.join('\n')).not.toContain('secret-token-value');
  });

  test('a client that goes away mid-request is logged as such, in one line without a stack', async () => {
    const logged = nextLogLine(/^POST \/echo /);
    const socket = connect(Number(new URL(api.url).port), '127.0.0.1', () =>
      socket.write('POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{"partial":'),
    );
    // Gone once the runner holds the request: it has read the headers and waits for the rest of the body.
    await new Promise((resolve) => socket.once('ready', resolve));
    await new Promise<void>((resolve) => socket.write('', () => resolve()));
    socket.destroy();

    const line = await logged;
    expect(line).toMatch(/^POST \/echo - \d+ ms \(the client went away before sending its whole request\)$/);
    expect(line).not.toMatch(/\n|at .*\.ts/);
  });
});

describe('the TOKEN authorizer', () => {
  test('a missing header or one failing the regex is 401 without invoking the authorizer', async () => {
    const before = api.invocations('AuthorizerFunction');

    const missing = await call('/secured');
    const malformed = await call('/secured', bearer('NOT-LOWERCASE'));

    for (const response of [missing, malformed]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('x-gateway')).toBe('fixture');
      expect(await response.json()).toEqual({ custom: 'Unauthorized', type: 'UNAUTHORIZED' });
    }
    expect(api.invocations('AuthorizerFunction')).toBe(before);
  });

  test('Allow passes principalId and the context as flat keys to the function, numbers and booleans as strings', async () => {
    // The authorizer answers {user: 'u1', level: 3, admin: false}; what a function reads is API Gateway's strings
    // ("Output from an API Gateway Lambda authorizer", its context example: numberKey "1", booleanKey "true"), beside
    // the numeric integrationLatency of captured REST events.
    const { event } = await echoed(await call('/secured', bearer('allow')));
    expect(event.requestContext.authorizer).toEqual({
      principalId: 'fixture-user',
      user: 'u1',
      level: '3',
      admin: 'false',
      integrationLatency: expect.any(Number),
    });
  });

  test('results are cached per token and re-checked against each method ARN', async () => {
    expect((await call('/secured', bearer('allow-this-method'))).status).toBe(200);
    const invoked = api.invocations('AuthorizerFunction');

    expect((await call('/secured', bearer('allow-this-method'))).status).toBe(200);
    const otherMethod = await call('/secured', { method: 'POST', ...bearer('allow-this-method') });

    expect(otherMethod.status).toBe(403);
    expect(await otherMethod.json()).toEqual({ message: 'User is not authorized to access this resource' });
    expect(api.invocations('AuthorizerFunction')).toBe(invoked);
  });

  test.each([
    ['deny', 403, 'User is not authorized to access this resource with an explicit deny'],
    ['unauthorized', 401, undefined],
    ['boom', 500, 'Internal server error'],
    ['malformed', 500, 'Internal server error'],
    ['nested', 500, 'Internal server error'],
    // The 8 KB quota on an authorizer's response counts bytes, as the bearer authorizer itself does.
    ['over-eight-kib-in-utf-eight', 500, 'Internal server error'],
  ])('`%s` is answered %i', async (token, status, message) => {
    const response = await call('/secured', bearer(token));
    expect(response.status).toBe(status);
    if (message) expect(await response.json()).toEqual({ message });
  });
});

test('logs a line per request with method, path, status, milliseconds and cold starts', () => {
  expect(logLines).toContainEqual(
    expect.stringMatching(/^GET \/echo 200 \d+ ms \(cold start EchoFunction, init \d+ ms\)$/),
  );
  expect(logLines).toContainEqual(expect.stringMatching(/^GET \/faults\/crash 502 \d+ ms .*CrashFunction failure/));
});
