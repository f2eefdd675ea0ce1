// Function URLs as Lambda serves them, each at an address of its own, in a stack with no API: the event ("Invoking
// Lambda function URLs", https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html, "Request payload format",
// judged by @aws-lambda-powertools/parser's LambdaFunctionUrlSchema), the response ("Response payload format": payload
// 2.0's rules), AuthType AWS_IAM (the same page: "Lambda processes the request only if the signatures match"; signed
// here with the aws4 package, a signer apart from the runner's), CORS ("Creating and managing Lambda function URLs",
// https://docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html#urls-cors) and an alias's URL (Qualifier); and
// response streaming ("Lambda response streaming",
// https://docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html) behind a function URL with
// InvokeMode RESPONSE_STREAM and a REST method with ResponseTransferMode STREAM ("Stream the integration response for
// your proxy integrations in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/response-transfer-mode.html).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaFunctionUrlSchema } from '@aws-lambda-powertools/parser/schemas/lambda';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import aws4 from 'aws4';
import { generatedFunctionName } from '../../../src/app/return-values.ts';
import { synthesizeFunctionUrlApp } from '../../fixtures/function-url-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeFunctionUrlApp);
const urlOf = (id: string) => new URL(served.urlOf(id));
const send = async (id: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
  const response = await fetch(`${urlOf(id).origin}${path}`, { method, headers, ...(body !== undefined && { body }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
};
/** The request signed with SigV4 by aws4 (service lambda, the runner's region), with `credentials`. */
const signed = (
  path: string,
  { method = 'GET', body, headers = {} }: { method?: string; body?: string; headers?: Record<string, string> } = {},
  credentials = { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'local' },
) => {
  const options = aws4.sign(
    {
      host: urlOf('SignedUrl').host,
      path,
      method,
      headers,
      service: 'lambda',
      region: 'us-east-1',
      ...(body && { body }),
    },
    credentials,
  );
  return Object.fromEntries(
    Object.entries(options.headers ?? {})
      .filter(([name]) => name.toLowerCase() !== 'host')
      .map(([n, v]) => [n, String(v)]),
  );
};
const eventOf = (text: string) =>
  (JSON.parse(text) as { event: Record<string, unknown> & { requestContext: Record<string, unknown> } }).event;

test('what is not applied locally is said at start, naming the URL', () => {
  expect(served.log.lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        /^Urls\/SignedUrl: a function URL with AuthType AWS_IAM: the runner checks .* not the caller's IAM permissions$/,
      ),
      expect.stringMatching(
        /^Urls\/StreamUrl: a streamed function URL: the 200 MB limit of a streamed response .* not applied$/,
      ),
    ]),
  );
});

describe('the event ("Request payload format")', () => {
  test('payload 2.0 with the $default route key and stage, the lambda-url domain, no path parameters nor stage variables', async () => {
    const { status, text } = await send(
      'OpenUrl',
      'POST',
      '/my/path?parameter1=value1&parameter1=value2',
      {
        cookie: 'cookie1=a; cookie2=b',
        'content-type': 'text/plain',
      },
      'Hello from client!',
    );
    expect(status).toBe(200);
    const event = eventOf(text);
    expect(LambdaFunctionUrlSchema.safeParse(event).error).toBeUndefined();
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/my/path',
      rawQueryString: 'parameter1=value1&parameter1=value2',
      cookies: ['cookie1=a', 'cookie2=b'],
      queryStringParameters: { parameter1: 'value1,value2' },
      body: 'Hello from client!',
      isBase64Encoded: false,
      requestContext: {
        routeKey: '$default',
        stage: '$default',
        authentication: null,
        http: { method: 'POST', path: '/my/path' },
      },
    });
    const context = event.requestContext;
    expect(context.domainName).toBe(`${context.apiId}.lambda-url.us-east-1.on.aws`);
    expect(context.domainPrefix).toBe(context.apiId);
    expect(context.apiId).toMatch(/^[a-z0-9]{32}$/);
    // "Function URLs don't use this parameter. Lambda sets this to null or excludes this from the JSON."
    for (const key of ['pathParameters', 'stageVariables']) expect(event[key] ?? null).toBeNull();
    // AuthType NONE: no caller identity.
    expect(context.authorizer).toBeUndefined();
  });

  test("the requestId is the invocation's (its awsRequestId), and the response's x-amzn-RequestId", async () => {
    const { headers, text } = await send('OpenUrl', 'GET', '/');
    expect(eventOf(text).requestContext.requestId).toBe(headers.get('x-amzn-requestid'));
  });

  // "Creating and managing Lambda function URLs": the console's "To create a function URL for an existing alias".
  test("an alias's URL (Qualifier) invokes the alias: the function's ARN ends with its name", async () => {
    const { text } = await send('OpenUrl', 'GET', '/');
    expect(JSON.parse(text).invokedFunctionArn).toBe(
      `arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName('Urls', 'UrlFunction')}:live`,
    );
  });
});

