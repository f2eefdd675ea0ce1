// The responses the gateway writes: its own (from the template's gateway responses, or AWS's defaults), the runner's
// for what API Gateway refuses before any gateway response applies, and a function's proxy result as HTTP.
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { isScalar, type Scalar } from '../app/cfn.ts';
import type { GatewayResponse } from '../app/rest-api.ts';
import { functionHeaders, type Malformed } from './function-headers.ts';

/** Status and message of each response the gateway makes itself, when the template does not configure it. */
const gatewayDefaults: Record<string, { status: number; message: string }> = {
  ACCESS_DENIED: { status: 403, message: 'Forbidden' },
  // A request to an AWS_IAM method whose SigV4 signature is not the one expected (gateway/sigv4.ts).
  INVALID_SIGNATURE: { status: 403, message: 'Forbidden' },
  API_CONFIGURATION_ERROR: { status: 500, message: 'Internal server error' },
  AUTHORIZER_CONFIGURATION_ERROR: { status: 500, message: 'Internal server error' },
  AUTHORIZER_FAILURE: { status: 500, message: 'Internal server error' },
  BAD_REQUEST_BODY: { status: 400, message: 'Invalid request body' },
  BAD_REQUEST_PARAMETERS: { status: 400, message: 'Missing required request parameters' },
  // A 4xx of no type of its own (the runner's refusal of a path: request-path.ts).
  DEFAULT_4XX: { status: 400, message: 'Bad Request' },
  INTEGRATION_TIMEOUT: { status: 504, message: 'Endpoint request timed out' },
  INVALID_API_KEY: { status: 403, message: 'Forbidden' },
  MISSING_AUTHENTICATION_TOKEN: { status: 403, message: 'Missing Authentication Token' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request Too Long' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  // A non-proxy integration's request whose content type no template takes (PassthroughBehavior NEVER, WHEN_NO_TEMPLATES).
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Media Type' },
  // A function that fails or answers malformed: AWS answers 502 {"message": "Internal server error"}.
  DEFAULT_5XX: { status: 502, message: 'Internal server error' },
};

export interface HttpResponse {
  status: number;
  headers: [string, string][];
  /** The body whole, or as it comes (a streamed response: streamed-response.ts). */
  body: Buffer | Readable;
}

/** A response whose body is whole. */
export type BufferedResponse = HttpResponse & { body: Buffer };

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** API Gateway answers application/json unless told otherwise. */
const withContentType = (headers: [string, string][]): [string, string][] =>
  headers.some(([name]) => name.toLowerCase() === 'content-type')
    ? headers
    : [...headers, ['Content-Type', 'application/json']];

/**
 * Renders the gateway's own response of `type` from the template's gateway responses (or AWS's defaults);
 * `authorizer` is the authorizer's context when it decided the response (a 403), for `$context.authorizer.<key>`;
 * `errorType`, the `x-amzn-ErrorType` header where AWS names the error otherwise (a signature's:
 * `InvalidSignatureException`).
 */
export const renderGatewayResponse = (
  responses: Map<string, GatewayResponse>,
  type: string,
  message: string,
  requestId: string,
  authorizer: Record<string, Scalar> = {},
  errorType = type,
): BufferedResponse => {
  const fallback = gatewayDefaults[type] ?? { status: 500, message };
  const configured = responses.get(type);
  const inherited = responses.get(fallback.status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
  const response = configured ?? inherited;
  const status = configured?.statusCode ?? inherited?.statusCode ?? fallback.status;
  const body =
    response?.template === undefined
      ? json({ message })
      : Buffer.from(
          response.template
            .replaceAll('$context.error.messageString', JSON.stringify(message))
            .replaceAll('$context.error.message', message)
            .replaceAll('$context.error.responseType', type)
            .replaceAll('$context.requestId', requestId)
            .replace(/\$context\.authorizer\.(\w+)/g, (_, key: string) => String(authorizer[key] ?? '')),
        );
  return {
    status,
    headers: withContentType([
      ...Object.entries(response?.headers ?? {}),
      ['x-amzn-ErrorType', errorType],
      ['x-amzn-RequestId', requestId],
    ]),
    body,
  };
};

/**
 * A response of the runner's own, for what API Gateway refuses before any gateway response applies (oversized or
 * malformed requests, another site's host): the API's Error shape, so a client never meets a bare body.
 */
export const errorResponse = (
  status: number,
  requestId?: string,
  message = STATUS_CODES[status] ?? 'Error',
): BufferedResponse => ({
  status,
  headers: [
    ['Content-Type', 'application/json'],
    ...(requestId === undefined ? [] : ([['x-amzn-RequestId', requestId]] as [string, string][])),
  ],
  body: json({ error: status, message }),
});

const proxyResultKeys = new Set(['statusCode', 'headers', 'multiValueHeaders', 'body', 'isBase64Encoded']);

/**
 * A result's `headers` (name to value) and `multiValueHeaders` (name to values) as header pairs, merged: for a name in
 * both, `multiValueHeaders` wins. Undefined when either is not of that shape (a malformed result).
 */
export const headerPairs = (headers: unknown, multiValueHeaders: unknown): [string, string][] | undefined => {
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every(isScalar)) return undefined;
  if (typeof multiValueHeaders !== 'object' || multiValueHeaders === null) return undefined;
  const multi = Object.entries(multiValueHeaders);
  if (!multi.every(([, values]) => Array.isArray(values) && values.every(isScalar))) return undefined;
  const multiNames = new Set(multi.map(([name]) => name.toLowerCase()));
  return [
    ...Object.entries(headers as Record<string, Scalar>)
      .filter(([name]) => !multiNames.has(name.toLowerCase()))
      .map(([name, value]): [string, string] => [name, String(value)]),
    ...multi.flatMap(([name, values]) => (values as Scalar[]).map((value): [string, string] => [name, String(value)])),
  ];
};

/**
 * A function's status as a final response's: 200 to 599. A 1xx is an interim response (RFC 9110 section 15.2), after
 * which a client waits for another that never comes: malformed, as an out-of-range one.
 */
export const isFinalStatus = (status: number) => Number.isInteger(status) && status >= 200 && status <= 599;

/**
 * A Lambda proxy result as HTTP, or why API Gateway would call it malformed (502). A body the function marks
 * `isBase64Encoded` is decoded only when `acceptIsBinary` (the request's first Accept is a binary media type);
 * otherwise the client gets the base64 text ("Return binary media from a Lambda proxy integration"; LocalStack's
 * test_aws_proxy_binary_response, validated against AWS, shows the Accept alone decides). Its headers go out as
 * function-headers.ts sends a function's.
 */
export const proxyResultToResponse = (result: unknown, acceptIsBinary: boolean): HttpResponse | Malformed => {
  const malformed = { malformed: 'not a proxy result' };
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return malformed;
  const {
    statusCode,
    headers = {},
    multiValueHeaders = {},
    body,
    isBase64Encoded = false,
  } = result as Record<string, unknown>;
  if (Object.keys(result).some((key) => !proxyResultKeys.has(key))) return malformed;
  const status = Number(statusCode);
  if (!isFinalStatus(status)) return malformed;
  const merged = headerPairs(headers, multiValueHeaders);
  if (!merged) return malformed;
  if (body !== undefined && body !== null && typeof body !== 'string') return malformed;
  if (typeof isBase64Encoded !== 'boolean') return malformed;
  const framed = functionHeaders(merged);
  if ('malformed' in framed) return framed;
  const text = typeof body === 'string' ? body : '';
  return {
    status,
    headers: withContentType(framed.headers),
    body: Buffer.from(text, isBase64Encoded && acceptIsBinary ? 'base64' : 'utf8'),
  };
};
