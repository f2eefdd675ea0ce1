// Generates, from an OpenAPI document (the project's openapi.yaml by default), what the client needs of it:
// - src/plant-store-api.d.ts, its types by openapi-typescript, every `format: int64` written as `bigint` (the usual
//   `number` cannot hold an int64 exactly beyond 2^53);
// - src/int64-fields.ts, where each operation's JSON answers hold an int64, so that the client reads them as bigint.
// `node generate.ts [openapi.yaml folder]` writes the files; `--check` fails when the committed ones are stale (npm test).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { parse } from 'yaml';

const check = process.argv.includes('--check');
const [
  openapi = fileURLToPath(new URL('../../openapi.yaml', import.meta.url)),
  folder = fileURLToPath(new URL('./src/', import.meta.url)),
] = process.argv.slice(2).filter((arg) => arg !== '--check');

type Schema = { [key: string]: unknown };
const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const document: unknown = parse(readFileSync(openapi, 'utf8'));
if (!isSchema(document)) throw new Error(`${openapi} is not an OpenAPI document`);
const components = isSchema(document.components) ? document.components : {};

/** The component a `#/components/<section>/<name>` reference names. */
const resolve = (node: unknown): unknown => {
  if (!isSchema(node) || typeof node.$ref !== 'string') return node;
  const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref) ?? [];
  const target = section && name && isSchema(components[section]) ? components[section][name] : undefined;
  if (target === undefined) throw new Error(`unresolved reference ${node.$ref}`);
  return resolve(target);
};

/**
 * The JSON paths of the int64 fields in a schema: property names, `*` for any array item or map value. A schema that
 * refers to itself is followed once per path.
 */
const int64Paths = (node: unknown, path: string[] = [], following: string[] = []): string[][] => {
  const ref = isSchema(node) && typeof node.$ref === 'string' ? node.$ref : undefined;
  if (ref && following.includes(ref)) return [];
  const schema = resolve(node);
  if (!isSchema(schema)) return [];
  const next = ref ? [...following, ref] : following;
  const nested = (child: unknown, at: string[]) => int64Paths(child, at, next);
  return [
    ...(schema.type === 'integer' && schema.format === 'int64' ? [path] : []),
    ...['allOf', 'anyOf', 'oneOf'].flatMap((key) =>
      Array.isArray(schema[key]) ? schema[key].flatMap((part: unknown) => nested(part, path)) : [],
    ),
    ...(isSchema(schema.properties)
      ? Object.entries(schema.properties).flatMap(([name, property]) => nested(property, [...path, name]))
      : []),
    ...(schema.items === undefined ? [] : nested(schema.items, [...path, '*'])),
    ...(isSchema(schema.additionalProperties) ? nested(schema.additionalProperties, [...path, '*']) : []),
  ];
};

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const fields: Record<string, Record<string, string[][]>> = {};
for (const [path, item] of Object.entries(isSchema(document.paths) ? document.paths : {})) {
  for (const method of methods) {
    const operation = isSchema(item) ? item[method] : undefined;
    const responses = isSchema(operation) && isSchema(operation.responses) ? operation.responses : {};
    for (const [status, response] of Object.entries(responses)) {
      const content = resolve(response);
      const json = isSchema(content) && isSchema(content.content) ? content.content['application/json'] : undefined;
      const found = isSchema(json) ? int64Paths(json.schema) : [];
      if (found.length > 0)
        fields[`${method.toUpperCase()} ${path}`] = { ...fields[`${method.toUpperCase()} ${path}`], [status]: found };
    }
  }
}

const files = {
  'plant-store-api.d.ts': astToString(
    await openapiTS(pathToFileURL(openapi), {
      transform: (schemaObject) =>
        schemaObject.format === 'int64' ? ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword) : undefined,
    }),
  ),
  'int64-fields.ts': [
    '// Generated from openapi.yaml by examples/typed-client/generate.ts: do not edit.',
    "// Where each operation's JSON answers hold an int64 (by method and path, then status): the client reads them as bigint.",
    '',
    `export const int64Fields: Readonly<Record<string, Readonly<Record<string, string[][]>>>> = ${JSON.stringify(fields)};`,
    '',
  ].join('\n'),
};

for (const [name, text] of Object.entries(files)) {
  const file = join(folder, name);
  if (!check) writeFileSync(file, text);
  else if (readFileSync(file, 'utf8') !== text) {
    console.error(`${file} is stale: run \`npm run generate\``);
    process.exit(1);
  }
}
