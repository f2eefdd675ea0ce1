// A function's answer as each gateway frames it, once (issue 50, items 3 to 6): a REST API, an HTTP API, function URLs
// (buffered and RESPONSE_STREAM) and streamed REST methods, serving functions that answer what the request asks for
// (fixtures/framing-app.ts), read by a strict HTTP/1.1 parser (helpers/strict-http.ts).
//
// - The 6 MB limit of an invocation's response ("Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html:
//   "Invocation payload (request and response): 6 MB each for request and response (synchronous)") holds for a
//   streaming handler whose bytes are collected whole, as for any Invoke: the function's error, which API Gateway
//   answers 502 ("Handling Lambda errors with an API Gateway API",
//   https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html: "If the function runs but returns an
//   error ... API Gateway returns a 502") and a function URL 502.
// - The headers that frame a message are the gateway's alone: a recipient of two Content-Length values or of
//   Content-Length with Transfer-Encoding cannot tell where the message ends (RFC 9112 sections 6.2 and 6.3; RFC 9110
//   section 8.6), so a function's Content-Length, Connection, Keep-Alive, Date and Server go out renamed
//   `x-amzn-Remapped-<name>` and its Transfer-Encoding not at all ("Amazon API Gateway important notes for REST APIs",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-known-issues.html, and
//   localstack/localstack's header_utils.py, validated against AWS, drop Transfer-Encoding and remap the rest).
// - An event over Lambda's 6 MB request payload is refused by Lambda before the function runs: API Gateway answers 500
//   {"message": "Internal server error"} (the same page: "If the Lambda API rejects the invocation request, API
//   Gateway returns a 500 error code"), an HTTP API its 500, a function URL Lambda's 413.
// - A header value with CR, LF or NUL is no field value (RFC 9110 section 5.5: "invalid and dangerous"): the result is
//   malformed, answered as any malformed result (502 for a REST API and a function URL, 500 for an HTTP API), with one
//   log line naming the function and the header.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { synthesizeFramingApp } from '../fixtures/framing-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';
import {
  headerValues,
  oneConnection,
  type StrictAnswer,
  type StrictExchange,
  strictPost,
} from '../helpers/strict-http.ts';

const served = servedBeforeAll(synthesizeFramingApp);
const agent = oneConnection();
afterAll(() => agent.destroy());

/** The URL of `path` at the API (or function URL) `id`. */
const at = (id: string, path: string) => new URL(path, new URL(served.urlOf(id)).origin);
const ask = (id: string, path: string, asked: unknown) => strictPost(agent, at(id, path), JSON.stringify(asked));
const answered = ({ answer }: StrictExchange): StrictAnswer => {
  if ('error' in answer) throw new Error(`the strict parser refused the answer: ${answer.error}`);
  return answer;
};
const header = (answer: StrictAnswer, name: string) => headerValues(answer.rawHeaders, name);
const json = (answer: StrictAnswer) => JSON.parse(answer.body.toString('utf8')) as unknown;
const mebibytes = (count: number) => count * 1024 * 1024;

/** Each path that writes a buffered result: where, and how its answer of `result` is asked for. */
const buffered: [string, string, string][] = [
  ['a function URL (an alias, BUFFERED)', 'AnswerUrl', '/'],
  ['a REST API', 'FramingRest', '/prod/answer'],
  ['an HTTP API, payload 2.0', 'FramingHttp', '/answer'],
  ['an HTTP API, payload 1.0', 'FramingHttp', '/answer-v1'],
];
/** Each path that streams: a function URL (RESPONSE_STREAM), a REST method (STREAM). */
const streamed: [string, string, string][] = [
  ['a function URL (RESPONSE_STREAM)', 'StreamUrl', '/'],
  ['a REST method (ResponseTransferMode STREAM)', 'FramingRest', '/prod/streamed'],
];

