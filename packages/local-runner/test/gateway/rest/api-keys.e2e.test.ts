// A REST API's API keys as API Gateway takes them ("Choose an API key source in API Gateway": a key the usage plans
// of the stage do not have is "an InvalidKeyParameter exception. As a result, the caller receives a 403 Forbidden
// response"; "Call a method using an API key": the X-API-Key header), and the key in the event ($context.identity.apiKey
// and apiKeyId, "for API methods that require an API key").
import { APIGatewayProxyEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway';
import { expect, test } from '@jest/globals';
import type { RestApi as ReadRestApi } from '../../../src/app/api.ts';
import { localKeyValue } from '../../../src/app/api-keys.ts';
import { apiKeys, synthesizeStagedApp } from '../../fixtures/staged-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeStagedApp);
const get = async (path: string, headers: Record<string, string> = {}) => {
  const api = served.api.apis.find(({ app }) => app.apiId === 'Rest');
  if (!api) throw new Error('Rest is not served');
  const response = await fetch(`${api.url}${path}`, { headers });
  return { status: response.status, text: await response.text() };
};
const forbidden = { status: 403, text: JSON.stringify({ message: 'Forbidden' }) };

test("a key of the stage's usage plan: the function runs, and its event names the key", async () => {
  const response = await get('/prod/keyed', { 'X-API-Key': apiKeys.prod });
  expect(response.status).toBe(200);
  const { event } = JSON.parse(response.text) as { event: { requestContext: { identity: unknown } } };
  expect(APIGatewayProxyEventSchema.safeParse(event).error).toBeUndefined();
  expect(event.requestContext.identity).toMatchObject({ apiKey: apiKeys.prod, apiKeyId: 'ProdKey' });
});

test.each([
  ['no key', '/prod/keyed', {}],
  ['a key no plan has', '/prod/keyed', { 'X-API-Key': 'not-a-key-0123456789abcdef' }],
  ['a disabled key', '/prod/keyed', { 'X-API-Key': apiKeys.disabled }],
  ["another stage's key", '/prod/keyed', { 'X-API-Key': apiKeys.dev }],
  [
    'the key in the query string, where API Gateway reads the header alone',
    `/prod/keyed?x-api-key=${apiKeys.prod}`,
    {},
  ],
])('%s: 403 Forbidden, the function not invoked', async (_case, path, headers) => {
  const before = served.api.invocations('EchoFunction');
  expect(await get(path, headers)).toMatchObject(forbidden);
  expect(served.api.invocations('EchoFunction')).toBe(before);
});

test("each stage takes its plans' keys; a method that requires none takes any request", async () => {
  expect((await get('/dev/keyed', { 'X-API-Key': apiKeys.dev })).status).toBe(200);
  expect(await get('/dev/keyed', { 'X-API-Key': apiKeys.prod })).toMatchObject(forbidden);
  expect((await get('/prod/echo')).status).toBe(200);
});

test('a key the template gives no value: a local one, which the runner lists (AWS generates one)', async () => {
  const rest = served.api.apis.find(({ app }) => app.apiId === 'Rest')?.app as ReadRestApi | undefined;
  expect(rest?.apiKeys.find(({ id }) => id === 'GeneratedKey')).toMatchObject({
    generated: true,
    value: localKeyValue('GeneratedKey'),
    stages: ['prod'],
  });
  expect((await get('/prod/keyed', { 'X-API-Key': localKeyValue('GeneratedKey') })).status).toBe(200);
});

test("a usage plan's throttle is said at start: no local part applies it", () => {
  expect(served.log.lines).toContain(
    "Stages/ProdPlan: a usage plan's throttle, which the runner does not apply (429 on AWS)",
  );
});
