// openapi.yaml is the single source of each operation's validator and types: the committed generated code must be
// what it generates, and any contract's operations each get theirs, by operationId.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { stringify } from 'yaml';
import { projectRoot } from '../../../infra/project-root.ts';
import {
  generate,
  generatedFilesIn,
  productContract,
  productOutputDir,
  validatorFile,
} from '../../../tools/contract/generate.ts';
import { contractOperations } from '../../helpers/contract-operations.ts';

describe.each([
  ['the product', productContract, productOutputDir],
  [
    'the extended fixture app',
    join(projectRoot, 'test/fixtures/extended-app/openapi.yaml'),
    join(projectRoot, 'test/fixtures/extended-app/functions/commons/contract'),
  ],
])('%s', (_app, contract, outputDir) => {
  test('the committed generated code is what its contract generates (run `npm run generate`)', async () => {
    const generated = await generate(contract);
    for (const [name, text] of Object.entries(generated)) {
      expect([name, await readFile(join(outputDir, name), 'utf8')]).toEqual([name, text]);
    }
    // Nothing generated for an operation that is gone.
    expect((await generatedFilesIn(outputDir)).sort()).toEqual(Object.keys(generated).sort());
  });
});

describe('a contract with several operations (test/fixtures/extended-app/openapi.yaml)', () => {
  const contract = join(projectRoot, 'test/fixtures/extended-app/openapi.yaml');
  type Validate = ((event: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
  let outputDir: string;
  let validators: Record<'createThing' | 'getThing' | 'getFile', Validate>;
  // In a hook, not the describe body: a run of other tests (-t) neither generates nor imports after the teardown.
  beforeAll(async () => {
    outputDir = mkdtempSync(join(tmpdir(), 'plant-store-generate-'));
    // As `npm run generate` runs it, for another contract and folder.
    await promisify(execFile)(process.execPath, ['tools/contract/generate.ts', contract, outputDir], {
      cwd: projectRoot,
    });
    const load = async (operationId: string) =>
      (await import(join(outputDir, validatorFile(operationId)))).default as Validate;
    validators = {
      createThing: await load('createThing'),
      getThing: await load('getThing'),
      getFile: await load('getFile'),
    };
  });
  afterAll(() => rmSync(outputDir, { recursive: true, force: true }));
  const problems = (validate: Validate, event: unknown) =>
    validate(event) ? [] : (validate.errors ?? []).map(({ instancePath, message }) => `${instancePath} ${message}`);

  test('one validator and its types per operation, by operationId, and the event types', async () => {
    // Counted from the contract, so that the fixture may gain operations: getThing -> validate-get-thing-event.
    const perOperation = contractOperations(contract).flatMap(({ operationId }) => {
      const name = `validate-${operationId.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}-event`;
      return [`${name}.d.ts`, `${name}.js`];
    });
    expect(perOperation).toEqual(expect.arrayContaining(['validate-get-thing-event.js', 'validate-get-file-event.js']));
    expect((await generatedFilesIn(outputDir)).sort()).toEqual(
      ['openapi-types.ts', 'operation-scopes.ts', ...perOperation].sort(),
    );
    const types = readFileSync(join(outputDir, 'openapi-types.ts'), 'utf8');
    expect(types).toContain('export interface CreateThingEvent {\nbody: NewThing\n}');
    expect(types).toMatch(
      /export interface GetThingEvent \{\npathParameters: \{\nid: string\n\}\nqueryStringParameters\?: \(null \| \{\nfields\?: string\n\}\)\n\}/,
    );
    expect(readFileSync(join(outputDir, 'validate-get-file-event.d.ts'), 'utf8')).toContain(
      'declare const validate: ValidateFunction<GetFileEvent>;',
    );
  });

  test('the request body, from its schema (int64 exact, as the JSON body parser hands it over)', () => {
    const { createThing } = validators;
    expect(problems(createThing, { body: { id: 9223372036854775807n, name: 'a' } })).toEqual([]);
    expect(problems(createThing, { body: { id: 9223372036854775808n, name: 'a' } })).toEqual([
      '/body/id must be an integer in the int64 range',
    ]);
    expect(problems(createThing, { body: { id: 1, name: '' } })).toEqual([
      '/body/name must NOT have fewer than 1 characters',
    ]);
    expect(problems(createThing, { body: null })).toEqual(['/body must be object']);
  });

  test('a path parameter (from the path item, by $ref): an int64 in its decimal text', () => {
    const { getThing } = validators;
    const event = (id: string) => ({ pathParameters: { id }, queryStringParameters: null });
    expect(problems(getThing, event('-9223372036854775808'))).toEqual([]);
    expect(problems(getThing, event('9223372036854775808'))).toEqual([
      '/pathParameters/id must be an integer in the int64 range',
    ]);
    expect(problems(getThing, event('1.5'))).toEqual(['/pathParameters/id must be an integer in the int64 range']);
    expect(problems(getThing, event('01'))).toEqual(['/pathParameters/id must be an integer in the int64 range']);
  });

  test('query parameters: optional ones may be absent (null), present ones are checked', () => {
    const { getThing } = validators;
    const event = (query: unknown) => ({ pathParameters: { id: '1' }, queryStringParameters: query });
    expect(problems(getThing, event(null))).toEqual([]);
    expect(problems(getThing, event({ fields: 'all', other: 'x' }))).toEqual([]);
    expect(problems(getThing, event({ fields: 'some' }))).toEqual([
      '/queryStringParameters/fields must be equal to one of the allowed values',
    ]);
  });

  test('a greedy path parameter and a required int32 query parameter', () => {
    const { getFile } = validators;
    expect(
      problems(getFile, { pathParameters: { proxy: 'a/b.txt' }, queryStringParameters: { version: '3' } }),
    ).toEqual([]);
    expect(problems(getFile, { pathParameters: { proxy: 'a/b.txt' }, queryStringParameters: null })).toEqual([
      '/queryStringParameters must be object',
    ]);
    expect(
      problems(getFile, { pathParameters: { proxy: 'a' }, queryStringParameters: { version: '2147483648' } }),
    ).toEqual(['/queryStringParameters/version must be an integer in the int32 range']);
  });
});

describe('parameter ranges and defaults, checked on the text the event carries', () => {
  const contractWith = (parameters: unknown[]) => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-contract-'));
    const file = join(folder, 'openapi.yaml');
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'pages', version: '1' },
        security: [{ bearerAuth: [] }],
        paths: {
          '/plants': { get: { operationId: 'listPlants', parameters, responses: { 200: { description: 'a page' } } } },
        },
      }),
    );
    return file;
  };
  const listPlants = async (parameters: unknown[]) => {
    const outputDir = mkdtempSync(join(tmpdir(), 'plant-store-generate-'));
    const generated = await generate(contractWith(parameters));
    for (const [name, text] of Object.entries(generated)) writeFileSync(join(outputDir, name), text);
    const validate = (await import(join(outputDir, validatorFile('listPlants')))).default as ((
      event: unknown,
    ) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
    return { validate, types: generated['openapi-types.ts'] ?? '' };
  };
  const page = [
    { name: 'limit', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 } },
    {
      name: 'after',
      in: 'query',
      schema: { type: 'integer', format: 'int64', exclusiveMinimum: 0 },
    },
    { name: 'tagged', in: 'query', schema: { type: 'boolean', default: false } },
    { name: 'order', in: 'query', schema: { type: 'string', enum: ['id', 'name'], default: 'id' } },
  ];

  test('an absent parameter gets its default, as text; a present one is checked against its range', async () => {
    const { validate } = await listPlants(page);
    const check = (query: Record<string, string>) => {
      const event = { queryStringParameters: { ...query } };
      const valid = validate(event);
      return valid ? event.queryStringParameters : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    };
    expect(check({})).toEqual({ limit: '20', tagged: 'false', order: 'id' });
    expect(check({ limit: '100', after: '9223372036854775807', tagged: 'true', order: 'name' })).toEqual({
      limit: '100',
      after: '9223372036854775807',
      tagged: 'true',
      order: 'name',
    });
    expect(check({ limit: '0' })).toEqual(['/queryStringParameters/limit must be from 1 to 100']);
    expect(check({ limit: '101' })).toEqual(['/queryStringParameters/limit must be from 1 to 100']);
    expect(check({ limit: 'ten' })).toEqual(['/queryStringParameters/limit must be an integer in the int32 range']);
    // Both are true of it, and both are said.
    expect(check({ limit: '99999999999' })).toEqual([
      '/queryStringParameters/limit must be an integer in the int32 range',
      '/queryStringParameters/limit must be from 1 to 100',
    ]);
    expect(check({ after: '0' })).toEqual(['/queryStringParameters/after must be > 0']);
    expect(check({ after: '-9223372036854775808' })).toEqual(['/queryStringParameters/after must be > 0']);
  });

  test('a parameter with a default is typed as present; the parameters object must be there for it', async () => {
    const { validate, types } = await listPlants(page);
    expect(types).toContain(
      'queryStringParameters: {\nlimit: string\nafter?: string\ntagged: string\norder: string\n}',
    );
    expect(validate({ queryStringParameters: null })).toBe(false);
  });

  test('a default its own schema refuses, and a keyword the generator cannot check on text, stop the generation', async () => {
    await expect(
      listPlants([{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 0 } }]),
    ).rejects.toThrow('GET /plants parameter limit: its default "0" does not satisfy its own schema');
    await expect(
      listPlants([{ name: 'after', in: 'query', schema: { type: 'integer', minimum: 2 ** 63 } }]),
    ).rejects.toThrow('GET /plants query parameter after: minimum must be an integer within ±(2^53 - 1)');
    await expect(
      listPlants([{ name: 'limit', in: 'query', schema: { type: 'integer', multipleOf: 10 } }]),
    ).rejects.toThrow('GET /plants query parameter limit: multipleOf is not supported for parameters');
  });
});