describe('item 3: a streaming handler collected whole is held to the 6 MB of any response', () => {
  // Written whole, the bytes would be a proxy result: {"statusCode":200,"body":"xx...x"}.
  const result = { head: '{"statusCode":200,"body":"', bytes: mebibytes(7), body: '"}' };

  test.each([
    ["an alias's BUFFERED function URL", 'CollectedUrl', '/', 'Internal Server Error'],
    ['a BUFFERED REST method', 'FramingRest', '/prod/collected', '{"message":"Internal server error"}'],
  ])('through %s, 7 MiB written is 502, and the log says why', async (_, id, path, body) => {
    const answer = answered(await ask(id, path, result));
    expect(answer.status).toBe(502);
    expect(answer.body.toString('utf8')).toBe(body);
    await served.log.seen(/Streamed.*Function\.ResponseSizeTooLarge/);
  });

  test('1 MiB written through the same URL is all there', async () => {
    const answer = answered(await ask('CollectedUrl', '/', { bytes: mebibytes(1) }));
    expect(answer.status).toBe(200);
    expect(answer.body.toString('utf8')).toBe(JSON.stringify('x'.repeat(mebibytes(1))));
  });

  test('an ordinary result over 6 MB is the same 502, at once', async () => {
    const answer = answered(
      await ask('FramingRest', '/prod/answer', { result: { statusCode: 200 }, bytes: mebibytes(7) }),
    );
    expect(answer.status).toBe(502);
    expect(json(answer)).toEqual({ message: 'Internal server error' });
    await served.log.seen(/Answer.*Function\.ResponseSizeTooLarge/);
  });
});

describe("item 4: a function's framing headers never frame the answer", () => {
  const nineteen = 'nineteen bytes long';

  test.each(buffered)(
    '%s: content-length "3" with a 19-byte body is one Content-Length, 19; the function\'s is remapped',
    async (_, id, path) => {
      const result = { statusCode: 200, headers: { 'content-length': '3', 'x-kept': 'yes' }, body: nineteen };
      const exchange = await ask(id, path, { result });
      const answer = answered(exchange);
      expect(answer.status).toBe(200);
      expect(header(answer, 'content-length')).toEqual(['19']);
      expect(header(answer, 'x-amzn-Remapped-content-length')).toEqual(['3']);
      expect(header(answer, 'x-kept')).toEqual(['yes']);
      expect(answer.body.toString('utf8')).toBe(nineteen);
      // The connection is still whole: the next request on it is answered.
      const next = await ask(id, path, { result: { statusCode: 200, body: 'next' } });
      expect(next.reused).toBe(true);
      expect(answered(next).body.toString('utf8')).toBe('next');
    },
  );

  test.each(buffered)('%s: transfer-encoding chunked beside a plain body is dropped', async (_, id, path) => {
    const result = { statusCode: 200, headers: { 'Transfer-Encoding': 'chunked' }, body: nineteen };
    const answer = answered(await ask(id, path, { result }));
    expect(header(answer, 'transfer-encoding')).toEqual([]);
    expect(header(answer, 'content-length')).toEqual(['19']);
    expect(answer.body.toString('utf8')).toBe(nineteen);
  });

  test.each(buffered)('%s: the function\'s "Connection: close" does not close the connection', async (_, id, path) => {
    await ask(id, path, { result: { statusCode: 200, body: 'first' } });
    const result = { statusCode: 200, headers: { Connection: 'close', 'Keep-Alive': 'timeout=0' }, body: 'closing?' };
    const answer = answered(await ask(id, path, { result }));
    expect(header(answer, 'x-amzn-Remapped-Connection')).toEqual(['close']);
    expect(header(answer, 'x-amzn-Remapped-Keep-Alive')).toEqual(['timeout=0']);
    expect((await ask(id, path, { result: { statusCode: 200, body: 'after' } })).reused).toBe(true);
  });

  test.each(streamed)(
    "%s: a prelude's content-length lets no byte past it onto the connection",
    async (_, id, path) => {
      const prelude = { statusCode: 200, headers: { 'content-length': '3', 'transfer-encoding': 'gzip' } };
      const answer = answered(await ask(id, path, { prelude, body: nineteen }));
      expect(header(answer, 'content-length')).toEqual([]);
      expect(header(answer, 'x-amzn-Remapped-content-length')).toEqual(['3']);
      expect(header(answer, 'transfer-encoding')).toEqual(['chunked']);
      expect(answer.body.toString('utf8')).toBe(nineteen);
      const next = await ask(id, path, { prelude: { statusCode: 201 }, body: 'next' });
      expect(next.reused).toBe(true);
      expect(answered(next)).toMatchObject({ status: 201, body: Buffer.from('next') });
    },
  );
});

