// API Gateway's basic request validation ("Request validation for REST APIs in API Gateway"): required parameters
// there and not blank, else BAD_REQUEST_PARAMETERS; the body against the model of its content type (`$default` for
// any other; none: not validated), else BAD_REQUEST_BODY. API Gateway's models are JSON Schema draft 4 ("Data models
// for REST APIs"): Ajv's draft-04 class checks them, formats included (ajv-formats).
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import type { RequestValidation } from '../app/request-validation.ts';

// Both are CommonJS modules whose export is also their `default`, which is what TypeScript types an import as.
const ajv = new ajvDraft04.default({ strict: false });
ajvFormats.default(ajv);

type Validator = ReturnType<typeof ajv.compile>;
const compiled = new WeakMap<object, Validator>();
const validatorOf = (schema: object) => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
};

/** Whether `body`, parsed JSON, matches the JSON schema (draft 4) `schema`. */
export const matchesSchema = (schema: object, body: unknown): boolean => validatorOf(schema)(body) === true;

export interface ValidatedRequest {
  /** Header names as sent, every value. */
  headers: Record<string, string[]>;
  query: URLSearchParams;
  pathParameters: Record<string, string>;
  /** The Content-Type header, if any. */
  contentType: string | undefined;
  body: Buffer;
}

/** Why API Gateway refuses the request before its integration (the gateway response's type and message), if it does. */
export const validationFailure = (
  { parameters, models }: RequestValidation,
  request: ValidatedRequest,
): { responseType: string; message: string } | undefined => {
  const parameterValue = ({ from, name }: RequestValidation['parameters'][number]) =>
    from === 'header'
      ? Object.entries(request.headers)
          .filter(([sent]) => sent.toLowerCase() === name.toLowerCase())
          .flatMap(([, values]) => values)
          .join(',')
      : from === 'querystring'
        ? request.query.getAll(name).join(',')
        : request.pathParameters[name];
  const missing = parameters.filter((parameter) => (parameterValue(parameter) ?? '').trim() === '');
  if (missing.length > 0) {
    return {
      responseType: 'BAD_REQUEST_PARAMETERS',
      message: `Missing required request parameters: [${missing.map(({ name }) => name).join(', ')}]`,
    };
  }
  // Without a Content-Type, API Gateway takes a request for application/json (as it picks a mapping template).
  const type = (request.contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  const schema = models[type] ?? models.$default;
  if (schema === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    return { responseType: 'BAD_REQUEST_BODY', message: 'Invalid request body' };
  }
  return validatorOf(schema)(body) ? undefined : { responseType: 'BAD_REQUEST_BODY', message: 'Invalid request body' };
};
