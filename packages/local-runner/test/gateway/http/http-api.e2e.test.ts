// HTTP APIs as API Gateway serves them ("Working with HTTP APIs"): route selection ("Working with routes for HTTP
// APIs": the most specific path, then the exact method over ANY, else `$default`, else 404), the payload format 2.0
// event (judged by @aws-lambda-powertools/parser's APIGatewayProxyEventV2Schema) and both response forms ("Working
// with AWS Lambda proxy integrations for HTTP APIs"), a JWT authorizer ("Controlling access to HTTP APIs with JWT
// authorizers": 401, and 403 for a scope the token lacks), and a named stage's path prefix.

import { request } from 'node:http';
import {
  APIGatewayProxyEventSchema,
  APIGatewayRequestAuthorizerEventSchema,
} from '@aws-lambda-powertools/parser/schemas/api-gateway';
import {
  APIGatewayProxyEventV2Schema,
  APIGatewayRequestAuthorizerEventV2Schema,
} from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import { describe, expect, test } from '@jest/globals';
import { type JWTPayload, SignJWT } from 'jose';
import { signDevToken } from '../../../src/issuer/dev-issuer.ts';
import { httpApiEvent, jsonTypes } from '../../fixtures/aws-event-shapes.ts';
import { jwtIssuer, synthesizeHttpApiApp } from '../../fixtures/http-api-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeHttpApiApp);
const apiNamed = (id: string) => served.urlOf(id);
const send = async (api: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
  const response = await fetch(`${apiNamed(api)}${path}`, { method, headers, ...(body !== undefined && { body }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
};
/** The event the echo function got, from its answer. */
const eventOf = (text: string) => (JSON.parse(text) as { event: Record<string, unknown> & { routeKey: string } }).event;

describe('route selection', () => {
  test.each([
    ['GET', '/items/special', 'GET /items/special'],
    ['GET', '/items/7', 'GET /items/{id}'],
    ['POST', '/items/7', 'ANY /items/{proxy+}'],
    ['GET', '/items/7/parts', 'ANY /items/{proxy+}'],
    ['DELETE', '/anything/else', '$default'],
  ])('%s %s: the route %s', async (method, path, routeKey) => {
    const { status, text } = await send('Items', method, path);
    expect(status).toBe(200);
    expect(eventOf(text).routeKey).toBe(routeKey);
  });

  // ANY stands for the seven methods a route key takes; another reaches no function, `$default` included (the events
  // captured on AWS carry those seven alone: @aws-lambda-powertools/parser's APIGatewayHttpMethod).
  test('a method outside those ANY stands for (PROPFIND) matches no route, not even $default: 404', async () => {
    expect(await send('Items', 'PROPFIND', '/items/7')).toMatchObject({ status: 404, text: '{"message":"Not Found"}' });
    expect(await send('Items', 'PROPFIND', '/anything/else')).toMatchObject({ status: 404 });
  });

  test('without a $default route, a path no route has is 404 {"message":"Not Found"}', async () => {
    expect(await send('Staged', 'GET', '/dev/nothing')).toMatchObject({ status: 404, text: '{"message":"Not Found"}' });
  });
});

test('the payload 2.0 event: lower-cased headers joined by commas, cookies apart, the query string raw and parsed', async () => {
  const { text } = await send(
    'Items',
    'POST',
    '/items/7?colour=green&colour=blue&size=2',
    { 'X-Tenant': 'acme', Cookie: 'session=abc; theme=dark', 'Content-Type': 'application/json' },
    '{"name":"fern"}',
  );
  const event = eventOf(text);
  expect(APIGatewayProxyEventV2Schema.safeParse(event).error).toBeUndefined();
  expect(event).toMatchObject({
    version: '2.0',
    routeKey: 'ANY /items/{proxy+}',
    rawPath: '/items/7',
    rawQueryString: 'colour=green&colour=blue&size=2',
    cookies: ['session=abc', 'theme=dark'],
    headers: { 'x-tenant': 'acme', 'content-type': 'application/json' },
    queryStringParameters: { colour: 'green,blue', size: '2' },
    pathParameters: { proxy: '7' },
    body: '{"name":"fern"}',
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST', path: '/items/7' }, stage: '$default', apiId: 'Items' },
  });
  expect(event.headers).not.toHaveProperty('cookie');
});

test('a binary body reaches the function base64-encoded', async () => {
  const { text } = await send('Items', 'POST', '/items/7', { 'Content-Type': 'application/octet-stream' }, 'bytes');
  expect(eventOf(text)).toMatchObject({ body: Buffer.from('bytes').toString('base64'), isBase64Encoded: true });
});

test('a result without statusCode is the body, 200, application/json; an explicit one sets cookies and decodes base64', async () => {
  const simple = await send('Items', 'GET', '/simple');
  expect(simple).toMatchObject({ status: 200, text: JSON.stringify({ hello: 'world', routeKey: 'GET /simple' }) });
  expect(simple.headers.get('content-type')).toBe('application/json');
  const explicit = await send('Items', 'GET', '/explicit');
  expect(explicit).toMatchObject({ status: 201, text: 'binary answer' });
  expect(explicit.headers.get('x-answer')).toBe('explicit');
  expect(explicit.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
});

describe('a JWT authorizer with a scope on its route', () => {
  const token = (scope: string, audience = jwtIssuer.audience) =>
    signDevToken(
      { ...served.api.signingKey, issuer: jwtIssuer.issuer, audience },
      { sub: 'ana', scope, expiresIn: 3600 },
    );

  test('a token of its issuer and audience with the scope: the function gets its claims and scopes', async () => {
    const { status, text } = await send('Items', 'GET', '/scoped', {
      Authorization: `Bearer ${await token('items/read')}`,
    });
    expect(status).toBe(200);
    expect(eventOf(text)).toMatchObject({
      requestContext: {
        authorizer: { jwt: { claims: { sub: 'ana', iss: jwtIssuer.issuer }, scopes: ['items/read'] } },
      },
    });
  });

  test.each([
    ['no token', 401, 'Unauthorized', undefined],
    ['another audience', 401, 'Unauthorized', () => token('items/read', 'other-api')],
    ['not a JWT', 401, 'Unauthorized', () => Promise.resolve('not-a-jwt')],
    ['without the scope', 403, 'Forbidden', () => token('items/write')],
  ])('%s: %i, the function not invoked', async (_case, status, message, make) => {
    const before = served.api.invocations('EchoFunction');
    const headers: Record<string, string> = make ? { Authorization: `Bearer ${await make()}` } : {};
    expect(await send('Items', 'GET', '/scoped', headers)).toMatchObject({ status, text: JSON.stringify({ message }) });
    expect(served.api.invocations('EchoFunction')).toBe(before);
  });
});

// Each rule of "Control access to HTTP APIs with JWT authorizers in API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html), "Authorizing API
// requests with a JWT authorizer", with real tokens signed by the key the issuer's JWKS holds locally (the
// development issuer's): `kid` names a key of the issuer; `iss` the issuer; `aud` one of the audiences, `client_id`
// only when there is no `aud` ("Troubleshooting issues with HTTP API JWT authorizers": "When both aud and client_id
// are present, API Gateway evaluates aud"); `exp` after now; `nbf` and `iat` before now; a route's scope in `scope` or
// `scp`.
describe('a JWT authorizer validates each claim the JWT authorizer page lists', () => {
  const now = () => Math.floor(Date.now() / 1000);
  /** A token of the authorizer's issuer, signed by the issuer's key: `claims` over valid ones, `header` over its. */
  const signed = (claims: JWTPayload, header: { kid?: string } = {}) =>
    new SignJWT({ iss: jwtIssuer.issuer, aud: jwtIssuer.audience, sub: 'ana', scope: 'items/read', ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: served.api.signingKey.kid, ...header })
      .setIssuedAt(claims.iat ?? now())
      .setExpirationTime(claims.exp ?? now() + 600)
      .sign(served.api.signingKey.privateKey);
  const call = async (token: string) => {
    const before = served.api.invocations('EchoFunction');
    const response = await send('Items', 'GET', '/scoped', { Authorization: token });
    return { ...response, invoked: served.api.invocations('EchoFunction') > before };
  };

  // Each row: the rule, then the token's claims and header, made when the test runs.
  test.each([
    ['kid: none in the header', () => signed({}, { kid: undefined })],
    ['kid: one that no key of the issuer has', () => signed({}, { kid: 'another-key' })],
    [
      'aud: not an audience, though client_id is one (aud is evaluated when present)',
      () => signed({ aud: 'other-api', client_id: jwtIssuer.audience }),
    ],
    ['aud: a list without an audience', () => signed({ aud: ['other-api', 'third-api'] })],
    ['iss: another issuer', () => signed({ iss: 'https://other-issuer.example.com' })],
    ['iat: in the future', () => signed({ iat: now() + 120 })],
    ['nbf: in the future', () => signed({ nbf: now() + 120 })],
    ['exp: past', () => signed({ iat: now() - 120, exp: now() - 60 })],
    // "exp must be after the current time": a token without one has no time after which it is refused.
    [
      'exp: none',
      () =>
        new SignJWT({ iss: jwtIssuer.issuer, aud: jwtIssuer.audience, sub: 'ana', scope: 'items/read' })
          .setProtectedHeader({ alg: 'ES256', kid: served.api.signingKey.kid })
          .setIssuedAt(now())
          .sign(served.api.signingKey.privateKey),
    ],
  ])('%s: 401 {"message":"Unauthorized"}, the function not invoked', async (_rule, token) => {
    const { status, text, invoked } = await call(`Bearer ${await token()}`);
    expect({ status, text, invoked }).toEqual({ status: 401, text: '{"message":"Unauthorized"}', invoked: false });
  });

  test.each([
    ['the token alone, without Bearer', async () => signed({})],
    [
      'no aud, and client_id an audience',
      async () => `Bearer ${await signed({ aud: undefined, client_id: jwtIssuer.audience })}`,
    ],
    [
      'aud a list that holds an audience',
      async () => `Bearer ${await signed({ aud: ['other-api', jwtIssuer.audience] })}`,
    ],
    [
      'nbf and iat past, the scope in scp (a list)',
      async () => `Bearer ${await signed({ nbf: now() - 60, iat: now() - 60, scope: undefined, scp: ['items/read'] })}`,
    ],
  ])('%s: the function runs', async (_case, authorization) => {
    const { status, invoked } = await call(await authorization());
    expect({ status, invoked }).toEqual({ status: 200, invoked: true });
  });
});

test("a named stage: its routes under the stage's path, and nothing outside it", async () => {
  const { status, text } = await send('Staged', 'GET', '/dev/items');
  expect(status).toBe(200);
  expect(eventOf(text)).toMatchObject({ routeKey: 'GET /items', requestContext: { stage: 'dev' } });
  expect((await send('Staged', 'GET', '/items')).status).toBe(404);
});

describe("the API's CORS configuration, applied by API Gateway itself", () => {
  const preflight = (origin: string) =>
    send('Items', 'OPTIONS', '/scoped', { Origin: origin, 'Access-Control-Request-Method': 'GET' });
  const corsOf = (headers: Headers) =>
    Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));

  test('a preflight from an allowed origin: 204 with the configured headers, whatever the routes (no OPTIONS route, and the route an authorizer guards)', async () => {
    const { status, headers } = await preflight('https://app.example.com');
    expect(status).toBe(204);
    expect(corsOf(headers)).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET,POST',
      'access-control-allow-headers': 'Authorization',
      'access-control-max-age': '600',
    });
  });

  test('from another origin: no CORS headers', async () => {
    const { status, headers } = await preflight('https://elsewhere.example.com');
    expect(status).toBe(204);
    expect(corsOf(headers)).toEqual({});
  });

  test("a request's response carries the origin, the exposed headers and credentials", async () => {
    const { status, headers } = await send('Items', 'GET', '/explicit', { Origin: 'https://app.example.com' });
    expect(status).toBe(201);
    expect(corsOf(headers)).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'X-Answer',
    });
  });
});

