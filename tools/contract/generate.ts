// Generates the code that an OpenAPI document is the single source of: the TypeScript types of its schemas and of
// each operation's event, and for each operation (by its operationId) a validator of the Lambda proxy event: its
// request body, path parameters and query parameters, compiled ahead of time (ajv standalone code, so no Ajv and no
// compile at cold start). Run `npm run generate` after changing openapi.yaml; a test fails while the committed output
// is stale. `node tools/contract/generate.ts <openapi.yaml> <folder>` generates another contract's.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _, Ajv2020, type KeywordCxt } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { parse } from 'yaml';

const banner = '// Generated from openapi.yaml by tools/contract/generate.ts: do not edit.';
export const productContract = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
export const productOutputDir = fileURLToPath(new URL('../../functions/commons/contract/', import.meta.url));

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

/** The component schemas `schema` needs: everything it references, transitively. */
const schemasNeededBy = (schema: unknown, all: Schema, needed = new Set<string>()): Set<string> => {
  JSON.stringify(schema, (key, value: unknown) => {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(refPrefix)) {
      const target = value.slice(refPrefix.length);
      if (!needed.has(target)) {
        needed.add(target);
        schemasNeededBy(all[target], all, needed);
      }
    }
    return value;
  });
  return needed;
};

/** Component references as local `$defs` references. */
const toDefs = (node: Schema): Schema =>
  typeof node.$ref === 'string' && node.$ref.startsWith(refPrefix)
    ? { ...node, $ref: `#/$defs/${node.$ref.slice(refPrefix.length)}` }
    : node;

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

// Path and query parameters reach the function as strings (the Lambda proxy event). An integer parameter is a
// string of decimal digits, within the range of its format.
const integerTextKeyword = {
  keyword: 'integerText',
  schemaType: 'string',
  error: {
    message: ({ schema }: { schema: unknown }) =>
      `must be an integer${schema === 'any' ? '' : ` in the ${String(schema)} range`}`,
  },
  code(cxt: KeywordCxt) {
    const { data, schema } = cxt;
    const digits = _`/^-?(0|[1-9][0-9]*)$/.test(${data})`;
    if (schema === 'int32') cxt.fail(_`!${digits} || BigInt(${data}) < -2147483648n || BigInt(${data}) > 2147483647n`);
    else if (schema === 'int64')
      cxt.fail(_`!${digits} || BigInt(${data}) < -9223372036854775808n || BigInt(${data}) > 9223372036854775807n`);
    else cxt.fail(_`!${digits}`);
  },
} as const;

/** An integer parameter's `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, compared exactly on its text. */
type IntegerBounds = Partial<Record<'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum', number>>;

/** The range as a client reads it: "must be from 1 to 100", "must be >= 1", "must be > 0". */
const describeBounds = ({ minimum, maximum, exclusiveMinimum, exclusiveMaximum }: IntegerBounds) => {
  if (minimum !== undefined && maximum !== undefined) return `must be from ${minimum} to ${maximum}`;
  const limits = [
    minimum !== undefined && `>= ${minimum}`,
    exclusiveMinimum !== undefined && `> ${exclusiveMinimum}`,
    maximum !== undefined && `<= ${maximum}`,
    exclusiveMaximum !== undefined && `< ${exclusiveMaximum}`,
  ].filter(Boolean);
  return `must be ${limits.join(' and ')}`;
};

// The bounds of an integer parameter, checked on its text as a bigint (so an int64 bound is exact); text that is not
// an integer is integerText's to refuse.
const integerBoundsKeyword = {
  keyword: 'integerBounds',
  schemaType: 'object',
  error: { message: ({ schema }: { schema: unknown }) => describeBounds(schema as IntegerBounds) },
  code(cxt: KeywordCxt) {
    const { data } = cxt;
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = cxt.schema as IntegerBounds;
    const value = _`BigInt(${data})`;
    const outside = [
      minimum !== undefined && _`${value} < BigInt(${minimum})`,
      exclusiveMinimum !== undefined && _`${value} <= BigInt(${exclusiveMinimum})`,
      maximum !== undefined && _`${value} > BigInt(${maximum})`,
      exclusiveMaximum !== undefined && _`${value} >= BigInt(${exclusiveMaximum})`,
    ].filter((condition) => condition !== false);
    cxt.fail(
      _`/^-?(0|[1-9][0-9]*)$/.test(${data}) && (${outside.reduce((all, condition) => _`${all} || ${condition}`)})`,
    );
  },
} as const;

