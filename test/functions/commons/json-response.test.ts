// Every answer's JSON and headers (functions/commons/json-response.ts): an int64 written exactly, through a function's
// real chain too; the API's CORS headers on every answer, a 200 and an error alike, when the stack allows an origin;
// none when it does not.
import { execFileSync } from 'node:child_process';
import { expect, test } from '@jest/globals';
import { exactNumbers } from '../../../functions/commons/exact-json.ts';
import { jsonResponder, jsonResponse } from '../../../functions/commons/json-response.ts';
import { projectRoot } from '../../../infra/project-root.ts';
import { handler as getThing } from '../../fixtures/extended-app/functions/get-thing/handler.ts';
import { lambdaContext, proxyEvent } from '../../helpers/events.ts';

const cors = {
  'Access-Control-Allow-Origin': 'https://app.example.com',
  'Access-Control-Expose-Headers': 'WWW-Authenticate, Retry-After',
};

test('an int64 is written exactly, after the JSON media type; headers given win', () => {
  expect(jsonResponder(undefined)(200, { id: 2n ** 63n - 1n }, { 'Retry-After': '1' })).toEqual({
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
    body: '{"id":9223372036854775807}',
  });
});

test("an int64 leaves a function's real chain exactly, at both ends of its range (the extended fixture app)", async () => {
  for (const id of ['9223372036854775807', '-9223372036854775808']) {
    const { body } = await getThing(
      // httpEventNormalizer's types ask for its normalized shape; API Gateway sends the proxy event.
      proxyEvent({ method: 'GET', resource: '/things/{id}', pathParameters: { id } }) as Parameters<typeof getThing>[0],
      lambdaContext(),
    );
    expect(body).toBe(`{"id":${id},"fields":"all"}`);
    expect(JSON.parse(body, exactNumbers)).toEqual({ id: BigInt(id), fields: 'all' });
  }
});

test('an API that allows an origin: its CORS headers on the answer', () => {
  expect(jsonResponder('https://app.example.com')(201, {}).headers).toEqual({
    'Content-Type': 'application/json',
    ...cors,
  });
});

test('without CORS_ORIGIN (these tests have none): no CORS header', () => {
  expect(jsonResponse(200, {}).headers).toEqual({ 'Content-Type': 'application/json' });
});

test('a function given CORS_ORIGIN answers with it, through its real chain: a 200 and an error alike', () => {
  // A process of its own, as an execution environment: the variable is there before the modules load.
  const script = `
    const { handler } = await import('./test/fixtures/extended-app/functions/get-thing/handler.ts');
    const { lambdaContext, proxyEvent } = await import('./test/helpers/events.ts');
    const get = (id) => handler(proxyEvent({ method: 'GET', resource: '/things/{id}', pathParameters: { id } }), lambdaContext());
    const answers = [await get('7'), await get('x')];
    console.log(JSON.stringify(answers.map(({ statusCode, headers }) => [statusCode, headers])));
  `;
  const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: projectRoot,
    env: { ...process.env, CORS_ORIGIN: 'https://app.example.com', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    encoding: 'utf8',
  });
  expect(JSON.parse(printed)).toEqual([
    [200, { 'Content-Type': 'application/json', ...cors }],
    [400, { 'Content-Type': 'application/json', ...cors }],
  ]);
});