// "Configure CORS for HTTP APIs" (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html):
// AllowOrigins `https://*` allows "any origin that begins with https://", on the preflight and on the response.
describe('CORS origins `https://*`: any origin that begins with https://', () => {
  const corsOf = (headers: Headers) =>
    Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));

  test.each([
    ['https://any.example.org', true],
    ['https://localhost:5173', true],
    ['http://any.example.org', false],
  ])('a preflight from %s (allowed: %s): 204, the origin and the methods if allowed', async (origin, allowed) => {
    const { status, headers } = await send('Wildcard', 'OPTIONS', '/items', {
      Origin: origin,
      'Access-Control-Request-Method': 'GET',
    });
    const expected = allowed ? { 'access-control-allow-origin': origin, 'access-control-allow-methods': 'GET' } : {};
    expect({ status, cors: corsOf(headers) }).toEqual({ status: 204, cors: expected });
  });

  test.each([
    ['https://any.example.org', true],
    ['http://any.example.org', false],
  ])(
    'a request from %s (allowed: %s): the function answers, the origin and exposed headers if allowed',
    async (origin, allowed) => {
      const { status, headers } = await send('Wildcard', 'GET', '/items', { Origin: origin });
      const expected = allowed
        ? { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'X-Answer' }
        : {};
      expect({ status, cors: corsOf(headers) }).toEqual({ status: 200, cors: expected });
    },
  );
});

