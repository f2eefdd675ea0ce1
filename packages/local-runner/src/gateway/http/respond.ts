// An HTTP API's respond phase: the function's result as HTTP (payload 2.0's two forms, or 1.0's: responses.ts), and
// the HTTP API's own answers: 404 {"message":"Not Found"}, 401 {"message":"Unauthorized"}, 403 {"message":"Forbidden"},
// 500 {"message":"Internal Server Error"}, 503 {"message":"Service Unavailable"} past the integration's time-out.

import { isScalar } from '../../app/cfn.ts';
import type { HttpLambdaRoute } from '../../app/http-api.ts';
import { failureOf, type InvocationReport } from '../../lambda/pool.ts';
import { functionHeaders, type Malformed } from '../function-headers.ts';
import { type HttpResponse, isFinalStatus, proxyResultToResponse } from '../responses.ts';

const messages = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Request Entity Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
} as const;

/** The HTTP API's own answer of `status`. */
export const ownResponse = (status: 400 | 401 | 403 | 404 | 413 | 500 | 503): HttpResponse => ({
  status,
  headers: [['Content-Type', 'application/json']],
  body: Buffer.from(JSON.stringify({ message: messages[status] })),
});

/**
 * A function's result as HTTP (payload 2.0): an object with `statusCode` as it says (headers, `cookies` as
 * Set-Cookie, its body, base64-decoded when `isBase64Encoded`); any other JSON the function answers is the body, 200,
 * application/json; `{ malformed }` when malformed. Its headers go out as function-headers.ts sends a function's.
 */
export const resultToResponse = (result: unknown): HttpResponse | Malformed => {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    return {
      status: 200,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(result) ?? 'null'),
    };
  }
  const malformed = { malformed: 'not a result of payload format 2.0' };
  const { statusCode, headers = {}, cookies = [], body, isBase64Encoded = false } = result as Record<string, unknown>;
  const status = Number(statusCode);
  if (!isFinalStatus(status)) return malformed;
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every(isScalar)) return malformed;
  if (!Array.isArray(cookies) || (body !== undefined && body !== null && typeof body !== 'string')) return malformed;
  const framed = functionHeaders([
    ...Object.entries(headers as Record<string, unknown>).map(([name, value]): [string, string] => [
      name,
      String(value),
    ]),
    ...cookies.map((cookie): [string, string] => ['Set-Cookie', String(cookie)]),
  ]);
  if ('malformed' in framed) return framed;
  return {
    status,
    headers: [
      ...(framed.headers.some(([name]) => name.toLowerCase() === 'content-type')
        ? []
        : ([['Content-Type', 'application/json']] as [string, string][])),
      ...framed.headers,
    ],
    body: Buffer.from(typeof body === 'string' ? body : '', isBase64Encoded === true ? 'base64' : 'utf8'),
  };
};

/** The function's answer as the route's response: its own 500 when it failed or answered malformed (`notes` say). */
export const respond = (route: HttpLambdaRoute, { invocation }: InvocationReport, notes: string[]) => {
  if (invocation.outcome !== 'result') {
    notes.push(`${route.functionId} ${invocation.outcome}: ${failureOf(invocation)}`);
    return ownResponse(500);
  }
  const response =
    route.payloadVersion === '1.0'
      ? // A REST API's response format; with no binary media types, a body marked base64 is decoded.
        proxyResultToResponse(invocation.result, true)
      : resultToResponse(invocation.result);
  if (!('malformed' in response)) return response;
  notes.push(`${route.functionId} malformed result: ${response.malformed}`);
  return ownResponse(500);
};
