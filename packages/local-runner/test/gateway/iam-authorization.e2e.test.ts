// AuthorizationType AWS_IAM on a REST method and on HTTP API routes, the request's SigV4 signature checked (signed here
// with @smithy/signature-v4, the AWS SDK's signer) against the runner's credentials (access key id local, secret
// local), and what API Gateway answers otherwise:
// - REST, unsigned: 403 "Missing Authentication Token"; another secret: 403 "The request signature we calculated does
//   not match the signature you provided..."; another access key: 403 "The security token included in the request is
//   invalid." ("How do I troubleshoot signature mismatch errors when making SigV4 signed requests with IAM
//   authentication to API Gateway?", https://repost.aws/knowledge-center/api-gateway-iam-sigv4-mismatch), through the
//   gateway responses MISSING_AUTHENTICATION_TOKEN and INVALID_SIGNATURE ("Gateway response types for API Gateway",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html);
// - HTTP: 403 {"message":"Forbidden"} ("Control access to HTTP APIs with IAM authorization in API Gateway",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-access-control-iam.html);
// - the caller in the event: REST `requestContext.identity`, HTTP payload 2.0 `requestContext.authorizer.iam`, as in
//   the events Powertools captured on AWS (aws-powertools/powertools-lambda-typescript,
//   packages/parser/tests/events/apigw-rest/iam-auth.json and apigw-http/iam-auth.json), judged by its schemas.
// - a WebSocket API's $connect: the upgrade refused 403 before it is accepted, signed in its headers or as a presigned
//   URL ("Control access to WebSocket APIs with IAM authorization",
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-control-access-iam.html);
// - a signature older than five minutes: 403 "Signature expired: ... (... - 5 min.)", as API Gateway's users report
//   it; a presigned URL ("Authenticating Requests: Using Query Parameters (AWS Signature Version 4)",
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html) until X-Amz-Expires after its date.
// And a Lambda authorizer's policy whose Effect is in lower case: allowed or denied as in aws-cdk's integration test of
// REQUEST authorizers, run against a deployed API (aws/aws-cdk, packages/@aws-cdk-testing/framework-integ/test/
// aws-apigateway/test/authorizers/integ.request-authorizer.lit.ts: `allow` 200, `deny` 403), though "IAM JSON policy
// elements: Effect" (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_effect.html) calls
// Effect case sensitive.

import { APIGatewayProxyEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway';
import { APIGatewayProxyEventV2Schema } from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import { describe, expect, test } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../src/gateway/sigv4.ts';
import { synthesizeIamApp } from '../fixtures/iam-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';
import { upgradeStatus } from '../helpers/upgrade-status.ts';

const served = servedBeforeAll(synthesizeIamApp);
const local = { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'local' };
const urlOf = (apiId: string, path: string) => {
  const api = served.api.apis.find(({ app }) => app.apiId === apiId);
  if (!api) throw new Error(`${apiId} is not served`);
  return new URL(`${api.url}${path}`);
};

/** A request to `url` as @smithy/signature-v4 takes it. */
const toSign = (url: URL, method: string, body?: string) => ({
  method,
  protocol: url.protocol,
  hostname: url.hostname,
  port: Number(url.port),
  path: url.pathname,
  query: {},
  headers: { host: url.host, ...(body !== undefined && { 'content-type': 'application/json' }) },
  ...(body !== undefined && { body }),
});

/**
 * The headers of `body` sent by POST to `url` (or of a GET without one), signed by @smithy/signature-v4 with
 * `credentials` for `service`, at `signingDate`.
 */
const signedHeaders = async (
  url: URL,
  body: string | undefined,
  credentials = local,
  service = 'execute-api',
  signingDate = new Date(),
) => {
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service, sha256: Sha256 });
  const signed = await signer.sign(toSign(url, body === undefined ? 'GET' : 'POST', body), { signingDate });
  return Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'));
};

