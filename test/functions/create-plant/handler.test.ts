// createPlant through its real Middy chain, storing in dynalite: every answer of the function, exactly.
import { readFileSync } from 'node:fs';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type CreatePlantHandler, loadCreatePlantHandler } from '../../helpers/create-plant-handler.ts';
import { databaseStartMs, dynaliteForHooks, type LocalDynamoDb, storedPlant } from '../../helpers/dynalite.ts';
import { createPlantEvent, lambdaContext } from '../../helpers/events.ts';
import { contractViolations, createPlantRequest } from '../../helpers/independent-contract.ts';

const tableName = 'plants-handler-test';
let db: LocalDynamoDb;
let handler: CreatePlantHandler;

const database = dynaliteForHooks(tableName);

beforeAll(async () => {
  db = await database.start();
  handler = await loadCreatePlantHandler(tableName, db.endpoint);
}, databaseStartMs);

afterAll(() => database.stop(), databaseStartMs);

/** Invokes the handler and checks the answer against openapi.yaml before returning it. */
const invoke = async (event: APIGatewayProxyEvent) => {
  const answer = await handler(event, lambdaContext('create-plant'));
  expect(contractViolations(answer, createPlantRequest)).toEqual([]);
  return { ...answer, json: JSON.parse(answer.body) as unknown };
};

/** Sends `body` as JSON text, exactly as written (so integers beyond 2^53 are not rounded by the test itself). */
const post = (body: unknown, headers?: Record<string, string>) =>
  invoke(createPlantEvent({ body, ...(headers && { headers }) }));

const storedItem = (id: string) => storedPlant(db.client, tableName, id);

const expectError = (answer: Awaited<ReturnType<typeof invoke>>, status: number, message: string) => {
  expect(answer.statusCode).toBe(status);
  expect(answer.json).toEqual({ error: status, message });
};

