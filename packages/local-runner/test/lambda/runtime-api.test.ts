// The Runtime API as the Lambda guide ("Using the Lambda runtime API for custom runtimes") and the OpenAPI description
// AWS publishes for it (version 2018-06-01) define it, spoken to as a runtime speaks to it: the next invocation and its
// headers, a response, an error in the standard body or by its header alone, an initialization error, a response for
// an invocation the runtime was not given, one too large, and a path that is not in the API.
import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { afterEach, expect, test } from '@jest/globals';
import { parseRaw, rawExchange } from 'test-support/raw-http';
import { type RuntimeApi, type RuntimeReports, StreamedError, startRuntimeApi } from '../../src/lambda/runtime-api.ts';

let api: RuntimeApi | undefined;
afterEach(() => api?.close());

/** A Runtime API whose reports are recorded, each as [what, ...values]. */
const recorded = async () => {
  const reports: unknown[][] = [];
  const record: RuntimeReports = {
    ready: () => reports.push(['ready']),
    initError: (...values) => reports.push(['initError', ...values]),
    response: (...values) => reports.push(['response', ...values]),
    error: (...values) => reports.push(['error', ...values]),
    stream: (...values) => reports.push(['stream', ...values]),
  };
  api = await startRuntimeApi(record);
  const url = (path: string) => `http://${api?.address}/2018-06-01/runtime${path}`;
  return { reports, api, url };
};

const invocation = {
  requestId: '8476a536-e9f4-11e8-9739-2dfe598c3fcd',
  event: '{"path":"/items"}',
  deadline: Date.now() + 3_000,
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:Items:live',
  traceId: 'Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=0',
};

test('GET /invocation/next waits for an invocation, then gives its event and the documented headers', async () => {
  const { reports, url } = await recorded();
  const next = fetch(url('/invocation/next'));
  // The runtime asking for its first invocation is its initialization's end; the call waits meanwhile.
  while (reports.length === 0) await new Promise((resolve) => setImmediate(resolve));
  expect(reports).toEqual([['ready']]);
  api?.deliver(invocation);
  const answer = await next;
  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe(invocation.event);
  expect(
    Object.fromEntries(
      ['aws-request-id', 'deadline-ms', 'invoked-function-arn', 'trace-id'].map((name) => [
        name,
        answer.headers.get(`lambda-runtime-${name}`),
      ]),
    ),
  ).toEqual({
    'aws-request-id': invocation.requestId,
    'deadline-ms': String(invocation.deadline),
    'invoked-function-arn': invocation.invokedFunctionArn,
    'trace-id': invocation.traceId,
  });
});

test('an invocation delivered before the runtime asks is given when it asks', async () => {
  const { url } = await recorded();
  api?.deliver(invocation);
  const answer = await fetch(url('/invocation/next'));
  expect(answer.headers.get('lambda-runtime-aws-request-id')).toBe(invocation.requestId);
});

test('a response is accepted (202) for the invocation given, and refused (400) for any other', async () => {
  const { reports, url } = await recorded();
  api?.deliver(invocation);
  await (await fetch(url('/invocation/next'))).text();
  const other = await fetch(url('/invocation/another-id/response'), { method: 'POST', body: '{}' });
  expect([other.status, await other.json()]).toEqual([
    400,
    { errorMessage: 'Invalid request ID: another-id', errorType: 'InvalidRequestID' },
  ]);
  const accepted = await fetch(url(`/invocation/${invocation.requestId}/response`), {
    method: 'POST',
    body: '{"a":1}',
  });
  expect([accepted.status, await accepted.json()]).toEqual([202, { status: 'OK' }]);
  expect(reports.slice(1)).toEqual([['response', invocation.requestId, '{"a":1}']]);
  // Answered: a second answer for it is refused too.
  const again = await fetch(url(`/invocation/${invocation.requestId}/response`), { method: 'POST', body: '{}' });
  expect(again.status).toBe(400);
});

