// The typed client's exact JSON (examples/typed-client/src/exact-json.ts) and its generated files: int64 both ways,
// read where the contract says an answer holds one, whether the answer has a Content-Length or is chunked; and its
// retries of a 503, against a server that counts them. Against the real app: typed-client.e2e.test.ts.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
import { createExactClient, createPlantStoreClient } from '../../examples/typed-client/src/client.ts';
import { exactJson, parseExact } from '../../examples/typed-client/src/exact-json.ts';
import { int64Fields } from '../fixtures/extended-app/typed-client/int64-fields.ts';
import type { paths } from '../fixtures/extended-app/typed-client/plant-store-api.d.ts';

const exampleDir = new URL('../../examples/typed-client/', import.meta.url).pathname;

test('writes a bigint as the exact JSON number', () => {
  expect(exactJson({ id: 9223372036854775807n, name: 'x' })).toBe('{"id":9223372036854775807,"name":"x"}');
});

test('reads the numbers at int64 paths as bigint (* any item), every other number as a number', () => {
  const text =
    '{"plants":[{"id":9223372036854775807,"size":1.5},{"id":-9223372036854775808,"size":2}],"count":2,"id":1e3}';
  expect(parseExact(text, [['plants', '*', 'id'], ['id']])).toEqual({
    plants: [
      { id: 9223372036854775807n, size: 1.5 },
      { id: -9223372036854775808n, size: 2 },
    ],
    count: 2,
    // Not an integer's digits: left a number, not made up into a bigint.
    id: 1000,
  });
  // A key named __proto__ stays data, as JSON.parse keeps it.
  expect(Object.keys(parseExact('{"__proto__":{"id":1}}', []) as object)).toEqual(['__proto__']);
});

test.each([
  ['with a Content-Length', false],
  ['chunked, without one', true],
])('an answer %s is read exactly through openapi-fetch', async (_how, chunked) => {
  const body = '{"id":9223372036854775807,"name":"Largest"}';
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'Content-Type': 'application/json', ...(!chunked && { 'Content-Length': body.length }) });
    if (!chunked) return response.end(body);
    for (const part of [body.slice(0, 10), body.slice(10)]) response.write(part);
    response.end();
  });
  try {
    const client = createExactClient<paths>({ baseUrl: await listenOnLoopback(server), token: 't' }, int64Fields);
    const { data } = await client.GET('/plants/{id}', { params: { path: { id: 9223372036854775807n } } });
    expect(data).toEqual({ id: 9223372036854775807n, name: 'Largest' });
  } finally {
    server.close();
  }
});

test.each([
  ['openapi.yaml', []],
  [
    'test/fixtures/extended-app/openapi.yaml',
    ['../../test/fixtures/extended-app/openapi.yaml', '../../test/fixtures/extended-app/typed-client/'],
  ],
])('the committed types and int64 fields are what %s generates (run `npm run generate`)', async (_contract, args) => {
  await expect(
    promisify(execFile)(process.execPath, ['generate.ts', ...args, '--check'], { cwd: exampleDir }),
  ).resolves.toBeDefined();
});

test("the fixture's int64 fields: each answer that holds an id", () => {
  expect(int64Fields).toEqual({
    'GET /things/{id}': { 200: [['id']] },
    'GET /plants': { 200: [['plants', '*', 'id']] },
    'GET /plants/{id}': { 200: [['id']] },
  });
});

test('retries a 503 after its Retry-After, and gives up after the last attempt', async () => {
  let requests = 0;
  const busy = createServer((request, response) => {
    requests += 1;
    request.resume();
    const ready = requests === 3;
    response.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json', 'Retry-After': '0' });
    response.end(ready ? '{"name":"Hoya"}' : '{"error":503,"message":"The database is unavailable, please retry"}');
  });
  try {
    const baseUrl = await listenOnLoopback(busy);

    expect(await createPlantStoreClient({ baseUrl, token: 't' }).createPlant({ id: 1n, name: 'Hoya' })).toEqual({
      ok: true,
      plant: { name: 'Hoya' },
    });
    expect(requests).toBe(3);
    requests = -10; // from now on, only 503s
    await expect(
      createPlantStoreClient({ baseUrl, token: 't', maxAttempts: 2 }).createPlant({ id: 1n, name: 'Hoya' }),
    ).rejects.toMatchObject({
      name: 'PlantStoreError',
      status: 503,
    });
    expect(requests).toBe(-8);
  } finally {
    busy.close();
  }
});