describe('Lambda authorizers (payload 2.0), on the X-Key header', () => {
  test('a simple response that authorizes: the function gets its context under authorizer.lambda', async () => {
    const { status, text } = await send('Items', 'GET', '/keyed?page=2', { 'X-Key': 'open' });
    expect(status).toBe(200);
    const { lambda } = (eventOf(text).requestContext as { authorizer: { lambda: Record<string, string> } }).authorizer;
    expect(lambda.tenant).toBe('acme');
    const delivered = JSON.parse(lambda.event ?? '{}') as Record<string, unknown>;
    expect(APIGatewayRequestAuthorizerEventV2Schema.safeParse(delivered).error).toBeUndefined();
    expect(delivered).toMatchObject({
      version: '2.0',
      type: 'REQUEST',
      routeArn: expect.stringMatching(/^arn:aws:execute-api:us-east-1:000000000000:Items\/\$default\/GET\/keyed$/),
      identitySource: ['open'],
      routeKey: 'GET /keyed',
      queryStringParameters: { page: '2' },
    });
  });

  test('cached by the identity source: the same key does not invoke it again, another one does', async () => {
    await send('Items', 'GET', '/keyed', { 'X-Key': 'open' });
    const before = served.api.invocations('SimpleAuthorizerFunction');
    expect((await send('Items', 'GET', '/keyed', { 'X-Key': 'open' })).status).toBe(200);
    expect(served.api.invocations('SimpleAuthorizerFunction')).toBe(before);
    expect((await send('Items', 'GET', '/keyed', { 'X-Key': 'closed' })).status).toBe(403);
    expect(served.api.invocations('SimpleAuthorizerFunction')).toBe(before + 1);
  });

  test.each([
    ['/keyed', 'without the identity source', {}, 401, 'Unauthorized'],
    ['/keyed', 'a simple response that refuses', { 'X-Key': 'closed' }, 403, 'Forbidden'],
    ['/policy', 'an IAM policy that denies', { 'X-Key': 'closed' }, 403, 'Forbidden'],
  ])('%s, %s', async (path, _case, headers, status, message) => {
    expect(await send('Items', 'GET', path, headers)).toMatchObject({ status, text: JSON.stringify({ message }) });
  });

  test('an IAM policy that allows: the function runs', async () => {
    expect((await send('Items', 'GET', '/policy', { 'X-Key': 'open' })).status).toBe(200);
  });
});