/**
 * ajv's standalone code asks for its runtime helpers with `require` even when it writes an ES module (ajv issue
 * #2209, open), which fails in an ESM bundle at cold start. The helpers a schema of ours can need are inlined here;
 * any other stops the generation, naming it.
 */
const inlinedRuntime: Record<string, string> = {
  // The length in code points, a surrogate pair counting once: what JSON Schema's minLength and maxLength count.
  ucs2length: '((text) => { let length = 0; for (const _ of text) length += 1; return length; })',
};
const withoutRequire = (code: string) =>
  code.replace(/require\("ajv\/dist\/runtime\/(\w+)"\)\.default/g, (_match, helper: string) => {
    const inlined = inlinedRuntime[helper];
    if (!inlined)
      throw new Error(`the validator needs ajv's runtime helper ${helper}, which generate.ts does not inline`);
    return inlined;
  });

const supportedByType: Record<string, string[]> = {
  string: ['enum', 'minLength', 'maxLength', 'pattern', 'default'],
  integer: ['format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'default'],
  boolean: ['default'],
};

/**
 * A parameter's schema for its value as the event carries it: a string. A `default` is the text the event gets when
 * the parameter is absent (ajv's useDefaults), so it is checked like a value a client sent.
 */
const parameterSchema = (schema: Schema, where: string): Schema => {
  const { type, description: _description, example: _example, ...rest } = schema;
  const supported = supportedByType[String(type)];
  if (!supported) throw new Error(`${where}: parameters of type ${String(type)} are not supported`);
  const unsupported = Object.keys(rest).filter((key) => !supported.includes(key));
  if (unsupported.length > 0) throw new Error(`${where}: ${unsupported.join(', ')} is not supported for parameters`);
  const { default: fallback, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, ...stringRules } = rest;
  const withDefault = (text: Schema) => (fallback === undefined ? text : { ...text, default: String(fallback) });
  if (type === 'string') return withDefault({ type: 'string', ...stringRules });
  if (type === 'boolean') return withDefault({ type: 'string', enum: ['true', 'false'] });
  if (format !== undefined && format !== 'int32' && format !== 'int64')
    throw new Error(`${where}: integer format ${String(format)} is not supported`);
  const bounds = Object.fromEntries(
    Object.entries({ minimum, maximum, exclusiveMinimum, exclusiveMaximum }).filter(([, bound]) => bound !== undefined),
  );
  for (const [name, bound] of Object.entries(bounds)) {
    // A YAML number past 2^53 has already been rounded when it is read: only a bound within it is exact.
    if (!Number.isSafeInteger(bound)) throw new Error(`${where}: ${name} must be an integer within ±(2^53 - 1)`);
  }
  return withDefault({
    type: 'string',
    integerText: format ?? 'any',
    ...(Object.keys(bounds).length > 0 && { integerBounds: bounds }),
  });
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** Every operation of the document, with what its event must hold. */
/**
 * The bearer scopes an operation's security requirement lists (its own, else the document's): OpenAPI 3.1 lets a
 * requirement of any scheme list roles or scopes ("Security Requirement Object"). One requirement of one scheme: the
 * authorizer checks one bearer token, so alternatives (`- a: [] - b: []`) or two schemes cannot be honoured; `[]`
 * is any valid token.
 */
const scopesOf = (security: unknown, where: string): string[] => {
  // No requirement (none at all, or `security: []`) says the operation is public; every route of this API is behind
  // the bearer authorizer, so such a contract would not describe what is served.
  if (security === undefined || (Array.isArray(security) && security.length === 0)) {
    throw new Error(`${where}: no security requirement, but every route needs a bearer token: - bearerAuth: []`);
  }
  const requirements = Array.isArray(security) ? security : [];
  const [requirement] = requirements;
  const schemes = isSchema(requirement) ? Object.values(requirement) : [];
  const [scopes] = schemes;
  if (requirements.length !== 1 || schemes.length !== 1 || !Array.isArray(scopes)) {
    throw new Error(`${where}: security must be one requirement of one scheme, e.g. - bearerAuth: [plants/write]`);
  }
  if (!scopes.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
    // RFC 6749 section 3.3: a scope token is printable ASCII without space, `"` or `\`.
    throw new Error(`${where}: ${JSON.stringify(scopes)} are not OAuth scope tokens (RFC 6749 section 3.3)`);
  }
  return scopes;
};

const operationsOf = (openapi: Schema) => {
  const components = isSchema(openapi.components) ? openapi.components : {};
  const resolve = (value: unknown): unknown => {
    if (!isSchema(value) || typeof value.$ref !== 'string' || value.$ref.startsWith(refPrefix)) return value;
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(value.$ref) ?? [];
    const target = section && name && isSchema(components[section]) ? components[section][name] : undefined;
    if (target === undefined) throw new Error(`unresolved reference ${value.$ref}`);
    return resolve(target);
  };
  const paths = isSchema(openapi.paths) ? openapi.paths : {};
  return Object.entries(paths).flatMap(([path, item]) => {
    if (!isSchema(item)) return [];
    return methods.flatMap((method) => {
      const operation = item[method];
      if (!isSchema(operation)) return [];
      const where = `${method.toUpperCase()} ${path}`;
      if (typeof operation.operationId !== 'string') throw new Error(`${where}: every operation needs an operationId`);
      const declared = [
        ...(Array.isArray(item.parameters) ? item.parameters : []),
        ...(Array.isArray(operation.parameters) ? operation.parameters : []),
      ].map((parameter) => resolve(parameter) as Parameter);
      // An operation's parameter replaces the path item's of the same name and place.
      const parameters = [
        ...new Map(declared.map((parameter) => [`${parameter.in} ${parameter.name}`, parameter])).values(),
      ];
      const body = resolve(operation.requestBody);
      const bodySchema =
        isSchema(body) && isSchema(body.content)
          ? (body.content['application/json'] as Schema | undefined)?.schema
          : undefined;
      return [
        {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          where,
          scopes: scopesOf(operation.security ?? openapi.security, where),
          parameters,
          body: isSchema(body) ? { schema: bodySchema ?? {}, required: body.required === true } : undefined,
        },
      ];
    });
  });
};

const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const kebabCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** A schema node as the validator checks it: int64 by the int64 keyword (see int64Keyword). */
const forValidation = (node: Schema) => {
  if (!isInt64(node)) return node;
  const { type: _type, format: _format, ...rest } = node;
  return { ...rest, int64: true };
};

type Operation = ReturnType<typeof operationsOf>[number];

/**
 * What an operation's event must hold, as the validator checks it and as its type says it: the body (when it has
 * one), and the path and query parameters (strings; null in the event when there are none).
 */
const eventProperties = ({ where, parameters, body }: Operation) => {
  const validated: Schema = {};
  const typed: Schema = {};
  const required: string[] = [];
  if (body) {
    const schema = mapSchema(body.schema, (node) => forValidation(toDefs(node)));
    const type = mapSchema(body.schema, toDefs);
    validated.body = body.required ? schema : { anyOf: [{ type: 'null' }, schema] };
    typed.body = body.required ? type : { anyOf: [{ type: 'null' }, type] };
    required.push('body');
  }
  for (const [place, eventKey] of [
    ['path', 'pathParameters'],
    ['query', 'queryStringParameters'],
  ] as const) {
    const ofPlace = parameters.filter((parameter) => parameter.in === place);
    if (ofPlace.length === 0) continue;
    const names = ofPlace.filter((parameter) => place === 'path' || parameter.required).map(({ name }) => name);
    // A parameter with a default is in the event once validated: the validator writes the default in (into the
    // parameters' object, so the object must be there: httpEventNormalizer() makes it {} for a request without any).
    const defaulted = ofPlace.filter((parameter) => parameter.schema?.default !== undefined).map(({ name }) => name);
    const present = [...names, ...defaulted];
    const object = (valueSchema: (parameter: Parameter) => Schema, requiredNames: string[]) => ({
      type: 'object',
      properties: Object.fromEntries(ofPlace.map((parameter) => [parameter.name, valueSchema(parameter)])),
      ...(requiredNames.length > 0 && { required: requiredNames }),
    });
    const checked = object(
      (parameter) => parameterSchema(parameter.schema ?? {}, `${where} ${place} parameter ${parameter.name}`),
      names,
    );
    const strings = object(() => ({ type: 'string' }), present);
    validated[eventKey] = present.length > 0 ? checked : { ...checked, type: ['object', 'null'] };
    typed[eventKey] = present.length > 0 ? strings : { anyOf: [{ type: 'null' }, strings] };
    if (present.length > 0) required.push(eventKey);
  }
  return { validated, typed, required };
};

/** The file the operations' scopes are generated into. */
const operationScopesFile = 'operation-scopes.ts';

/** The file each operation's validator is generated into. */
export const validatorFile = (operationId: string) => `validate-${kebabCase(operationId)}-event.js`;

/** An Ajv that compiles an event's validator to standalone ESM, with the int64 and integer-text keywords. */
const validatorCompiler = () => {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    // `type: ['object', 'null']` for parameters that may all be absent (the event then has null).
    allowUnionTypes: true,
    // A parameter's default is written into the event when the parameter is absent.
    useDefaults: true,
    code: { source: true, esm: true, optimize: true },
  });
  ajv.addKeyword(int64Keyword);
  ajv.addKeyword(integerTextKeyword);
  ajv.addKeyword(integerBoundsKeyword);
  return ajv;
};