describe("each operation's scopes, from its security requirement", () => {
  const contractWith = (security: unknown, operationSecurity: unknown) => {
    const file = join(mkdtempSync(join(tmpdir(), 'plant-store-contract-')), 'openapi.yaml');
    const responses = { 200: { description: 'ok' } };
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'scopes', version: '1' },
        ...(security !== undefined && { security }),
        paths: {
          '/plants': {
            get: { operationId: 'listPlants', responses },
            post: {
              operationId: 'createPlant',
              responses,
              ...(operationSecurity !== undefined && { security: operationSecurity }),
            },
          },
          '/plants/{id}': { delete: { operationId: 'deletePlant', security: [{ bearerAuth: [] }], responses } },
        },
      }),
    );
    return file;
  };

  test("an operation's own requirement replaces the document's; bearerAuth: [] is any valid token", async () => {
    const outputDir = mkdtempSync(join(tmpdir(), 'plant-store-generate-'));
    const generated = await generate(
      contractWith([{ bearerAuth: ['plants/read'] }], [{ bearerAuth: ['plants/write', 'plants/audit'] }]),
    );
    const text = generated['operation-scopes.ts'] ?? '';
    expect(text).toContain(
      '{"operationId":"createPlant","method":"POST","path":"/plants","scopes":["plants/write","plants/audit"]}',
    );
    writeFileSync(join(outputDir, 'operation-scopes.ts'), text);
    const { operationScopes } = await import(join(outputDir, 'operation-scopes.ts'));
    expect(operationScopes).toEqual([
      { operationId: 'listPlants', method: 'GET', path: '/plants', scopes: ['plants/read'] },
      { operationId: 'createPlant', method: 'POST', path: '/plants', scopes: ['plants/write', 'plants/audit'] },
      { operationId: 'deletePlant', method: 'DELETE', path: '/plants/{id}', scopes: [] },
    ]);
  });

  test.each([
    [[{ bearerAuth: ['a'] }, { apiKey: [] }], 'POST /plants: security must be one requirement of one scheme'],
    [[{ bearerAuth: ['a'], apiKey: [] }], 'POST /plants: security must be one requirement of one scheme'],
    [[{ bearerAuth: ['plants write'] }], 'POST /plants: ["plants write"] are not OAuth scope tokens'],
    // OpenAPI: an empty list makes the operation public; every route here is behind the authorizer.
    [[], 'POST /plants: no security requirement, but every route needs a bearer token'],
  ])('what one bearer token cannot satisfy stops the generation: %j', async (security, message) => {
    await expect(generate(contractWith([{ bearerAuth: [] }], security))).rejects.toThrow(message);
  });
});
