// Request validation as API Gateway does it ("Request validation for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-method-request-validation.html): required
// parameters there and not blank, else 400 BAD_REQUEST_PARAMETERS naming them; the body against the model of its content
// type (JSON Schema draft 4), else 400 BAD_REQUEST_BODY; a content type without a model not validated, `$default` for
// any; the function never invoked for a refused request. SAM CLI has had this request open since 2018 (aws-sam-cli
// issue 364).
import { expect, test } from '@jest/globals';
import { synthesizeRequestValidationApp } from '../../fixtures/request-validation-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeRequestValidationApp);

const send = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${served.api.url}/v1${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    errorType: response.headers.get('x-amzn-errortype'),
    body: (await response.json()) as Record<string, unknown>,
  };
};
const invalidBody = { status: 400, errorType: 'BAD_REQUEST_BODY', body: { message: 'Invalid request body' } };
const fern = { id: 7, name: 'maidenhair', kind: 'fern', contact: 'grower@example.com' };

test('a body the model takes, with the required header: the function gets it', async () => {
  const answer = await send('POST', '/plants', fern, { 'X-Tenant': 'acme' });
  expect(answer.status).toBe(200);
  expect(JSON.parse(String((answer.body.event as { body: string }).body))).toEqual(fern);
});

test.each([
  ['a required property missing', { id: 7 }],
  ['a wrong type', { ...fern, id: '7' }],
  ['under a minimum', { ...fern, id: 0 }],
  ['a value the enum lacks', { ...fern, kind: 'cactus' }],
  ['a property the model does not allow', { ...fern, colour: 'green' }],
  ['a format it breaks (email)', { ...fern, contact: 'nobody' }],
  ['not JSON', '{"id": 7,'],
  ['no body', ''],
])('%s: 400 Invalid request body, the function not invoked', async (_case, body) => {
  const before = served.api.invocations('EchoFunction');
  expect(await send('POST', '/plants', body, { 'X-Tenant': 'acme' })).toEqual(invalidBody);
  expect(served.api.invocations('EchoFunction')).toBe(before);
});

test('required parameters missing or blank: 400 naming them, before the body is looked at', async () => {
  expect(await send('POST', '/plants', { id: 7 }, { 'X-Tenant': '  ' })).toEqual({
    status: 400,
    errorType: 'BAD_REQUEST_PARAMETERS',
    body: { message: 'Missing required request parameters: [X-Tenant]' },
  });
  // An optional parameter (dryRun: false) is not required.
  expect((await send('PUT', '/plants/7', fern)).body).toEqual({
    message: 'Missing required request parameters: [version]',
  });
});

test('a validator of parameters alone leaves the body to the function', async () => {
  expect((await send('PUT', '/plants/7?version=2', 'not json')).status).toBe(200);
});

test('a content type the method has no model for is not validated; `$default` applies to every type', async () => {
  expect((await send('POST', '/plants', 'anything', { 'X-Tenant': 'acme', 'Content-Type': 'text/plain' })).status).toBe(
    200,
  );
  expect(await send('POST', '/any-type', 'anything', { 'Content-Type': 'text/plain' })).toEqual(invalidBody);
  expect((await send('POST', '/any-type', fern, { 'Content-Type': 'text/plain' })).status).toBe(200);
});

test("the authorizer decides first (API Gateway's execution logs: the authorizer, then the request's validation)", async () => {
  expect((await send('POST', '/secured', 'not json')).status).toBe(401);
  expect(await send('POST', '/secured', 'not json', { Authorization: 'Bearer allow' })).toEqual(invalidBody);
});