describe('creating a plant', () => {
  test('answers 200 with the stored plant and stores it with its creator and creation time', async () => {
    const answer = await post({ id: 1, name: 'Aloe vera', tag: 'succulent' });

    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(answer.json).toEqual({ name: 'Aloe vera', tag: 'succulent' });
    const item = await storedItem('1');
    expect(item).toEqual({
      id: { N: '1' },
      name: { S: 'Aloe vera' },
      tag: { S: 'succulent' },
      createdBy: { S: 'user-1' },
      createdAt: { S: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
    });
  });

  test('answers a plant without tag with the name alone', async () => {
    const answer = await post({ id: 2, name: 'Fern' });

    expect(answer.json).toEqual({ name: 'Fern' });
    expect((await storedItem('2'))?.tag).toBeUndefined();
  });

  test('ignores fields the schema does not name and does not store them', async () => {
    const answer = await post({ id: 3, name: 'Ivy', colour: 'green', nested: { a: 1 } });

    expect(answer.json).toEqual({ name: 'Ivy' });
    expect(Object.keys((await storedItem('3')) ?? {}).sort()).toEqual(['createdAt', 'createdBy', 'id', 'name']);
  });

  test('accepts any JSON media type and header case, and base64 bodies', async () => {
    const headers = { 'CONTENT-TYPE': 'application/merge-patch+json; charset=utf-8' };
    expect((await post({ id: 4, name: 'Moss' }, headers)).statusCode).toBe(200);

    const base64 = Buffer.from(JSON.stringify({ id: 5, name: 'Mint' })).toString('base64');
    const answer = await invoke(createPlantEvent({ body: base64, isBase64Encoded: true }));
    expect(answer.json).toEqual({ name: 'Mint' });
  });
});

test('the example event for `sam local invoke` (examples/events) creates its plant', async () => {
  const event = JSON.parse(
    readFileSync(new URL('../../../examples/events/create-plant.json', import.meta.url), 'utf8'),
  );

  const answer = await invoke(event);

  expect(answer.json).toEqual({ name: 'Monstera deliciosa', tag: 'aroid' });
  expect((await storedItem('4242424242424242424'))?.createdBy).toEqual({ S: 'example-client' });
});

describe('retrying a create', () => {
  test('the same id with the same name and tag answers 200 with the stored plant and changes nothing', async () => {
    await post({ id: 10, name: 'Basil', tag: 'herb' });
    const before = await storedItem('10');

    const answer = await invoke(
      createPlantEvent({ body: { id: 10, name: 'Basil', tag: 'herb' }, principalId: 'other' }),
    );

    expect(answer.statusCode).toBe(200);
    expect(answer.json).toEqual({ name: 'Basil', tag: 'herb' });
    expect(await storedItem('10')).toEqual(before);
  });

  test('the same id with another name or tag answers 409 and keeps the stored plant', async () => {
    await post({ id: 11, name: 'Sage', tag: 'herb' });

    expectError(
      await post({ id: 11, name: 'Thyme', tag: 'herb' }),
      409,
      'A plant with id 11 already exists with a different name or tag',
    );
    expectError(
      await post({ id: 11, name: 'Sage' }),
      409,
      'A plant with id 11 already exists with a different name or tag',
    );
    expect((await storedItem('11'))?.name).toEqual({ S: 'Sage' });
  });
});

describe('int64 ids are stored exactly', () => {
  test.each([['9223372036854775807'], ['-9223372036854775808'], ['9007199254740993'], ['-9007199254740993'], ['0']])(
    '%s is stored digit for digit',
    async (id) => {
      const answer = await post(`{"id": ${id}, "name": "Plant ${id}"}`);

      expect(answer.statusCode).toBe(200);
      expect((await storedItem(id))?.id).toEqual({ N: id });
    },
  );

  test('two ids that differ only beyond 2^53 are two plants', async () => {
    await post('{"id": 9007199254740994, "name": "first"}');
    await post('{"id": 9007199254740995, "name": "second"}');

    expect((await storedItem('9007199254740994'))?.name).toEqual({ S: 'first' });
    expect((await storedItem('9007199254740995'))?.name).toEqual({ S: 'second' });
  });

  test('integers written with a fraction or exponent are the integers they denote', async () => {
    expect((await post('{"id": 20.0, "name": "a"}')).statusCode).toBe(200);
    expect((await post('{"id": 2.1e1, "name": "b"}')).statusCode).toBe(200);
    expect((await post('{"id": 9.223372036854775806e18, "name": "c"}')).statusCode).toBe(200);

    expect((await storedItem('20'))?.name).toEqual({ S: 'a' });
    expect((await storedItem('21'))?.name).toEqual({ S: 'b' });
    expect((await storedItem('9223372036854775806'))?.name).toEqual({ S: 'c' });
  });
});

describe('bad requests answer 400 naming the field and the rule', () => {
  const int64Rule = 'id: must be an integer in the int64 range';

  test.each([
    ['a number beyond int64', '{"id": 9223372036854775808, "name": "x"}', int64Rule],
    ['a number below int64', '{"id": -9223372036854775809, "name": "x"}', int64Rule],
    ['a huge number', '{"id": 1e300, "name": "x"}', int64Rule],
    ['a fraction', '{"id": 1.5, "name": "x"}', int64Rule],
    ['a fraction a double would round to an integer', '{"id": 1.00000000000000000001, "name": "x"}', int64Rule],
    ['a string of digits (no type coercion)', '{"id": "1", "name": "x"}', int64Rule],
    ['null', '{"id": null, "name": "x"}', int64Rule],
    ['a missing id', '{"name": "x"}', 'id: is required'],
    ['a missing name', '{"id": 1}', 'name: is required'],
    ['a name that is not a string', '{"id": 1, "name": 5}', 'name: must be string'],
    ['a tag that is not a string', '{"id": 1, "name": "x", "tag": null}', 'tag: must be string'],
    ['several problems', '{"tag": 1}', 'name: is required; tag: must be string; id: is required'],
    ['an array body', '[{"id": 1, "name": "x"}]', 'request body: must be a JSON object'],
    ['a string body', '"plant"', 'request body: must be a JSON object'],
    ['malformed JSON', '{"id": 1, "name": ', 'request body: is not valid JSON'],
    [
      'a __proto__ key',
      '{"id": 1, "name": "x", "__proto__": {"admin": true}}',
      'request body: the key "__proto__" is not allowed',
    ],
    ['a lone surrogate in the name', '{"id": 1, "name": "\\ud800"}', 'name: must be well-formed Unicode text'],
  ])('%s', async (_case, body, message) => {
    expectError(await post(body), 400, message);
  });

  test('no body at all', async () => {
    expectError(await invoke(createPlantEvent()), 400, 'request body: must be a JSON object');
  });
});

describe('bodies are read as UTF-8 JSON, and never altered', () => {
  /** The body's bytes, as API Gateway forwards them for a binary media type (the stack sets `*\/*`). */
  const postBytes = (bytes: Buffer, contentType = 'application/json') =>
    invoke(
      createPlantEvent({
        body: bytes.toString('base64'),
        isBase64Encoded: true,
        headers: { 'Content-Type': contentType },
      }),
    );
  const withName = (...nameBytes: number[]) =>
    Buffer.concat([Buffer.from('{"id": 50, "name": "Caf'), Buffer.from(nameBytes), Buffer.from('"}')]);

  test.each([
    ['a Latin-1 byte (E9)', [0xe9]],
    ['FF', [0xff]],
    ['a truncated sequence (C3 28)', [0xc3, 0x28]],
    ['an encoded surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
    ['an overlong form (C0 AF)', [0xc0, 0xaf]],
    ['a code point beyond U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
  ])('invalid UTF-8 answers 400 and stores nothing: %s', async (_case, bytes) => {
    expectError(await postBytes(withName(...bytes)), 400, 'request body: is not valid UTF-8');
    expect(await storedItem('50')).toBeUndefined();
  });

  test('valid UTF-8 is stored exactly as sent', async () => {
    expect((await postBytes(withName(0xc3, 0xa9))).statusCode).toBe(200);
    expect((await storedItem('50'))?.name).toEqual({ S: 'Café' });
  });

  test.each([
    ['whitespace before the parameters', 'application/json ; charset=utf-8'],
    ['an upper-case charset', 'application/json;charset=UTF-8'],
    ['a quoted charset', 'application/json; charset="utf-8"'],
    ['upper-case type', 'Application/JSON'],
  ])('a valid JSON media type is accepted: %s', async (_case, contentType) => {
    expect((await post({ id: 51, name: 'Tansy' }, { 'Content-Type': contentType })).statusCode).toBe(200);
  });

  test('a charset other than utf-8 answers 415', async () => {
    expectError(
      await post({ id: 52, name: 'x' }, { 'Content-Type': 'application/json; charset=iso-8859-1' }),
      415,
      'Content-Type charset must be utf-8, not iso-8859-1',
    );
  });

  test('nesting deeper than 64 levels answers 400 saying so; 64 levels are read', async () => {
    const nested = (levels: number) =>
      `{"id": 53, "name": "x", "extra": ${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expectError(await post(nested(5000)), 400, 'request body: is nested deeper than 64 levels');
    expectError(await post(nested(65)), 400, 'request body: is nested deeper than 64 levels');
    expect((await post(nested(64))).statusCode).toBe(200);
  });

  test('brackets inside strings do not count as nesting', async () => {
    expect((await post({ id: 54, name: `${'['.repeat(100)}"{{` })).statusCode).toBe(200);
    expect((await storedItem('54'))?.name).toEqual({ S: `${'['.repeat(100)}"{{` });
  });

  test.each([
    ['__proto__ deep down', '{"id": 55, "name": "x", "a": {"b": [{"__proto__": {}}]}}', '__proto__'],
    ['constructor.prototype', '{"id": 55, "name": "x", "constructor": {"prototype": {}}}', 'constructor'],
    [
      'constructor.prototype deep down',
      '{"id": 55, "name": "x", "a": [{"constructor": {"prototype": 1}}]}',
      'constructor',
    ],
  ])('keys that could pollute prototypes are refused (documented): %s', async (_case, body, key) => {
    expectError(await post(body), 400, `request body: the key "${key}" is not allowed`);
  });
});

describe('what the function refuses before parsing', () => {
  test('a Content-Type that is not JSON answers 415', async () => {
    expectError(
      await post('{"id": 30, "name": "x"}', { 'Content-Type': 'text/plain' }),
      415,
      'Content-Type must be application/json',
    );
    expectError(await post('{"id": 30, "name": "x"}', {}), 415, 'Content-Type must be application/json');
  });

  test('a body over 64 KiB answers 413; one of exactly 64 KiB is parsed', async () => {
    const sized = (bytes: number) => {
      const start = '{"id": 31, "name": "';
      return `${start}${'x'.repeat(bytes - start.length - 2)}"}`;
    };
    expectError(await post(sized(65_537)), 413, 'Request body is 65537 bytes; the limit is 65536 bytes');
    expect((await post(sized(65_536))).statusCode).toBe(200);
  });
});

describe('failures of the store', () => {
  test('an unexpected failure answers 500 with a generic message and no internals', async () => {
    await db.client.send(new DeleteTableCommand({ TableName: tableName }));

    const answer = await post({ id: 40, name: 'x' });

    expectError(answer, 500, 'Internal server error');
    expect(answer.body).not.toMatch(/ResourceNotFound|table|dynamo/i);
  });
});