/** `url` presigned (the signature in its query string) for a GET, or a POST of `body`, good for `expiresIn` seconds. */
const presigned = async (
  url: URL,
  {
    body,
    credentials = local,
    signingDate = new Date(),
    expiresIn = 60,
  }: Partial<{
    body: string;
    credentials: typeof local;
    signingDate: Date;
    expiresIn: number;
  }> = {},
) => {
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 'execute-api', sha256: Sha256 });
  const { query = {} } = await signer.presign(toSign(url, body === undefined ? 'GET' : 'POST', body), {
    signingDate,
    expiresIn,
  });
  const signedUrl = new URL(url);
  for (const [name, value] of Object.entries(query)) signedUrl.searchParams.set(name, String(value));
  return signedUrl;
};

/** Ten minutes ago: past the five minutes a signature is good for. */
const tenMinutesAgo = () => new Date(Date.now() - 10 * 60_000);

const post = async (url: URL, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

const eventOf = (text: string) =>
  (JSON.parse(text) as { event: { requestContext: Record<string, unknown> & { identity?: unknown } } }).event;

/** The caller the runner's credentials sign as. */
const caller = {
  accessKey: 'local',
  accountId: '000000000000',
  userArn: 'arn:aws:iam::000000000000:user/local',
};

test('the routes with AWS_IAM are named at start: their policies are not evaluated', () => {
  expect(served.log.lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^Iam\/IamRest: AWS_IAM on POST \/signed: the runner checks .* evaluates no IAM policy/),
      expect.stringMatching(/^Iam\/IamHttp: AWS_IAM on POST \/signed, POST \/signed-v1: the runner checks/),
    ]),
  );
});

describe('a REST method with AWS_IAM', () => {
  const url = () => urlOf('IamRest', '/prod/signed');

  test("signed with the runner's credentials: the function runs, and its event names the caller in identity", async () => {
    const body = '{"plant":"fern"}';
    const { status, text } = await post(url(), body, await signedHeaders(url(), body));
    expect(status).toBe(200);
    const event = eventOf(text);
    expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
    expect(event.requestContext.identity).toMatchObject({
      ...caller,
      caller: 'local',
      user: 'local',
      cognitoIdentityPoolId: null,
      cognitoIdentityId: null,
      cognitoAuthenticationType: null,
      cognitoAuthenticationProvider: null,
      principalOrgId: null,
    });
  });

  test('unsigned: 403 Missing Authentication Token (MISSING_AUTHENTICATION_TOKEN), the function not invoked', async () => {
    const before = served.api.invocations('Echo');
    const { status, headers, text } = await post(url(), '{}');
    expect({ status, text, type: headers.get('x-amzn-errortype') }).toEqual({
      status: 403,
      text: JSON.stringify({ message: 'Missing Authentication Token' }),
      type: 'MissingAuthenticationTokenException',
    });
    expect(served.api.invocations('Echo')).toBe(before);
  });

  test("another secret: 403 InvalidSignatureException, through the app's INVALID_SIGNATURE gateway response", async () => {
    const body = '{}';
    const headers = await signedHeaders(url(), body, { ...local, secretAccessKey: 'not-local' });
    const response = await post(url(), body, headers);
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('InvalidSignatureException');
    expect(response.headers.get('x-refused')).toBe('signature');
    expect(JSON.parse(response.text)).toEqual({
      refused:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      type: 'INVALID_SIGNATURE',
    });
  });

  test('a body other than the one signed: 403 InvalidSignatureException', async () => {
    const headers = await signedHeaders(url(), '{"plant":"fern"}');
    const response = await post(url(), '{"plant":"ivy"}', headers);
    expect({ status: response.status, type: response.headers.get('x-amzn-errortype') }).toEqual({
      status: 403,
      type: 'InvalidSignatureException',
    });
  });

  test('signed for another service: 403, the scope named', async () => {
    const headers = await signedHeaders(url(), '{}', local, 'lambda');
    const response = await post(url(), '{}', headers);
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text).refused).toBe("Credential should be scoped to correct service: 'execute-api'. ");
  });

  test('another access key: 403 "The security token included in the request is invalid."', async () => {
    const headers = await signedHeaders(url(), '{}', { ...local, accessKeyId: 'AKIAOTHER' });
    const response = await post(url(), '{}', headers);
    expect({ status: response.status, type: response.headers.get('x-amzn-errortype') }).toEqual({
      status: 403,
      type: 'UnrecognizedClientException',
    });
    expect(JSON.parse(response.text).refused).toBe('The security token included in the request is invalid.');
  });

  test('an Authorization header that is no SigV4 one: 403 IncompleteSignatureException', async () => {
    const response = await post(url(), '{}', { Authorization: 'Bearer token' });
    expect({ status: response.status, type: response.headers.get('x-amzn-errortype') }).toEqual({
      status: 403,
      type: 'IncompleteSignatureException',
    });
    expect(JSON.parse(response.text).refused).toMatch(/^Authorization header requires 'Credential' parameter\./);
  });

  test('a method without it takes an unsigned request, and names no caller', async () => {
    const response = await fetch(urlOf('IamRest', '/prod/open'));
    expect(response.status).toBe(200);
    expect(eventOf(await response.text()).requestContext.identity).toMatchObject({ accessKey: null, userArn: null });
  });
});

