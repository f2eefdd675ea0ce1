// Checks answers against an OpenAPI document (openapi.yaml by default) with openapi-backend, an OpenAPI 3.1 validator
// of its own, and reads their numbers with lossless-json: neither shares code with this project's schema handling or
// its exact JSON reader, so the tests do not grade the project with its own code. The operation is found from the
// request's method and path, as the gateway routes it.
import { parse } from 'lossless-json';
import { OpenAPIBackend } from 'openapi-backend';

interface Answer {
  statusCode: number;
  headers?: Record<string, unknown> | undefined;
  body: string;
}

/** The request an answer is to: its method and its path (without the stage). */
export interface Request {
  method: string;
  path: string;
}

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * A number as the validator sees it. JSON.parse rounds an integer past 2^53 to a double, and openapi-backend's int64
 * check compares doubles (9223372036854775807 is read as 2^63 and refused). So an integer past 2^53 is decided
 * exactly here, from its text, and handed over as a stand-in of the same sign that every check agrees with: the
 * largest safe integer when it is an int64, the largest double when it is not.
 */
const numberForValidation = (text: string): number => {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || Number.isSafeInteger(value)) return value;
  const exact = BigInt(text);
  const sign = exact < 0n ? -1 : 1;
  return exact >= int64.min && exact <= int64.max ? sign * Number.MAX_SAFE_INTEGER : sign * Number.MAX_VALUE;
};

export const contractChecker = async (definition = new URL('../../openapi.yaml', import.meta.url).pathname) => {
  const api = await new OpenAPIBackend({
    definition,
    // quick: skip openapi-backend's check of the document itself, whose OpenAPI 3.1 meta-schema lacks
    // license.identifier; Redocly lints the document in `npm run lint`.
    quick: true,
    validate: true,
  }).init();

  // Routed as API Gateway routes ("Set up a proxy integration with a proxy resource"): a literal segment before a
  // {parameter}, and a greedy {name+} (API Gateway's, which openapi-backend's router does not know) last.
  const routes = api
    .getOperations()
    .map(({ method, path, operationId }) => {
      const segments = path.split('/').filter(Boolean);
      const pattern = segments
        .map((segment) =>
          /^\{.+\+\}$/.test(segment)
            ? '.+'
            : /^\{.+\}$/.test(segment)
              ? '[^/]+'
              : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      const rank = segments.map((segment) => (segment.endsWith('+}') ? 2 : segment.startsWith('{') ? 1 : 0)).join('');
      return { method: method.toUpperCase(), pattern: new RegExp(`^/${pattern}$`), rank, operationId };
    })
    .sort((a, b) => a.rank.localeCompare(b.rank));
  const operationOf = (method: string, path: string) =>
    routes.find((route) => route.method === method.toUpperCase() && route.pattern.test(path))?.operationId;

  /** Problems of the answer to `request`; empty when it conforms. */
  const violations = ({ statusCode, headers = {}, body }: Answer, { method, path }: Request): string[] => {
    const operationId = operationOf(method, path);
    if (!operationId) return [`${method} ${path} is no operation of ${definition}`];
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    if (contentType !== 'application/json') return [`Content-Type is ${String(contentType)}, not application/json`];
    const result = api.validateResponse(parse(body, null, numberForValidation), operationId, statusCode);
    return result.valid ? [] : (result.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  };

  /** The same, for an answer received over HTTP. */
  const responseViolations = async (response: Response, request: Request) =>
    violations(
      {
        statusCode: response.status,
        headers: Object.fromEntries(response.headers),
        body: await response.clone().text(),
      },
      request,
    );

  return { violations, responseViolations };
};

const product = await contractChecker();
export const contractViolations = product.violations;
export const responseContractViolations = product.responseViolations;

/** The product's one operation. */
export const createPlantRequest: Request = { method: 'POST', path: '/plants' };
