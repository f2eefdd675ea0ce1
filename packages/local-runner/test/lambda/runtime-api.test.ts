// The Runtime API as the Lambda guide ("Using the Lambda runtime API for custom runtimes") and the OpenAPI description
// AWS publishes for it (version 2018-06-01) define it, spoken to as a runtime speaks to it: the next invocation and its
// headers, a response, an error in the standard body or by its header alone, an initialization error, a response for
// an invocation the runtime was not given, one too large, and a path that is not in the API.
import { connect } from 'node:net';
import { afterEach, expect, test } from '@jest/globals';
import { type RuntimeApi, type RuntimeReports, startRuntimeApi } from '../../src/lambda/runtime-api.ts';

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

test('a response over 6 MB is refused (413), and a path outside the API is not found', async () => {
  const { reports, url } = await recorded();
  api?.deliver(invocation);
  await (await fetch(url('/invocation/next'))).text();
  const large = await fetch(url(`/invocation/${invocation.requestId}/response`), {
    method: 'POST',
    body: 'x'.repeat(6 * 1024 * 1024 + 1),
  });
  expect(large.status).toBe(413);
  expect((await fetch(url('/invocation/next/extra'))).status).toBe(404);
  expect(reports).toEqual([['ready']]);
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