// The same page's 1.0 example and response format: "Same as" a REST API's REQUEST authorizer (its event), and "must
// return an IAM policy".
describe('a Lambda authorizer with payload 1.0 (as the CDK writes one with IAM responses), on X-Key and ?tenant', () => {
  const path = '/policy-v1/fern?tenant=acme';

  test("an IAM policy that allows: the function runs, and the authorizer got a REST API's REQUEST authorizer event", async () => {
    const { status, text } = await send('Items', 'GET', path, { 'X-Key': 'open' });
    expect(status).toBe(200);
    const { lambda } = (eventOf(text).requestContext as { authorizer: { lambda: Record<string, string> } }).authorizer;
    expect(lambda.tenant).toBe('acme');
    const delivered = JSON.parse(lambda.event ?? '{}') as Record<string, unknown>;
    expect(APIGatewayRequestAuthorizerEventSchema.safeParse(delivered).error).toBeUndefined();
    expect(delivered).toMatchObject({
      version: '1.0',
      type: 'REQUEST',
      methodArn: expect.stringMatching(
        /^arn:aws:execute-api:us-east-1:000000000000:Items\/\$default\/GET\/policy-v1\/fern$/,
      ),
      identitySource: 'open,acme',
      authorizationToken: 'open,acme',
      resource: '/policy-v1/{name}',
      path: '/policy-v1/fern',
      httpMethod: 'GET',
      pathParameters: { name: 'fern' },
      queryStringParameters: { tenant: 'acme' },
    });
    expect(delivered).not.toHaveProperty('body');
    expect(delivered).not.toHaveProperty('routeArn');
  });

  test('a header sent twice is one identity value, its values joined by commas as the 2.0 event joins them', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      request(
        `${apiNamed('Items')}/policy-v1/fern?tenant=twice`,
        { headers: { 'X-Key': ['open', 'open'] } },
        (response) => {
          let answer = '';
          response.setEncoding('utf8').on('data', (chunk: string) => {
            answer += chunk;
          });
          response.on('end', () => resolve(answer));
        },
      )
        .on('error', reject)
        .end();
    });
    const { lambda } = (eventOf(text).requestContext as { authorizer: { lambda: Record<string, string> } }).authorizer;
    expect(JSON.parse(lambda.event ?? '{}')).toMatchObject({ identitySource: 'open,open,twice' });
  });

  test('cached by both identity sources: the same pair does not invoke it again, another tenant does', async () => {
    await send('Items', 'GET', path, { 'X-Key': 'open' });
    const before = served.api.invocations('PolicyV1AuthorizerFunction');
    expect((await send('Items', 'GET', path, { 'X-Key': 'open' })).status).toBe(200);
    expect(served.api.invocations('PolicyV1AuthorizerFunction')).toBe(before);
    expect((await send('Items', 'GET', '/policy-v1/fern?tenant=other', { 'X-Key': 'open' })).status).toBe(200);
    expect(served.api.invocations('PolicyV1AuthorizerFunction')).toBe(before + 1);
  });

  test.each([
    ['without the query string', '/policy-v1/fern', { 'X-Key': 'open' }, 401, 'Unauthorized'],
    ['without the header', path, {}, 401, 'Unauthorized'],
    ['an IAM policy that denies', path, { 'X-Key': 'closed' }, 403, 'Forbidden'],
  ])('%s: %s', async (_case, requested, headers, status, message) => {
    expect(await send('Items', 'GET', requested, headers)).toMatchObject({ status, text: JSON.stringify({ message }) });
  });
});