describe("item 5: an event over Lambda's 6 MB request payload is refused before the function runs", () => {
  let before = 0;
  beforeAll(() => {
    before = served.api.invocations('Size');
  });

  test('a REST body of exactly 10 MiB (within the 10 MB quota) is 500 {"message": "Internal server error"}', async () => {
    const answer = answered(await strictPost(agent, at('FramingRest', '/prod/size'), 'x'.repeat(mebibytes(10))));
    expect(answer.status).toBe(500);
    expect(json(answer)).toEqual({ message: 'Internal server error' });
    await served.log.seen(/POST \/prod\/size 500 .*Size.*RequestEntityTooLargeException/);
  });

  test('a REST body of 7 MiB: the same', async () => {
    const answer = answered(await strictPost(agent, at('FramingRest', '/prod/size'), 'x'.repeat(mebibytes(7))));
    expect(answer.status).toBe(500);
  });

  test('an HTTP API body of 7 MiB is its 500 {"message":"Internal Server Error"}', async () => {
    const answer = answered(await strictPost(agent, at('FramingHttp', '/size'), 'x'.repeat(mebibytes(7))));
    expect(answer.status).toBe(500);
    expect(json(answer)).toEqual({ message: 'Internal Server Error' });
  });

  test("a function URL body of 5 MiB, binary (base64 in the event: 6.7 MB), is Lambda's 413", async () => {
    const answer = answered(
      await strictPost(agent, at('AnswerUrl', '/'), Buffer.alloc(mebibytes(5)), {
        'content-type': 'application/octet-stream',
      }),
    );
    expect(answer.status).toBe(413);
    expect(json(answer)).toEqual({
      Message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
    });
  });

  test('none of them ran the function; a body whose event fits does', async () => {
    expect(served.api.invocations('Size')).toBe(before);
    const answer = answered(await strictPost(agent, at('FramingRest', '/prod/size'), 'x'.repeat(mebibytes(5))));
    expect(answer.status).toBe(200);
    expect(Number(answer.body.toString('utf8'))).toBeGreaterThan(mebibytes(5));
    expect(served.api.invocations('Size')).toBe(before + 1);
  });
});

describe('item 6: a header value with CR or LF is a malformed result, said in one line', () => {
  const malformed: [string, string, string, number, unknown][] = [
    ['a function URL', 'AnswerUrl', '/', 502, 'Internal Server Error'],
    ['a REST API', 'FramingRest', '/prod/answer', 502, { message: 'Internal server error' }],
    ['an HTTP API, payload 2.0', 'FramingHttp', '/answer', 500, { message: 'Internal Server Error' }],
    ['an HTTP API, payload 1.0', 'FramingHttp', '/answer-v1', 500, { message: 'Internal Server Error' }],
  ];
  const bodyOf = (answer: StrictAnswer) =>
    answer.body.toString('utf8').startsWith('{') ? json(answer) : answer.body.toString('utf8');

  test.each(malformed)('%s: X-Split "a\\r\\nSet-Cookie: x=1" is malformed', async (_, id, path, status, body) => {
    const result = { statusCode: 200, headers: { 'X-Split': 'a\r\nSet-Cookie: x=1' }, body: 'never sent' };
    const answer = answered(await ask(id, path, { result }));
    expect(answer.status).toBe(status);
    expect(bodyOf(answer)).toEqual(body);
    expect(header(answer, 'set-cookie')).toEqual([]);
    await served.log.seen(new RegExp(`POST ${path} ${status} .*Answer.*header X-Split`));
  });

  test.each(streamed)('%s: a prelude header with LF is 502', async (_, id, path) => {
    const answer = answered(await ask(id, path, { prelude: { headers: { 'X-Split': 'a\nb' } }, body: 'never sent' }));
    expect(answer.status).toBe(502);
    await served.log.seen(new RegExp(`POST ${path} 502 .*Streamed.*header X-Split`));
  });

  test('a cookie with CR (payload 2.0) is 502 at a function URL', async () => {
    const answer = answered(await ask('AnswerUrl', '/', { result: { statusCode: 200, cookies: ['a=1\r'] } }));
    expect(answer.status).toBe(502);
  });

  test('no line says "local runner error", none carries a stack', () => {
    expect(served.log.lines.filter((line) => /local runner error|\n\s+at /.test(line))).toEqual([]);
  });
});