describe('an HTTP API route with AWS_IAM', () => {
  const url = (path = '/signed') => urlOf('IamHttp', path);
  const forbidden = { status: 403, text: JSON.stringify({ message: 'Forbidden' }) };

  test("signed with the runner's credentials, payload 2.0: the caller in requestContext.authorizer.iam", async () => {
    const body = '{"plant":"fern"}';
    const { status, text } = await post(url(), body, await signedHeaders(url(), body));
    expect(status).toBe(200);
    const event = eventOf(text);
    expect(APIGatewayProxyEventV2Schema.safeParse(event).error).toBeUndefined();
    expect(event.requestContext.authorizer).toEqual({
      iam: { ...caller, callerId: 'local', cognitoIdentity: null, principalOrgId: null, userId: 'local' },
    });
  });

  test('signed, payload 1.0: the caller in requestContext.identity', async () => {
    const body = '{}';
    const { status, text } = await post(url('/signed-v1'), body, await signedHeaders(url('/signed-v1'), body));
    expect(status).toBe(200);
    expect(eventOf(text).requestContext.identity).toMatchObject({ ...caller, caller: 'local', user: 'local' });
  });

  test.each([
    ['unsigned', async () => ({})],
    ['another secret', async () => signedHeaders(url(), '{}', { ...local, secretAccessKey: 'not-local' })],
    ['another access key', async () => signedHeaders(url(), '{}', { ...local, accessKeyId: 'AKIAOTHER' })],
  ])('%s: 403 {"message":"Forbidden"}, the function not invoked', async (_case, headersOf) => {
    const before = served.api.invocations('Echo');
    expect(await post(url(), '{}', await headersOf())).toMatchObject(forbidden);
    expect(served.api.invocations('Echo')).toBe(before);
  });
});