describe('the response ("Response payload format")', () => {
  test('statusCode, headers and cookies as Set-Cookie', async () => {
    const { status, headers } = await send('OpenUrl', 'GET', '/');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('set-cookie')).toBe('visited=yes');
  });

  test('JSON without statusCode: 200, application/json, the JSON as the body', async () => {
    const { status, headers, text } = await send('OpenUrl', 'GET', '/plain');
    expect({ status, type: headers.get('content-type'), text }).toEqual({
      status: 200,
      type: 'application/json',
      text: '{"plant":"fern"}',
    });
  });

  // What AWS answers is seen in awsdocs/aws-lambda-developer-guide issue 430 (502 "Internal Server Error").
  test('a function that throws: 502', async () => {
    expect(await send('OpenUrl', 'GET', '/fails')).toMatchObject({ status: 502, text: 'Internal Server Error' });
  });
});

describe('AuthType AWS_IAM ("Invoking Lambda function URLs": SigV4)', () => {
  test("a request signed with the runner's credentials reaches the function, its caller in authorizer.iam", async () => {
    const body = '{"plant":"fern"}';
    const headers = signed('/plants?colour=green', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const response = await send('SignedUrl', 'POST', '/plants?colour=green', headers, body);
    expect(response.status).toBe(200);
    const event = eventOf(response.text);
    expect(LambdaFunctionUrlSchema.safeParse(event).error).toBeUndefined();
    expect(event.requestContext.authorizer).toEqual({
      iam: {
        accessKey: 'local',
        accountId: '000000000000',
        callerId: 'local',
        cognitoIdentity: null,
        principalOrgId: null,
        userArn: 'arn:aws:iam::000000000000:user/local',
        userId: 'local',
      },
    });
  });

  test.each([
    ['unsigned', () => ({})],
    [
      'signed with another secret',
      () => signed('/plants', {}, { accessKeyId: 'local', secretAccessKey: 'other', sessionToken: 'local' }),
    ],
    [
      'signed with another access key id',
      () => signed('/plants', {}, { accessKeyId: 'AKIDOTHER', secretAccessKey: 'local', sessionToken: 'local' }),
    ],
    ['signed for another path', () => signed('/other')],
  ])('%s: 403 {"Message":"Forbidden"}, the function not invoked', async (_, headersOf) => {
    const before = served.api.invocations('UrlFunction');
    const response = await send('SignedUrl', 'GET', '/plants', headersOf());
    expect(response).toMatchObject({ status: 403, text: '{"Message":"Forbidden"}' });
    expect(response.headers.get('x-amzn-errortype')).toBe('AccessDeniedException');
    expect(served.api.invocations('UrlFunction')).toBe(before);
  });

  test('a body other than the one signed: 403', async () => {
    const headers = signed('/plants', {
      method: 'POST',
      body: '{"plant":"fern"}',
      headers: { 'content-type': 'application/json' },
    });
    // Of the same length: the signed Content-Length holds, the body's hash does not.
    expect((await send('SignedUrl', 'POST', '/plants', headers, '{"plant":"fenn"}')).status).toBe(403);
  });
});

// "Lambda automatically adds the CORS headers to all responses through the function URL ... If there are conflicting
// headers, the configured CORS headers on the function URL take precedence" (urls-configuration.html#urls-cors).
describe('CORS', () => {
  test('a preflight is answered by the URL itself, unsigned, the function not invoked', async () => {
    const before = served.api.invocations('UrlFunction');
    const { status, headers } = await send('SignedUrl', 'OPTIONS', '/plants', {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-plant',
    });
    expect(status).toBe(204);
    expect(Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET,POST',
      'access-control-allow-headers': 'X-Plant',
      'access-control-max-age': '300',
    });
    expect(served.api.invocations('UrlFunction')).toBe(before);
  });

  test("a response carries the URL's CORS headers in place of the function's", async () => {
    const headers = signed('/plants', { headers: { origin: 'https://app.example.com' } });
    const response = await send('SignedUrl', 'GET', '/plants', headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(response.headers.get('access-control-expose-headers')).toBe('X-Answer');
  });

  test("an origin not allowed gets no CORS headers, and none of the function's", async () => {
    const headers = signed('/plants', { headers: { origin: 'https://elsewhere.example.com' } });
    const response = await send('SignedUrl', 'GET', '/plants', headers);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

/**
 * A signal the streaming function waits for (its request's x-signal header names it): released by the test once it
 * has read the first chunk, so that a chunk read before is one the function wrote before it ended.
 */
const signals = (() => {
  let server: Server | undefined;
  const waiting = new Map<string, () => void>();
  const released = new Set<string>();
  beforeAll(async () => {
    server = createServer((request, response) => {
      const name = request.url ?? '';
      const answer = () => response.end('go');
      if (released.has(name)) answer();
      else waiting.set(name, answer);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  let next = 0;
  return {
    /** A new signal: its URL, and its release. */
    make: () => {
      next += 1;
      const name = `/signal-${next}`;
      if (!server) throw new Error('the signal server did not start');
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${name}`,
        release: () => {
          released.add(name);
          waiting.get(name)?.();
        },
      };
    },
  };
})();

/** The response to GET `url`: its first chunk read while the function waits for the signal, then the rest. */
const streamedThrough = async (url: string) => {
  const signal = signals.make();
  const response = await fetch(url, { headers: { 'x-signal': signal.url } });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const first = await reader.read();
  // The function has written its first chunk and is waiting for the signal: it has not ended.
  const firstText = decoder.decode(first.value);
  signal.release();
  let rest = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) rest += decoder.decode(read.value);
  return { response, first: firstText, rest };
};

describe('response streaming', () => {
  test.each([
    ['a function URL with InvokeMode RESPONSE_STREAM', () => `${urlOf('StreamUrl').origin}/plants`],
    ['a REST method with ResponseTransferMode STREAM', () => `${urlOf('StreamedApi').origin}/prod/plants`],
  ])('%s: the first chunk reaches the client before the function ends, then the rest', async (_, target) => {
    const { response, first, rest } = await streamedThrough(target());
    expect(first).toBe('first\n');
    expect(rest).toBe('second\n');
    // The prelude's status, headers and cookies (HttpResponseStream.from), not the body.
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('x-streamed')).toBe('yes');
    expect(response.headers.get('set-cookie')).toBe('streamed=1');
  });

  test.each([
    ['StreamUrl', '/fails-first'],
    ['StreamedApi', '/prod/fails-first'],
  ])('%s: a function that fails before its first byte: 502', async (id, path) => {
    expect((await send(id, 'GET', path)).status).toBe(502);
  });

  test('a function that fails after its first chunk: the client gets that chunk, then its connection is cut', async () => {
    const signal = signals.make();
    const response = await fetch(`${urlOf('StreamUrl').origin}/fails-later`, { headers: { 'x-signal': signal.url } });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    signal.release();
    await expect(reader.read()).rejects.toThrow();
  });
});
