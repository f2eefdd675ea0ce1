// The one place where errors become HTTP responses: every error body is the contract's Error, `{ error, message }`,
// with `error` equal to the status. Anything not raised on purpose is a 500 with a generic message: no stack,
// SDK message or internal name reaches the client.
import type { MiddlewareObj } from '@middy/core';
import type { ErrorObject } from 'ajv';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Error as ErrorBody } from './contract/openapi-types.ts';
import { HttpError } from './errors.ts';
import { jsonResponse } from './json-response.ts';
import { logDebug, logger } from './logger.ts';

const errorResponse = (status: number, message: string, headers?: Record<string, string>) =>
  jsonResponse(status, { error: status, message } satisfies ErrorBody, headers);

/** Where in the event a parameter is, and what a client calls it. */
const parameterPlaces: [string, string][] = [
  ['/pathParameters', 'path parameter'],
  ['/queryStringParameters', 'query parameter'],
];

/**
 * The field an ajv error is about, as a client wrote it: `/body/id` -> `id`, `/pathParameters/id` ->
 * `path parameter id`; empty for the body itself.
 */
const fieldOf = (error: ErrorObject) => {
  const [place, name] = parameterPlaces.find(
    ([prefix]) => error.instancePath === prefix || error.instancePath.startsWith(`${prefix}/`),
  ) ?? ['/body', ''];
  let path = error.instancePath.replace(place, '').replace(/^\//, '').replaceAll('/', '.');
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    path = path ? `${path}.${missing}` : missing;
  }
  if (!name) return path;
  return path ? `${name} ${path}` : `${name}s`;
};

const describeValidationErrors = (errors: readonly ErrorObject[]) => {
  const described = errors.map((error) => {
    const field = fieldOf(error);
    if (!field) return 'request body: must be a JSON object';
    return error.keyword === 'required' ? `${field}: is required` : `${field}: ${error.message ?? 'is not valid'}`;
  });
  return [...new Set(described)].join('; ');
};

const isAjvErrorList = (data: unknown): data is ErrorObject[] =>
  Array.isArray(data) && data.every((item) => typeof item === 'object' && item !== null && 'instancePath' in item);

/**
 * Middy's own errors (@middy/util's HttpError): recognised by shape, since each middy package may bring its own
 * copy of @middy/util. They carry the failing package and its details in `cause`.
 */
interface MiddyHttpError extends Error {
  statusCode: number;
  expose: boolean;
  cause?: { package?: unknown; data?: unknown; message?: unknown };
}

const isMiddyHttpError = (error: unknown): error is MiddyHttpError =>
  typeof error === 'object' && error !== null && typeof (error as Partial<MiddyHttpError>).statusCode === 'number';

/** What a client is told about a middy error, or undefined for one that is not the client's (a 500). */
const fromMiddy = ({ statusCode, expose, message, cause = {} }: MiddyHttpError): APIGatewayProxyResult | undefined => {
  if (statusCode === 422) {
    // @middy/http-json-body-parser: JSON.parse failed (its message in cause.message), or a forbidden key (its name in
    // cause.data): `__proto__`, or `constructor` holding `prototype`, refused as a guard against prototype pollution.
    return errorResponse(
      400,
      cause.message === undefined
        ? `request body: the key ${JSON.stringify(cause.data)} is not allowed`
        : 'request body: is not valid JSON',
    );
  }
  if (statusCode === 400 && isAjvErrorList(cause.data)) return errorResponse(400, describeValidationErrors(cause.data));
  return statusCode < 500 && expose ? errorResponse(statusCode, message) : undefined;
};

/** Turns any error into the API's response. */
const toErrorResponse = (error: unknown): APIGatewayProxyResult => {
  if (error instanceof HttpError) return errorResponse(error.statusCode, error.message, error.headers);
  return (isMiddyHttpError(error) && fromMiddy(error)) || errorResponse(500, 'Internal server error');
};

/** Middy middleware: answers every error with `toErrorResponse`, logging server-side failures in full. */
export const httpErrors = (): MiddlewareObj<unknown, APIGatewayProxyResult> => ({
  onError: (request) => {
    const response = toErrorResponse(request.error);
    const { error } = request;
    if (response.statusCode >= 500) logger.error('Request failed', { statusCode: response.statusCode, error });
    // A refusal is the client's: API Gateway's access log records its status already, so it is DEBUG here.
    else logDebug('Request refused', { statusCode: response.statusCode, reason: error?.message });
    request.response = response;
  },
});