describe('the payload 2.0 event, key by key against one captured on AWS', () => {
  // hotsock/voker, vokerhttp/testdata/apigwv2-request.json at 7e397613eaf1da718392c5f50e0221ae2309dda9: the same
  // request sent on AWS (us-west-2, `$default` route and stage), whose event showed the keys in
  // fixtures/aws-event-shapes.ts and the values asserted below.
  const rawQueryString =
    'repeat=one&repeat=two&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&encodedPlus=a%2Bb&empty=';
  const body = JSON.stringify({ plant: 'fern', unicode: 'lambda-λ' });

  test('the same keys, and the same values where they do not depend on the host', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const sent = request(
        `${apiNamed('Items')}/capture/space%20value?${rawQueryString}`,
        {
          method: 'POST',
          headers: {
            Accept: '*/*',
            'Content-Type': 'application/json',
            'User-Agent': 'curl/8.7.1',
            'X-Probe': ['first', 'second'],
            Cookie: 'session=abc123; theme=dark',
          },
        },
        (response) => {
          let answer = '';
          response.setEncoding('utf8').on('data', (chunk: string) => {
            answer += chunk;
          });
          response.on('end', () => resolve(answer));
        },
      );
      sent.on('error', reject).end(body);
    });
    const event = eventOf(text) as unknown as Record<string, unknown> & { requestContext: Record<string, unknown> };
    const loggerOnly: readonly string[] = httpApiEvent.loggerOnly;
    const shape = (object: unknown) =>
      Object.fromEntries(Object.entries(jsonTypes(object)).filter(([key]) => !loggerOnly.includes(key)));
    expect(shape(event)).toEqual(httpApiEvent.event);
    expect(shape(event.requestContext)).toEqual(httpApiEvent.requestContext);
    // The names sent, in lower case, but the cookie (apart in `cookies`), and those API Gateway adds.
    expect(Object.keys(event.headers as object).sort()).toEqual([
      'accept',
      'content-length',
      'content-type',
      'host',
      'user-agent',
      'x-amzn-trace-id',
      'x-forwarded-for',
      'x-forwarded-port',
      'x-forwarded-proto',
      'x-probe',
    ]);
    // Captured: the path percent-decoded in rawPath, the query string as sent, each parameter decoded ('+' a space,
    // %2B a plus) and a repeated one joined by a comma, the cookies apart, the JSON body as text.
    const expected: Record<string, unknown> = {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/capture/space value',
      rawQueryString,
      cookies: ['session=abc123', 'theme=dark'],
      queryStringParameters: {
        empty: '',
        encodedPlus: 'a+b',
        literalPlus: 'a b',
        redirect: 'https://example.com/a/b',
        repeat: 'one,two',
      },
      body,
      isBase64Encoded: false,
    };
    for (const key of Object.keys(expected)) expect([key, event[key]]).toEqual([key, expected[key]]);
    const http = (event.requestContext as { http: Record<string, unknown> }).http;
    expect({ ...http, sourceIp: '' }).toEqual({
      method: 'POST',
      path: '/capture/space value',
      protocol: 'HTTP/1.1',
      sourceIp: '',
      userAgent: 'curl/8.7.1',
    });
    expect(jsonTypes(http)).toEqual(httpApiEvent.http);
    expect((event.headers as Record<string, string>)['x-probe']).toBe('first,second');
    expect(event.requestContext).toMatchObject({ routeKey: '$default', stage: '$default' });
    expect(String(event.requestContext.requestId)).toMatch(/^[A-Za-z0-9+/]{14}==?$|^[A-Za-z0-9+/=]{16}$/);
  });
});

test('payload format 1.0: a REST-shaped event (version 1.0), and the REST response format', async () => {
  const { status, text, headers } = await send(
    'Items',
    'POST',
    '/v1/fern?colour=green&colour=blue',
    { 'X-Tenant': 'acme' },
    'hello',
  );
  expect(status).toBe(200);
  // echo.mjs answers in the 1.0 (REST) format: its multiValueHeaders reach the client.
  expect(headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  const event = eventOf(text);
  expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
  expect(event).toMatchObject({
    version: '1.0',
    resource: '/v1/{name}',
    path: '/v1/fern',
    httpMethod: 'POST',
    headers: { 'X-Tenant': 'acme' },
    queryStringParameters: { colour: 'blue' },
    multiValueQueryStringParameters: { colour: ['green', 'blue'] },
    pathParameters: { name: 'fern' },
    body: 'hello',
    isBase64Encoded: false,
    requestContext: { stage: '$default', resourcePath: '/v1/{name}', httpMethod: 'POST' },
  });
});