test('an error in the standard body, and one told by its header alone, as Lambda reads them', async () => {
  const { reports, url } = await recorded();
  for (const [body, headers] of [
    [JSON.stringify({ errorMessage: 'boom', errorType: 'TypeError', stackTrace: ['at x'] }), {}],
    ['not the standard body', { 'Lambda-Runtime-Function-Error-Type': 'Runtime.Unknown' }],
  ] as const) {
    api?.deliver(invocation);
    await (await fetch(url('/invocation/next'))).text();
    const answer = await fetch(url(`/invocation/${invocation.requestId}/error`), { method: 'POST', body, headers });
    expect(answer.status).toBe(202);
  }
  expect(reports.slice(1)).toEqual([
    ['error', invocation.requestId, 'TypeError', 'boom'],
    ['error', invocation.requestId, 'Runtime.Unknown', 'not the standard body'],
  ]);
});

test('an initialization error is accepted and reported', async () => {
  const { reports, url } = await recorded();
  const answer = await fetch(url('/init/error'), {
    method: 'POST',
    body: JSON.stringify({ errorMessage: 'Cannot find module', errorType: 'Runtime.ImportModuleError' }),
    headers: { 'Lambda-Runtime-Function-Error-Type': 'Runtime.ImportModuleError' },
  });
  expect([answer.status, await answer.json()]).toEqual([202, { status: 'OK' }]);
  expect(reports).toEqual([['initError', 'Runtime.ImportModuleError', 'Cannot find module']]);
});

// An invocation whose response is over the limit ends with the function error Lambda's Invoke answers then
// ("Lambda quotas": 6 MB), not waiting for its timeout.
test('a response over 6 MB is refused (413) and ends the invocation with Function.ResponseSizeTooLarge; a path outside the API is not found', async () => {
  const { reports, url } = await recorded();
  api?.deliver(invocation);
  await (await fetch(url('/invocation/next'))).text();
  const large = await fetch(url(`/invocation/${invocation.requestId}/response`), {
    method: 'POST',
    body: 'x'.repeat(6 * 1024 * 1024 + 1),
  });
  expect(large.status).toBe(413);
  expect((await fetch(url('/invocation/next/extra'))).status).toBe(404);
  expect(reports).toEqual([
    ['ready'],
    ['error', invocation.requestId, 'Function.ResponseSizeTooLarge', expect.stringContaining('exceeded maximum')],
  ]);
});

test('a runtime gone in the middle of a post (killed at its timeout) leaves the Runtime API serving', async () => {
  const { url } = await recorded();
  const [host, port] = (api?.address ?? '').split(':');
  const socket = connect(Number(port), host);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /2018-06-01/runtime/init/error HTTP/1.1\r\nHost: ${api?.address}\r\nContent-Length: 100\r\n\r\n{"err`,
  );
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.destroy();
  await closed;
  // The next runtime is served, and the runner's process did not fail on the aborted read.
  api?.deliver(invocation);
  expect((await fetch(url('/invocation/next'))).status).toBe(200);
});

// Only the environment reaches its Runtime API on Lambda ("Using the Lambda runtime API for custom runtimes",
// https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html); the OpenAPI description AWS publishes there
// (runtime-api.zip) answers 403 Forbidden, 400 Bad Request or 500 "Container error", each with an ErrorResponse.