/** A parameter's default must pass its own checks, as a client's value would: a wrong one stops the generation. */
const checkDefaults = (ajv: Ajv2020, validated: Schema, where: string) => {
  for (const [place, schemas] of Object.entries(validated)) {
    const properties = isSchema(schemas) && isSchema(schemas.properties) ? schemas.properties : {};
    for (const [name, schema] of Object.entries(properties)) {
      if (!isSchema(schema) || schema.default === undefined || place === 'body') continue;
      if (!ajv.validate({ type: 'object', properties: { [name]: schema } }, { [name]: schema.default }))
        throw new Error(
          `${where} parameter ${name}: its default ${JSON.stringify(schema.default)} does not satisfy its own schema (${ajv.errorsText()})`,
        );
    }
  }
};

/** The schemas named `names`, as $defs, each node passed through `visit`. */
type AsDefs = (names: Iterable<string>, visit: (node: Schema) => Schema) => Schema;

/** An operation's validator and its types (two files), and the type of its event. */
const operationFiles = (operation: Operation, components: Schema, asDefs: AsDefs) => {
  const { operationId, where, body } = operation;
  const eventName = `${pascalCase(operationId)}Event`;
  const { validated, typed, required } = eventProperties(operation);
  const ajv = validatorCompiler();
  checkDefaults(ajv, validated, where);
  const eventSchema = {
    $id: eventName,
    description: `The Lambda proxy event of ${operationId} (${where}), its body parsed by the JSON body parser`,
    type: 'object',
    required,
    properties: validated,
    $defs: asDefs(schemasNeededBy(body?.schema, components), forValidation),
  };
  const file = validatorFile(operationId);
  const files = {
    [file]: `${banner}\n${withoutRequire(standaloneCode.default(ajv, ajv.compile(eventSchema)))}`,
    [file.replace(/\.js$/, '.d.ts')]: [
      banner,
      "import type { ValidateFunction } from 'ajv';",
      `import type { ${eventName} } from './openapi-types.ts';`,
      '',
      `declare const validate: ValidateFunction<${eventName}>;`,
      'export default validate;',
      '',
    ].join('\n'),
  };
  const eventType = {
    description: eventSchema.description,
    type: 'object',
    required,
    properties: typed,
    additionalProperties: false,
  };
  return { files, eventName, eventType };
};

