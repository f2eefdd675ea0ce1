// One reading of the request's path for the route and the method ARN an authorizer's policy is judged against (issue
// 41, items 4 and 11). A REST API treats a trailing `/` as the same resource (LocalStack's AWS-validated snapshot
// `test_lambda_aws_proxy_integration`, localstack/localstack tests/aws/services/apigateway/test_apigateway_lambda.py:
// `/test-path/` reaches `/{proxy+}` with `proxy` "test-path"), and an empty segment in the middle of a path is a
// segment, which `{name}` matches as empty (martzcodes/blog-ts-request-validation, README.md: `POST
// /prod/unvalidated//basic` answered "Hello no one", `/prod/validated//basic` "Missing required request parameters:
// [hello]"). The forms no public source settles the runner refuses (400), rather than route one request and judge
// another.
import { describe, expect, test } from '@jest/globals';
import { parseRaw, rawExchange } from 'test-support/raw-http';
import { synthesizePathsApp } from '../fixtures/paths-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

const served = servedBeforeAll(synthesizePathsApp);

const get = (path: string) => fetch(`${served.api.url}${path}`, { headers: { Authorization: 'token' } });
const post = (path: string) =>
  fetch(`${served.api.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ someString: 'qwerty', someNumber: 1234 }),
  });

describe('a policy that denies GET /t/secret and allows the rest of the stage (item 4)', () => {
  test('allows /t/{x} for another x, and denies /t/secret', async () => {
    expect((await get('/prod/t/public')).status).toBe(200);
    expect((await get('/prod/t/secret')).status).toBe(403);
  });

  test.each([
    ['a trailing /', '/prod/t/secret/'],
    ['empty segments', '/prod//t//secret'],
    ['an empty segment after the stage', '/prod//t/secret'],
  ])('%s does not reach the function: %s', async (_form, path) => {
    const before = served.api.invocations('EchoFunction');
    const response = await get(path);

    expect(response.status).toBe(403);
    expect(served.api.invocations('EchoFunction')).toBe(before);
  });

  test.each([
    ['a dot segment', '/prod/t/./secret'],
    ['a dot-dot segment', '/prod/t/x/../secret'],
    ['a percent-encoded dot-dot segment', '/prod/t/x/%2E%2e/secret'],
    ['a percent-encoded unreserved character', '/prod/t/%73ecret'],
    ['more than one trailing /', '/prod/t/secret//'],
    ['a backslash', '/prod/t\\secret'],
  ])('a path the runner refuses, %s, is 400 and reaches nothing: %s', async (_form, path) => {
    const before = served.api.invocations('EchoFunction');
    const raw = await rawExchange(
      served.api.url,
      `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: token\r\nConnection: close\r\n\r\n`,
    );
    const { status, json } = parseRaw(raw);

    expect(status).toBe(400);
    expect(json).toEqual({ message: expect.stringContaining('path') });
    expect(served.api.invocations('EchoFunction')).toBe(before);
  });
});

describe('an empty segment is a segment (item 11)', () => {
  test('`{hello}` matches it as empty, as the deployed app answered "Hello no one"', async () => {
    const response = await post('/prod/unvalidated//basic');
    const { event } = (await response.json()) as {
      event: { resource: string; path: string; pathParameters: Record<string, string> | null };
    };

    expect(response.status).toBe(200);
    expect(event.resource).toBe('/unvalidated/{hello}/basic');
    expect(event.path).toBe('/unvalidated//basic');
    expect(event.pathParameters?.hello || 'no one').toBe('no one');
  });

  test('a validator requiring `hello` refuses it as missing', async () => {
    const response = await post('/prod/validated//basic');

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'Missing required request parameters: [hello]' });
  });
});