/** One request as raw bytes, answered and closed (Connection: close): its status and JSON body. */
const raw = async (request: string) => parseRaw(await rawExchange(`http://${api?.address}`, request));
const next = (headers: string) =>
  raw(`GET /2018-06-01/runtime/invocation/next HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);

test('a foreign Host, an Origin or a browser Sec-Fetch-Site is refused (403); the waiting poll keeps its place', async () => {
  const { url } = await recorded();
  const own = `Host: ${api?.address}\r\n`;
  const waiting = fetch(url('/invocation/next'));
  // A DNS-rebinding page (its own Host), a page on loopback (Origin, Fetch Metadata), a program naming another host.
  for (const headers of [
    'Host: evil.example\r\nOrigin: http://evil.example\r\n',
    'Host: evil.example\r\n',
    `${own}Origin: http://evil.example\r\n`,
    `${own}Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n`,
  ])
    expect(await next(headers)).toMatchObject({ status: 403, json: { errorType: 'Forbidden' } });
  // No Host at all: HTTP/1.0 may omit it (refused here), HTTP/1.1 must not (RFC 9112 s3.2: 400, from Node's parser).
  expect(await raw('GET /2018-06-01/runtime/invocation/next HTTP/1.0\r\n\r\n')).toMatchObject({ status: 403 });
  expect(
    (await rawExchange(url(''), 'GET /2018-06-01/runtime/invocation/next HTTP/1.1\r\n\r\n')).split('\r\n')[0],
  ).toBe('HTTP/1.1 400 Bad Request');
  api?.deliver(invocation);
  const given = await waiting;
  expect([given.status, given.headers.get('lambda-runtime-aws-request-id')]).toEqual([200, invocation.requestId]);
  // Its response, posted by another Host, is refused; the runtime's own is taken.
  const path = `/2018-06-01/runtime/invocation/${invocation.requestId}/response`;
  expect(
    await raw(`POST ${path} HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`),
  ).toMatchObject({ status: 403 });
  expect((await fetch(url(`/invocation/${invocation.requestId}/response`), { method: 'POST', body: '1' })).status).toBe(
    202,
  );
});

test('a second call to invocation/next while one waits is refused (403), not swapped in', async () => {
  const { url } = await recorded();
  const waiting = fetch(url('/invocation/next'));
  expect(await next(`Host: ${api?.address}\r\n`)).toEqual({
    status: 403,
    contentType: 'application/json',
    json: { errorMessage: 'a call to invocation/next is already waiting', errorType: 'Forbidden' },
  });
  api?.deliver(invocation);
  expect((await waiting).headers.get('lambda-runtime-aws-request-id')).toBe(invocation.requestId);
});