/** operation-scopes.ts: each operation and the scopes its security requirement names. */
const operationScopesSource = (operations: Operation[]) =>
  [
    banner,
    '// Each operation and the scopes a token needs for it (its security requirement): the stack hands them to the',
    '// authorizer, which allows a token exactly the routes its scopes reach.',
    '',
    'export const operationScopes: readonly { operationId: string; method: string; path: string; scopes: string[] }[] = [',
    ...operations.map(
      ({ operationId, method, path, scopes }) => `  ${JSON.stringify({ operationId, method, path, scopes })},`,
    ),
    '];',
    '',
  ].join('\n');

/** openapi-types.ts: the component schemas and each operation's event, as TypeScript types. */
const typesSource = (components: Schema, eventTypes: Record<string, Schema>, asDefs: AsDefs) =>
  compile(
    {
      title: 'Schemas',
      description: 'The component schemas of openapi.yaml, and what each operation finds in its event',
      type: 'object',
      properties: Object.fromEntries(
        [...Object.keys(components), ...Object.keys(eventTypes)].map((name) => [name, { $ref: `#/$defs/${name}` }]),
      ),
      required: [...Object.keys(components), ...Object.keys(eventTypes)],
      additionalProperties: false,
      $defs: {
        ...asDefs(Object.keys(components), (node) =>
          // Exact integers beyond 2^53 arrive as bigint (see int64Keyword).
          isInt64(node) ? { ...node, tsType: 'number | bigint' } : node,
        ),
        ...eventTypes,
      },
    } as JSONSchema,
    'Schemas',
    { additionalProperties: false, bannerComment: banner, format: false, unreachableDefinitions: false },
  );

