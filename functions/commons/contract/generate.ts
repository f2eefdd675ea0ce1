// Generates the code that openapi.yaml is the single source of: the TypeScript types of its schemas and the
// NewPlant request validator, compiled ahead of time (ajv standalone code, so no Ajv and no compile at cold start).
// Run `npm run generate` after changing openapi.yaml; a test fails while the committed output is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { _, Ajv2020, type KeywordCxt } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { parse } from 'yaml';

const here = new URL('./', import.meta.url);
const openapiFile = new URL('../../../openapi.yaml', import.meta.url);
const outputs = {
  types: new URL('openapi-types.ts', here),
  validator: new URL('validate-create-plant-event.js', here),
};

type Schema = { [key: string]: unknown };

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Copies a schema tree, letting `visit` replace each object node (after its children were copied). */
const mapSchema = (node: unknown, visit: (node: Schema) => Schema): unknown => {
  if (Array.isArray(node)) return node.map((item) => mapSchema(item, visit));
  if (!isSchema(node)) return node;
  return visit(Object.fromEntries(Object.entries(node).map(([key, value]) => [key, mapSchema(value, visit)])));
};

const refPrefix = '#/components/schemas/';
const isInt64 = (node: Schema) => node.type === 'integer' && node.format === 'int64';

/** The component schemas `name` needs: itself and everything it references, transitively. */
const schemasNeededBy = (name: string, all: Schema, needed = new Set<string>()): Set<string> => {
  needed.add(name);
  JSON.stringify(all[name], (key, value: unknown) => {
    if (key === '$ref' && typeof value === 'string') {
      const target = value.slice(refPrefix.length);
      if (!needed.has(target)) schemasNeededBy(target, all, needed);
    }
    return value;
  });
  return needed;
};

// JSON numbers reach the validator as the request body parser makes them (functions/commons/json-body.ts):
// a number for integers within ±2^53, an exact bigint beyond. No JSON Schema type admits a bigint, so int64 is
// checked by this keyword, which accepts exactly the integers a signed 64-bit field can hold.
const int64Keyword = {
  keyword: 'int64',
  schemaType: 'boolean',
  error: { message: 'must be an integer in the int64 range' },
  code(cxt: KeywordCxt) {
    const { data } = cxt;
    cxt.fail(
      _`typeof ${data} == "bigint" ? ${data} < -9223372036854775808n || ${data} > 9223372036854775807n : !Number.isSafeInteger(${data})`,
    );
  },
} as const;

export const generate = async (): Promise<Record<keyof typeof outputs, string>> => {
  const openapi: unknown = parse(await readFile(openapiFile, 'utf8'));
  const components = isSchema(openapi) && isSchema(openapi.components) ? openapi.components.schemas : undefined;
  if (!isSchema(components)) throw new Error('openapi.yaml has no components.schemas');

  const asDefs = (names: Iterable<string>, visit: (node: Schema) => Schema) =>
    Object.fromEntries(
      [...names].map((name) => [
        name,
        mapSchema(components[name], (node) =>
          visit(
            typeof node.$ref === 'string' ? { ...node, $ref: `#/$defs/${node.$ref.slice(refPrefix.length)}` } : node,
          ),
        ),
      ]),
    );

  const ajv = new Ajv2020({ allErrors: true, strict: true, code: { source: true, esm: true, optimize: true } });
  ajv.addKeyword(int64Keyword);
  const createPlantEvent = {
    $id: 'CreatePlantEvent',
    description: 'A Lambda proxy event whose body the JSON body parser has parsed into a NewPlant',
    type: 'object',
    required: ['body'],
    properties: { body: { $ref: '#/$defs/NewPlant' } },
    $defs: asDefs(schemasNeededBy('NewPlant', components), (node) => {
      if (!isInt64(node)) return node;
      const { type: _type, format: _format, ...rest } = node;
      return { ...rest, int64: true };
    }),
  };
  const validator = `// Generated from openapi.yaml by functions/commons/contract/generate.ts: do not edit.\n${standaloneCode.default(ajv, ajv.compile(createPlantEvent))}`;

  const types = await compile(
    {
      title: 'Schemas',
      description: 'The component schemas of openapi.yaml',
      type: 'object',
      properties: Object.fromEntries(Object.keys(components).map((name) => [name, { $ref: `#/$defs/${name}` }])),
      required: Object.keys(components),
      additionalProperties: false,
      $defs: asDefs(Object.keys(components), (node) =>
        // Exact integers beyond 2^53 arrive as bigint (see int64Keyword).
        isInt64(node) ? { ...node, tsType: 'number | bigint' } : node,
      ),
    } as JSONSchema,
    'Schemas',
    {
      additionalProperties: false,
      bannerComment: '// Generated from openapi.yaml by functions/commons/contract/generate.ts: do not edit.',
      format: false,
      unreachableDefinitions: false,
    },
  );
  return { types, validator };
};

if (import.meta.main) {
  const generated = await generate();
  for (const [name, text] of Object.entries(generated)) {
    await writeFile(outputs[name as keyof typeof outputs], text);
  }
}

export { outputs };
