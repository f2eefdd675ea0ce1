// Checks answers against openapi.yaml: the status is declared for POST /plants (or falls under `default`),
// the Content-Type is JSON, and the body matches the declared schema.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

interface OpenApiResponse {
  $ref?: string;
  content?: Record<string, { schema: object }>;
}

const openapi = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
  components: { responses: Record<string, OpenApiResponse> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...openapi, $id: 'openapi.yaml' });

const declaredResponse = (path: string, method: string, status: number): OpenApiResponse => {
  const responses = openapi.paths[path]?.[method]?.responses;
  const response = responses?.[String(status)] ?? responses?.default;
  if (!response) throw new Error(`openapi.yaml declares no ${status} answer for ${method.toUpperCase()} ${path}`);
  const ref = response.$ref?.replace('#/components/responses/', '');
  return ref === undefined ? response : (openapi.components.responses[ref] ?? {});
};

/** The problems of an answer against the contract; empty when it conforms. */
export const contractViolations = (
  answer: { statusCode: number; headers?: Record<string, unknown> | undefined; body: string },
  path = '/plants',
  method = 'post',
): string[] => {
  const declared = declaredResponse(path, method, answer.statusCode);
  const contentType = Object.entries(answer.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (contentType !== 'application/json') return [`Content-Type is ${String(contentType)}, not application/json`];
  const schema = declared.content?.['application/json']?.schema;
  if (!schema) return [`openapi.yaml declares no JSON body for ${answer.statusCode}`];
  // The declared schemas are references into openapi.yaml, resolved against the document added above.
  const ref = (schema as { $ref?: string }).$ref;
  const validate = ref?.startsWith('#') ? ajv.getSchema(`openapi.yaml${ref}`) : ajv.compile(schema);
  if (!validate) throw new Error(`openapi.yaml has no schema at ${ref}`);
  return validate(JSON.parse(answer.body))
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
};
