// REQUEST authorizers as API Gateway runs them ("Use API Gateway Lambda authorizers", "Input to an API Gateway Lambda
// authorizer", https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-lambda-authorizer-input.html):
// every identity source required (missing, null or empty: 401, the function never invoked; AWS Knowledge Center, "Why
// am I getting API Gateway 401 Unauthorized errors after creating a Lambda authorizer?"), the request's parts as the
// event (judged by @aws-lambda-powertools/parser's schema), the result cached by the identity sources' values, and
// without identity sources and cache, every request invoking it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APIGatewayRequestAuthorizerEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway';
import { describe, expect, test } from '@jest/globals';
import { synthesizeRequestAuthorizerApp } from '../../fixtures/request-authorizer-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeRequestAuthorizerApp);

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${served.api.url}${path}`, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const cachedInvocations = () => served.api.invocations('CachedAuthorizerFunction');

describe('identity sources: a header, a query string, a stage variable, a context value', () => {
  test.each([
    ['without the header', '/v1/tenant?token=allow', {}],
    ['with the header empty', '/v1/tenant?token=allow', { 'X-Tenant': '' }],
    ['without the query string', '/v1/tenant', { 'X-Tenant': 'acme' }],
    ['with the query string empty', '/v1/tenant?token=', { 'X-Tenant': 'acme' }],
  ])('%s: 401, and the authorizer is not invoked', async (_case, path, headers) => {
    const before = cachedInvocations();
    expect(await get(path, headers)).toEqual({ status: 401, body: { message: 'Unauthorized' } });
    expect(cachedInvocations()).toBe(before);
  });

  test("all there: the authorizer gets the request's parts, and the function what it allowed", async () => {
    const { status, body } = await get('/v1/tenant?token=allow&page=2', { 'X-Tenant': 'acme' });
    expect(status).toBe(200);
    const { event } = body as {
      event: {
        headers: Record<string, string>;
        requestContext: { requestId: string; authorizer: Record<string, unknown> };
      };
    };
    const { authorizer } = event.requestContext;
    expect(authorizer).toMatchObject({ principalId: 'request-user', tenant: 'acme' });
    const delivered = JSON.parse(String(authorizer.event)) as Record<string, unknown> & {
      requestContext: { requestId: string };
    };
    expect(APIGatewayRequestAuthorizerEventSchema.safeParse(delivered).error).toBeUndefined();
    expect(delivered).toMatchObject({
      type: 'REQUEST',
      methodArn: expect.stringMatching(/^arn:aws:execute-api:us-east-1:000000000000:\w+\/v1\/GET\/tenant$/),
      resource: '/tenant',
      path: '/tenant',
      httpMethod: 'GET',
      headers: { 'X-Tenant': 'acme' },
      queryStringParameters: { token: 'allow', page: '2' },
      stageVariables: { tier: 'gold' },
    });
    expect(delivered).not.toHaveProperty('body');
    // One request: the authorizer's view of it is the function's.
    expect(delivered.requestContext.requestId).toBe(event.requestContext.requestId);
    expect(delivered).toMatchObject({ headers: { 'X-Amzn-Trace-Id': event.headers['X-Amzn-Trace-Id'] } });
  });

  test('cached by the identity sources: a part that is not one changes nothing, a source that changes invokes it again', async () => {
    expect((await get('/v1/tenant?token=allow', { 'X-Tenant': 'cache' })).status).toBe(200);
    const first = cachedInvocations();
    expect((await get('/v1/tenant?token=allow&page=9', { 'X-Tenant': 'cache', 'X-Other': 'x' })).status).toBe(200);
    expect(cachedInvocations()).toBe(first);
    expect((await get('/v1/tenant?token=allow', { 'X-Tenant': 'another' })).status).toBe(200);
    expect(cachedInvocations()).toBe(first + 1);
  });

  test("its policy decides: an explicit deny is 403; an error 'Unauthorized' is 401", async () => {
    expect(await get('/v1/tenant?token=deny', { 'X-Tenant': 'acme' })).toEqual({
      status: 403,
      body: { message: 'User is not authorized to access this resource with an explicit deny' },
    });
    expect(await get('/v1/tenant?token=unauthorized', { 'X-Tenant': 'acme' })).toEqual({
      status: 401,
      body: { message: 'Unauthorized' },
    });
  });
});

test('no identity source and no cache: every request invokes the authorizer, whatever it carries', async () => {
  const before = served.api.invocations('UncachedAuthorizerFunction');
  expect((await get('/v1/open')).status).toBe(200);
  expect((await get('/v1/open')).status).toBe(200);
  expect(served.api.invocations('UncachedAuthorizerFunction')).toBe(before + 2);
});

// An app synthesized without the CDK CLI (`new App()` run by node, as some public apps are, e.g.
// gabow800/cdk-lambda-authorizers): the CLI's asset metadata off, so a function's code is found by its S3Key alone.
describe('an app synthesized without asset metadata', () => {
  let assembly = '';
  const bare = servedBeforeAll(() => {
    assembly = synthesizeRequestAuthorizerApp({ assetMetadata: false });
    return assembly;
  });

  test("its functions carry no aws:asset:path, and are served: the authorizer's and the function's code found", async () => {
    const template = readFileSync(join(assembly, 'RequestAuthorizers.template.json'), 'utf8');
    expect(template).not.toContain('aws:asset:path');
    const response = await fetch(`${bare.api.url}/v1/tenant?token=allow`, { headers: { 'X-Tenant': 'bare' } });
    expect(response.status).toBe(200);
    const { event } = (await response.json()) as { event: { requestContext: { authorizer: Record<string, unknown> } } };
    expect(event.requestContext.authorizer).toMatchObject({ principalId: 'request-user', tenant: 'bare' });
  });
});