test('a request id with a bad percent-encoding is refused (400 InvalidRequestID); the Runtime API serves on', async () => {
  const { url } = await recorded();
  for (const outcome of ['response', 'error'])
    expect(
      await raw(
        `POST /2018-06-01/runtime/invocation/%E0%A4%A/${outcome} HTTP/1.1\r\nHost: ${api?.address}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      ),
    ).toMatchObject({ status: 400, json: { errorType: 'InvalidRequestID' } });
  api?.deliver(invocation);
  expect((await fetch(url('/invocation/next'))).status).toBe(200);
});

test('an error body that is JSON but no object (null, a number) is read by its header, as one not readable', async () => {
  // The OpenAPI description: Lambda uses the Lambda-Runtime-Function-Error-Type header "when error payload is not
  // provided or can not be read".
  const { reports, url } = await recorded();
  for (const body of ['null', '7'])
    expect(
      (
        await fetch(url('/init/error'), {
          method: 'POST',
          body,
          headers: { 'Lambda-Runtime-Function-Error-Type': 'Runtime.ExitError' },
        })
      ).status,
    ).toBe(202);
  expect(reports).toEqual([
    ['initError', 'Runtime.ExitError', 'null'],
    ['initError', 'Runtime.ExitError', '7'],
  ]);
});

test('an initialization error once the runtime has asked for an invocation is refused (403): init is over', async () => {
  const { reports, url } = await recorded();
  const waiting = fetch(url('/invocation/next'));
  const late = await fetch(url('/init/error'), { method: 'POST', body: '{"errorType":"Forged","errorMessage":"x"}' });
  expect([late.status, (await late.json()) as unknown]).toEqual([
    403,
    { errorMessage: 'the runtime is initialized: no initialization error now', errorType: 'Forbidden' },
  ]);
  expect(reports).toEqual([['ready']]);
  api?.deliver(invocation);
  expect((await waiting).status).toBe(200);
});

// runtime.mjs sends an invocation's response and its next poll in one write: HTTP/1.1 pipelining, whose answers come
// in the order of the requests (RFC 9112, "HTTP/1.1", section 9.3.2: https://www.rfc-editor.org/rfc/rfc9112#section-9.3.2).
test('a response and the next poll sent in one write are answered in turn: the 202, then the next invocation', async () => {
  const { reports, url } = await recorded();
  api?.deliver(invocation);
  await (await fetch(url('/invocation/next'))).text();
  const socket = connect(Number(api?.address.split(':')[1]), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  const host = `Host: ${api?.address}\r\n`;
  socket.write(
    `POST /2018-06-01/runtime/invocation/${invocation.requestId}/response HTTP/1.1\r\n${host}Content-Length: 7\r\n\r\n{"a":1}` +
      `GET /2018-06-01/runtime/invocation/next HTTP/1.1\r\n${host}\r\n`,
  );
  while (reports.length < 2) await new Promise((resolve) => setImmediate(resolve));
  expect(reports[1]).toEqual(['response', invocation.requestId, '{"a":1}']);
  const second = { ...invocation, requestId: 'c1a4a3f0-0d6e-4b8e-9d4e-6f1f2a3b4c5d', event: '{"path":"/second"}' };
  api?.deliver(second);
  // Two answers, whole (each a JSON body).
  const answers = () => received.split(/(?=HTTP\/1\.1 )/);
  while (answers().length < 2 || !received.endsWith('}')) await new Promise((resolve) => setImmediate(resolve));
  socket.destroy();
  const [accepted = '', given = ''] = answers();
  expect([parseRaw(accepted).status, parseRaw(accepted).json]).toEqual([202, { status: 'OK' }]);
  expect([parseRaw(given).status, parseRaw(given).json]).toEqual([200, { path: '/second' }]);
  expect(given).toMatch(new RegExp(`\\r\\nlambda-runtime-aws-request-id: ${second.requestId}\\r\\n`, 'i'));
});

// "Using the Lambda runtime API for custom runtimes", response streaming
// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-custom.html): Lambda-Runtime-Function-Response-Mode:
// streaming, a chunked body, an error in the trailers Lambda-Runtime-Function-Error-Type and -Body (base64 of the
// standard error body).
test.each([
  ['ends', '0\r\n\r\n', undefined],
  [
    'fails in its trailers',
    `0\r\nLambda-Runtime-Function-Error-Type: Wilted\r\nLambda-Runtime-Function-Error-Body: ${Buffer.from(
      JSON.stringify({ errorType: 'Wilted', errorMessage: 'no water' }),
    ).toString('base64')}\r\n\r\n`,
    ['Wilted', 'no water'],
  ],
])('a streamed response is passed on as it comes, and %s', async (_, end, failure) => {
  const { reports, url } = await recorded();
  api?.deliver(invocation);
  await (await fetch(url('/invocation/next'))).text();
  const socket = connect(Number(api?.address.split(':')[1]), '127.0.0.1');
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
    });
    socket.on('end', () => resolve(text));
  });
  socket.write(
    `POST /2018-06-01/runtime/invocation/${invocation.requestId}/response HTTP/1.1\r\nHost: ${api?.address}\r\n` +
      'Lambda-Runtime-Function-Response-Mode: streaming\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n' +
      'Trailer: Lambda-Runtime-Function-Error-Type, Lambda-Runtime-Function-Error-Body\r\nConnection: close\r\n\r\n5\r\nfirst\r\n',
  );
  while (reports.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const [what, requestId, contentType, body] = reports[1] as [string, string, string, Readable];
  expect([what, requestId, contentType]).toEqual(['stream', invocation.requestId, 'text/plain']);
  // The first chunk comes before the runtime has ended its response.
  const first = await new Promise((resolve) => body.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  expect(first).toBe('first');
  const ended = new Promise<unknown>((resolve) => {
    body.once('end', () => resolve('ended'));
    body.once('error', (error) => resolve(error));
  });
  socket.write(end);
  const outcome = await ended;
  if (failure === undefined) expect(outcome).toBe('ended');
  else {
    expect(outcome).toBeInstanceOf(StreamedError);
    expect([(outcome as StreamedError).errorType, (outcome as StreamedError).message]).toEqual(failure);
  }
  expect(await answer).toMatch(/^HTTP\/1\.1 202 /);
});