/** The generated files, by name: the types, the scopes, and two files per operation (the validator and its types). */
export const generate = async (openapiFile = productContract): Promise<Record<string, string>> => {
  const openapi: unknown = parse(await readFile(openapiFile, 'utf8'));
  if (!isSchema(openapi)) throw new Error(`${openapiFile} is not an OpenAPI document`);
  const components =
    isSchema(openapi.components) && isSchema(openapi.components.schemas) ? openapi.components.schemas : {};
  const asDefs: AsDefs = (names, visit) =>
    Object.fromEntries([...names].map((name) => [name, mapSchema(components[name], (node) => visit(toDefs(node)))]));

  const operations = operationsOf(openapi);
  let files: Record<string, string> = {};
  const eventTypes: Record<string, Schema> = {};
  for (const operation of operations) {
    const made = operationFiles(operation, components, asDefs);
    files = { ...files, ...made.files };
    eventTypes[made.eventName] = made.eventType;
  }
  files[operationScopesFile] = operationScopesSource(operations);
  files['openapi-types.ts'] = await typesSource(components, eventTypes, asDefs);
  return files;
};

/** The generated files in `outputDir` (validators and their types, and the types file), for finding stale ones. */
export const generatedFilesIn = async (outputDir: string) =>
  (await readdir(outputDir)).filter(
    (name) =>
      name === 'openapi-types.ts' || name === operationScopesFile || /^validate-.+-event\.(js|d\.ts)$/.test(name),
  );

if (import.meta.main) {
  const [openapiFile = productContract, outputDir = productOutputDir] = process.argv.slice(2);
  const files = await generate(openapiFile);
  for (const stale of await generatedFilesIn(outputDir)) if (!(stale in files)) await rm(join(outputDir, stale));
  for (const [name, text] of Object.entries(files)) await writeFile(join(outputDir, name), text);
  console.log(`generated ${Object.keys(files).join(', ')} in ${outputDir}`);
}
