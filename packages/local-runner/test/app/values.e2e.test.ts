// Served over HTTP, an app whose authorizers and APIs are named by Fn::GetAtt and whose ApiKeyRequired is the string
// "true" (test/fixtures/template-values-app.ts) refuses what AWS refuses: no token, 401 ("Use API Gateway Lambda
// authorizers", "Control access to HTTP APIs with JWT authorizers", "Control access to REST APIs using Amazon Cognito
// user pools as an authorizer"); no key, 403 ("Choose an API key source in API Gateway"). The function is not invoked.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { synthesizeTemplateValuesApp, templateValuesKey } from '../fixtures/template-values-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

let outdir: string | undefined;
const served = servedBeforeAll(() => {
  outdir = synthesizeTemplateValuesApp();
  return outdir;
});
afterAll(() => {
  if (outdir) rmSync(dirname(outdir), { recursive: true, force: true });
});

const call = async (apiId: string, path: string, headers: Record<string, string> = {}) => {
  return fetch(`${served.urlOf(apiId)}${path}`, { headers });
};

describe('no token, no key: refused as on AWS, the function not invoked', () => {
  test.each([
    ['Rest', '/prod/token', 401, 'TOKEN authorizer named by GetAtt AuthorizerId'],
    ['Rest', '/prod/cognito', 401, 'Cognito authorizer named by GetAtt AuthorizerId'],
    ['Rest', '/prod/keyed', 403, 'ApiKeyRequired "true"'],
    ['Http', '/secured', 401, 'JWT authorizer and API named by GetAtt'],
  ])('%s %s: %i (%s)', async (apiId, path, status) => {
    const before = served.api.invocations('EchoFunction');
    const response = await call(apiId, path);
    expect(response.status).toBe(status);
    expect(served.api.invocations('EchoFunction')).toBe(before);
  });
});

describe('with what AWS asks for, served', () => {
  test("the key of the API's usage plan: 200", async () => {
    expect((await call('Rest', '/prod/keyed', { 'X-API-Key': templateValuesKey })).status).toBe(200);
  });

  test("a token the TOKEN authorizer allows: 200, the authorizer's context in the event", async () => {
    const response = await call('Rest', '/prod/token', { Authorization: 'Bearer allow' });
    expect(response.status).toBe(200);
    const { event } = (await response.json()) as { event: { requestContext: { authorizer: Record<string, unknown> } } };
    expect(event.requestContext.authorizer).toMatchObject({ principalId: 'fixture-user', user: 'u1' });
  });
});
