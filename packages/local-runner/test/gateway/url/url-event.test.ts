// A function URL's event and CORS, built in process from a request: the event as "Invoking Lambda function URLs"
// documents it (https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html, "Request payload format"; judged
// by @aws-lambda-powertools/parser's LambdaFunctionUrlSchema), and the URL's Cors as "Creating and managing Lambda
// function URLs" applies it (https://docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html#urls-cors).
import type { IncomingMessage } from 'node:http';
import { LambdaFunctionUrlSchema } from '@aws-lambda-powertools/parser/schemas/lambda';
import { describe, expect, test } from '@jest/globals';
import type { UrlApi } from '../../../src/app/api.ts';
import { corsHeaders, withCors } from '../../../src/gateway/http/cors.ts';
import { urlEvent } from '../../../src/gateway/url/events.ts';

const api = { stackName: 'Urls', apiId: 'SignedUrl', authType: 'AWS_IAM' } as UrlApi;
const requestOf = (method: string, headers: [string, string][]) =>
  ({
    method,
    httpVersion: '1.1',
    rawHeaders: headers.flat(),
    headers: Object.fromEntries(headers.map(([name, value]) => [name.toLowerCase(), value])),
    socket: { remoteAddress: '127.0.0.1', localPort: 3000 },
  }) as unknown as IncomingMessage;

describe('the event', () => {
  const request = requestOf('PUT', [
    ['Host', '127.0.0.1:3000'],
    ['Content-Type', 'application/octet-stream'],
    ['X-Tag', 'a'],
    ['X-Tag', 'b'],
    ['Cookie', 'one=1; two=2'],
  ]);
  const url = new URL('http://127.0.0.1:3000/my/path?p=1&p=2&q=');
  const caller = {
    accessKey: 'local',
    accountId: '000000000000',
    callerId: 'local',
    cognitoIdentity: null,
    principalOrgId: null,
    userArn: 'arn:aws:iam::000000000000:user/local',
    userId: 'local',
  };
  const event = urlEvent(api, request, url, Buffer.from([0xff, 0x00]), 'c0ffee00-0000-4000-8000-000000000000', caller);

  test('passes LambdaFunctionUrlSchema', () => {
    expect(LambdaFunctionUrlSchema.safeParse(event).error).toBeUndefined();
  });

  test('what differs from an HTTP API: the placeholders, the lambda-url domain, the invocation id, the IAM caller', () => {
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/my/path',
      rawQueryString: 'p=1&p=2&q=',
      cookies: ['one=1', 'two=2'],
      queryStringParameters: { p: '1,2', q: '' },
      headers: { 'x-tag': 'a,b', 'content-type': 'application/octet-stream' },
      body: Buffer.from([0xff, 0x00]).toString('base64'),
      isBase64Encoded: true,
      requestContext: {
        routeKey: '$default',
        stage: '$default',
        requestId: 'c0ffee00-0000-4000-8000-000000000000',
        authentication: null,
        authorizer: { iam: caller },
        http: { method: 'PUT', path: '/my/path', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' },
      },
    });
    const { apiId, domainName, domainPrefix } = event.requestContext;
    expect(apiId).toMatch(/^[a-z0-9]{32}$/);
    expect([domainName, domainPrefix]).toEqual([`${apiId}.lambda-url.us-east-1.on.aws`, apiId]);
    expect('pathParameters' in event || 'stageVariables' in event).toBe(false);
  });

  test('the url id is the same at every start, and another URL has another', () => {
    const again = urlEvent(api, request, url, Buffer.alloc(0), 'x', undefined);
    const other = urlEvent({ ...api, apiId: 'OpenUrl' }, request, url, Buffer.alloc(0), 'x', undefined);
    expect(again.requestContext.apiId).toBe(event.requestContext.apiId);
    expect(other.requestContext.apiId).not.toBe(event.requestContext.apiId);
    // AuthType NONE: no caller, no authorizer.
    expect('authorizer' in other.requestContext).toBe(false);
  });
});

describe("the URL's Cors", () => {
  const cors = {
    allowOrigins: ['https://app.example.com'],
    allowMethods: ['GET'],
    allowHeaders: ['x-plant'],
    exposeHeaders: ['x-answer'],
    maxAge: 60,
    allowCredentials: false,
  };
  const from = (origin: string) => requestOf('GET', [['Origin', origin]]);

  test("its headers take precedence over the function's", () => {
    const response = withCors(cors, from('https://app.example.com'), {
      status: 200,
      headers: [
        ['Access-Control-Allow-Origin', '*'],
        ['Content-Type', 'text/plain'],
      ],
      body: Buffer.alloc(0),
    });
    expect(response.headers).toEqual([
      ['Content-Type', 'text/plain'],
      ['Access-Control-Allow-Origin', 'https://app.example.com'],
      ['Access-Control-Expose-Headers', 'x-answer'],
    ]);
  });

  test('a preflight gets the allowed methods, headers and max age; an origin not listed gets nothing', () => {
    expect(corsHeaders(cors, from('https://app.example.com'), true)).toEqual([
      ['Access-Control-Allow-Origin', 'https://app.example.com'],
      ['Access-Control-Allow-Methods', 'GET'],
      ['Access-Control-Allow-Headers', 'x-plant'],
      ['Access-Control-Max-Age', '60'],
    ]);
    expect(corsHeaders(cors, from('https://elsewhere.example.com'), true)).toEqual([]);
  });
});
