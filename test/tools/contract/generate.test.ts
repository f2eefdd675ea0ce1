// openapi.yaml is the single source of each operation's validator and types: the committed generated code must be
// what it generates, and any contract's operations each get theirs, by operationId.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../../infra/project-root.ts';
import {
  generate,
  generatedFilesIn,
  productContract,
  productOutputDir,
  validatorFile,
} from '../../../tools/contract/generate.ts';

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
  const outputDir = mkdtempSync(join(tmpdir(), 'plant-store-generate-'));
  type Validate = ((event: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
  const validators = (async () => {
    // As `npm run generate` runs it, for another contract and folder.
    await promisify(execFile)(process.execPath, ['tools/contract/generate.ts', contract, outputDir], {
      cwd: projectRoot,
    });
    const load = async (operationId: string) =>
      (await import(join(outputDir, validatorFile(operationId)))).default as Validate;
    return { createThing: await load('createThing'), getThing: await load('getThing'), getFile: await load('getFile') };
  })();
  const problems = (validate: Validate, event: unknown) =>
    validate(event) ? [] : (validate.errors ?? []).map(({ instancePath, message }) => `${instancePath} ${message}`);

  test('one validator and its types per operation, by operationId, and the event types', async () => {
    await validators;
    expect((await generatedFilesIn(outputDir)).sort()).toEqual([
      'openapi-types.ts',
      'validate-create-thing-event.d.ts',
      'validate-create-thing-event.js',
      'validate-get-file-event.d.ts',
      'validate-get-file-event.js',
      'validate-get-thing-event.d.ts',
      'validate-get-thing-event.js',
    ]);
    const types = readFileSync(join(outputDir, 'openapi-types.ts'), 'utf8');
    expect(types).toContain('export interface CreateThingEvent {\nbody: NewThing\n}');
    expect(types).toMatch(
      /export interface GetThingEvent \{\npathParameters: \{\nid: string\n\}\nqueryStringParameters\?: \(null \| \{\nfields\?: string\n\}\)\n\}/,
    );
    expect(readFileSync(join(outputDir, 'validate-get-file-event.d.ts'), 'utf8')).toContain(
      'declare const validate: ValidateFunction<GetFileEvent>;',
    );
  });

  test('the request body, from its schema (int64 exact, as the JSON body parser hands it over)', async () => {
    const { createThing } = await validators;
    expect(problems(createThing, { body: { id: 9223372036854775807n, name: 'a' } })).toEqual([]);
    expect(problems(createThing, { body: { id: 9223372036854775808n, name: 'a' } })).toEqual([
      '/body/id must be an integer in the int64 range',
    ]);
    expect(problems(createThing, { body: { id: 1, name: '' } })).toEqual([
      '/body/name must NOT have fewer than 1 characters',
    ]);
    expect(problems(createThing, { body: null })).toEqual(['/body must be object']);
  });

  test('a path parameter (from the path item, by $ref): an int64 in its decimal text', async () => {
    const { getThing } = await validators;
    const event = (id: string) => ({ pathParameters: { id }, queryStringParameters: null });
    expect(problems(getThing, event('-9223372036854775808'))).toEqual([]);
    expect(problems(getThing, event('9223372036854775808'))).toEqual([
      '/pathParameters/id must be an integer in the int64 range',
    ]);
    expect(problems(getThing, event('1.5'))).toEqual(['/pathParameters/id must be an integer in the int64 range']);
    expect(problems(getThing, event('01'))).toEqual(['/pathParameters/id must be an integer in the int64 range']);
  });

  test('query parameters: optional ones may be absent (null), present ones are checked', async () => {
    const { getThing } = await validators;
    const event = (query: unknown) => ({ pathParameters: { id: '1' }, queryStringParameters: query });
    expect(problems(getThing, event(null))).toEqual([]);
    expect(problems(getThing, event({ fields: 'all', other: 'x' }))).toEqual([]);
    expect(problems(getThing, event({ fields: 'some' }))).toEqual([
      '/queryStringParameters/fields must be equal to one of the allowed values',
    ]);
  });

  test('a greedy path parameter and a required int32 query parameter', async () => {
    const { getFile } = await validators;
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
