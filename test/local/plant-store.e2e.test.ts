import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Runner, signDevToken, startRunner } from 'cdk-local-runner';
import { plantStoreOptions } from '../helpers/cloud-assembly.ts';
import { contractOperations } from '../helpers/contract-operations.ts';
import { createPlantRequest, responseContractViolations } from '../helpers/independent-contract.ts';
import { postPlant } from '../helpers/post-plant.ts';

const options = plantStoreOptions();
let api: Runner;
let token: string;

beforeAll(async () => {
  api = await startRunner(options);
  token = await signDevToken(api.signingKey, { sub: 'e2e', scope: 'plants/write', expiresIn: '1h' });
}, 30_000);

afterAll(() => api.close());

/**
 * POSTs `body` with `headers` (by default the token's Authorization; the authorization tests send others, or none) and
 * checks the answer against openapi.yaml.
 */
const createPlant = async (body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${token}` }) => {
  const response = await postPlant(api.url, undefined, body, headers);
  expect(await responseContractViolations(response, createPlantRequest)).toEqual([]);
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
};

describe('creating plants', () => {
  test('creates, answers a retry with the stored plant, and refuses other content for the id with 409', async () => {
    expect(await createPlant({ id: 1, name: 'Monstera deliciosa', tag: 'aroid' })).toMatchObject({
      status: 200,
      body: { name: 'Monstera deliciosa', tag: 'aroid' },
    });
    expect(await createPlant({ id: 1, name: 'Monstera deliciosa', tag: 'aroid' })).toMatchObject({ status: 200 });
    expect(await createPlant({ id: 1, name: 'Pothos' })).toMatchObject({
      status: 409,
      body: { error: 409, message: 'A plant with id 1 already exists with a different name or tag' },
    });
  });

  test('keeps ids beyond 2^53 apart', async () => {
    expect((await createPlant('{"id": 9007199254740993, "name": "odd"}')).status).toBe(200);
    expect((await createPlant('{"id": 9007199254740992, "name": "even"}')).status).toBe(200);
    expect((await createPlant('{"id": 9007199254740993, "name": "even"}')).status).toBe(409);
  });

  test('answers a bad body with 400 naming the field', async () => {
    expect(await createPlant({ id: '1', name: 'x' })).toEqual({
      status: 400,
      headers: expect.anything(),
      body: { error: 400, message: 'id: must be an integer in the int64 range' },
    });
  });

  test('refuses bytes that are not UTF-8 with 400, stores nothing, and keeps valid text exactly', async () => {
    const withName = (name: Buffer) =>
      Buffer.concat([Buffer.from('{"id": 4100777, "name": "Caf'), name, Buffer.from('"}')]);
    expect(await createPlant(withName(Buffer.from([0xe9])))).toMatchObject({
      status: 400,
      body: { error: 400, message: 'request body: is not valid UTF-8' },
    });
    // Nothing was stored for the id: valid text creates it, and a repaired form of it is other content.
    expect(await createPlant(withName(Buffer.from('é')))).toMatchObject({ status: 200, body: { name: 'Café' } });
    expect((await createPlant(withName(Buffer.from('\uFFFD')))).status).toBe(409);
  });

  test('accepts a JSON media type with whitespace before its parameters', async () => {
    const answer = await createPlant(
      { id: 4100778, name: 'Yarrow' },
      { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json ; charset=utf-8' },
    );
    expect(answer.status).toBe(200);
  });

  test('answers a body over the function limit (64 KiB) with 413 from the function', async () => {
    const answer = await createPlant({ id: 2, name: 'x'.repeat(70_000) });
    expect(answer).toMatchObject({ status: 413, body: { error: 413 } });
  });

  test('answers a body over the gateway limit (10 MB) with the gateway response 413', async () => {
    const answer = await createPlant({ id: 3, name: 'x'.repeat(10 * 1024 * 1024) });
    expect(answer).toMatchObject({ status: 413, body: { error: 413, message: 'Request is too large' } });
  });

  test('many requests at once are all answered correctly', async () => {
    const ids = Array.from({ length: 40 }, (_, index) => 1000 + index);
    const created = await Promise.all(ids.map((id) => createPlant({ id, name: `plant ${id}` })));
    expect(created.map(({ status }) => status)).toEqual(Array(ids.length).fill(200));

    // The same create racing itself: every copy is answered 200; different content for one id: exactly one wins.
    const same = await Promise.all(Array.from({ length: 10 }, () => createPlant({ id: 2000, name: 'same' })));
    expect(same.map(({ status }) => status)).toEqual(Array(10).fill(200));
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, index) => createPlant({ id: 2001, name: `v${index}` })),
    );
    expect(racing.filter(({ status }) => status === 200)).toHaveLength(1);
    expect(racing.filter(({ status }) => status === 409)).toHaveLength(9);
  });
});

describe('authorization', () => {
  test('no Authorization header: 401 from the gateway without invoking the authorizer', async () => {
    const before = api.invocations('BearerAuthorizerFunction');
    expect(await createPlant({ id: 10, name: 'x' }, {})).toMatchObject({
      status: 401,
      body: { error: 401, message: 'Unauthorized' },
    });
    expect(await createPlant({ id: 10, name: 'x' }, { Authorization: 'Basic dXNlcjpwYXNz' })).toMatchObject({
      status: 401,
    });
    expect(api.invocations('BearerAuthorizerFunction')).toBe(before);
  });

  test('a token the issuer did not sign: 401 after the authorizer refused it', async () => {
    const before = api.invocations('BearerAuthorizerFunction');
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    expect(await createPlant({ id: 11, name: 'x' }, { Authorization: `Bearer ${forged}` })).toMatchObject({
      status: 401,
    });
    expect(api.invocations('BearerAuthorizerFunction')).toBe(before + 1);
  });

  test('a valid token without the required scope: 403', async () => {
    const readOnly = await signDevToken(api.signingKey, { sub: 'e2e', scope: 'plants/read', expiresIn: '1h' });
    expect(await createPlant({ id: 12, name: 'x' }, { Authorization: `Bearer ${readOnly}` })).toMatchObject({
      status: 403,
      body: { error: 403 },
    });
  });

  test('every 401 carries the bearer challenge, the 403 insufficient_scope (RFC 6750 section 3), as the template says', async () => {
    const [header, payload] = token.split('.');
    const readOnly = await signDevToken(api.signingKey, { sub: 'e2e', scope: 'plants/read', expiresIn: '1h' });
    const refusals: [Record<string, string>, number][] = [
      [{}, 401],
      [{ Authorization: 'Basic dXNlcjpwYXNz' }, 401],
      [{ Authorization: `Bearer ${header}.${payload}.${'A'.repeat(86)}` }, 401],
      [{ Authorization: `Bearer ${readOnly}` }, 403],
    ];
    const challenges = [];
    for (const [headers, status] of refusals) {
      const answer = await createPlant({ id: 14, name: 'x' }, headers);
      expect(answer.status).toBe(status);
      challenges.push(answer.headers.get('www-authenticate'));
    }

    expect(challenges).toEqual([
      'Bearer realm="Plant Store"',
      'Bearer realm="Plant Store"',
      'Bearer realm="Plant Store"',
      'Bearer realm="Plant Store", error="insufficient_scope", scope="plants/write"',
    ]);
  });

  test('an expired token: 401', async () => {
    const expired = await signDevToken(api.signingKey, { sub: 'e2e', scope: 'plants/write', expiresIn: -120 });
    expect(await createPlant({ id: 13, name: 'x' }, { Authorization: `Bearer ${expired}` })).toMatchObject({
      status: 401,
    });
  });
});

describe('the gateway', () => {
  // Routes no operation will have: a method openapi.yaml does not define on /plants, a path outside it, the root.
  const undefinedMethod = ['DELETE', 'PATCH', 'PUT', 'GET'].find(
    (method) => !contractOperations().some((operation) => operation.path === '/plants' && operation.method === method),
  );
  test.each([
    [undefinedMethod ?? 'every method is defined on /plants: pick another', '/plants'],
    ['POST', '/no-such-resource'],
    ['GET', '/'],
  ])('%s %s is 404 Not found (as JSON), with or without a token', async (method, path) => {
    for (const headers of [{}, { Authorization: `Bearer ${token}` }]) {
      const response = await fetch(`${api.url}${path}`, { method, headers });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({ error: 404, message: 'Not found' });
    }
  });
});

test('every create that got a 200 is still there after a restart with the same data folder', async () => {
  expect((await createPlant({ id: 3000, name: 'kept' })).status).toBe(200);
  await api.close();
  api = await startRunner(options);

  expect(await createPlant({ id: 3000, name: 'kept' })).toMatchObject({ status: 200 });
  expect(await createPlant({ id: 3000, name: 'changed' })).toMatchObject({ status: 409 });
  expect(await createPlant({ id: 1, name: 'Pothos' })).toMatchObject({ status: 409 });
}, 30_000);