describe("a signature's time", () => {
  const url = () => urlOf('IamRest', '/prod/signed');

  test('signed ten minutes ago: 403 InvalidSignatureException "Signature expired"', async () => {
    const headers = await signedHeaders(url(), '{}', local, 'execute-api', tenMinutesAgo());
    const response = await post(url(), '{}', headers);
    expect({ status: response.status, type: response.headers.get('x-amzn-errortype') }).toEqual({
      status: 403,
      type: 'InvalidSignatureException',
    });
    expect(JSON.parse(response.text)).toEqual({
      refused: expect.stringMatching(
        /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$/,
      ),
      type: 'INVALID_SIGNATURE',
    });
  });

  test('a presigned URL: good until X-Amz-Expires after its date, then refused', async () => {
    const body = '{"plant":"fern"}';
    const signedUrl = await presigned(url(), { body });
    // The presigned request signs its content-type too (every header it has, as the SDK's signer does).
    const json = { 'content-type': 'application/json' };
    const accepted = await post(signedUrl, body, json);
    expect(accepted.status).toBe(200);
    expect(eventOf(accepted.text).requestContext.identity).toMatchObject(caller);
    const recent = await presigned(url(), { body, signingDate: tenMinutesAgo(), expiresIn: 3600 });
    expect((await post(recent, body, json)).status).toBe(200);
    const expired = await presigned(url(), { body, signingDate: tenMinutesAgo(), expiresIn: 60 });
    const refused = await post(expired, body, json);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).refused).toMatch(/^Signature expired/);
  });

  test('a presigned URL with another secret, or changed after signing: 403', async () => {
    const body = '{}';
    const otherSecret = await presigned(url(), { body, credentials: { ...local, secretAccessKey: 'not-local' } });
    const json = { 'content-type': 'application/json' };
    expect((await post(otherSecret, body, json)).status).toBe(403);
    const changed = await presigned(url(), { body });
    changed.searchParams.set('plant', 'ivy');
    expect((await post(changed, body, json)).status).toBe(403);
  });
});

describe("a WebSocket API's $connect with AWS_IAM", () => {
  const url = () => urlOf('IamSocket', '/dev');

  test('named at start with the other routes with AWS_IAM', () => {
    expect(served.log.lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Iam\/IamSocket: AWS_IAM on \$connect: the runner checks/)]),
    );
  });

  test('unsigned, another secret, or signed ten minutes ago: 403 before the upgrade', async () => {
    expect((await upgradeStatus(url())).status).toBe(403);
    const otherSecret = await signedHeaders(url(), undefined, { ...local, secretAccessKey: 'x' });
    expect((await upgradeStatus(url(), otherSecret)).status).toBe(403);
    const old = await signedHeaders(url(), undefined, local, 'execute-api', tenMinutesAgo());
    expect((await upgradeStatus(url(), old)).status).toBe(403);
  });

  test('signed in its headers: the upgrade accepted', async () => {
    expect((await upgradeStatus(url(), await signedHeaders(url(), undefined))).status).toBe(101);
  });

  test("a presigned URL, as a browser's client connects: accepted, and each event names the caller", async () => {
    const signedUrl = await presigned(url());
    signedUrl.protocol = 'ws:';
    const socket = new WebSocket(signedUrl);
    const reply = new Promise<string>((resolve, reject) => {
      socket.addEventListener('message', ({ data }) => resolve(String(data)));
      socket.addEventListener('error', () => reject(new Error('refused')));
    });
    await new Promise((resolve) => socket.addEventListener('open', resolve));
    socket.send('hello');
    const event = eventOf(await reply);
    socket.close();
    expect(event.requestContext).toMatchObject({
      eventType: 'MESSAGE',
      identity: { ...caller, caller: 'local', user: 'local' },
    });
  });
});

describe("a Lambda authorizer's policy with its Effect in lower case", () => {
  const get = async (apiId: string, path: string, headers: Record<string, string>) =>
    (await fetch(urlOf(apiId, path), { headers })).status;

  test('a REST TOKEN authorizer: allow 200, deny 403 (as Allow and Deny)', async () => {
    expect(await get('IamRest', '/prod/effect', { Authorization: 'allow' })).toBe(200);
    expect(await get('IamRest', '/prod/effect', { Authorization: 'deny' })).toBe(403);
    expect(await get('IamRest', '/prod/effect', { Authorization: 'Allow' })).toBe(200);
  });

  test('an HTTP API payload 1.0 IAM-policy authorizer: allow 200, deny 403', async () => {
    expect(await get('IamHttp', '/effect', { 'X-Effect': 'allow' })).toBe(200);
    expect(await get('IamHttp', '/effect', { 'X-Effect': 'deny' })).toBe(403);
  });

  test('an Effect that is neither: 500, as a malformed policy', async () => {
    expect(await get('IamRest', '/prod/effect', { Authorization: 'permit' })).toBe(500);
  });
});
