// An HTTP API's respond phase: the function's result as HTTP (payload 2.0's two forms, or 1.0's: responses.ts), and
// the HTTP API's own answers: 404 {"message":"Not Found"}, 401 {"message":"Unauthorized"}, 403 {"message":"Forbidden"},
// 500 {"message":"Internal Server Error"}, 503 {"message":"Service Unavailable"} past the integration's time-out.

import { isScalar } from '../../app/cfn.ts';
import type { HttpRoute } from '../../app/http-api.ts';
import { failureOf, type InvocationReport } from '../../lambda/pool.ts';
import { type HttpResponse, proxyResultToResponse } from '../responses.ts';

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
 * application/json; undefined when malformed.
 */
export const resultToResponse = (result: unknown): HttpResponse | undefined => {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    return {
      status: 200,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(result) ?? 'null'),
    };
  }
  const { statusCode, headers = {}, cookies = [], body, isBase64Encoded = false } = result as Record<string, unknown>;
  const status = Number(statusCode);
  if (!Number.isInteger(status) || status < 100 || status > 599) return undefined;
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every(isScalar)) return undefined;
  if (!Array.isArray(cookies) || (body !== undefined && body !== null && typeof body !== 'string')) return undefined;
  const named = Object.entries(headers as Record<string, unknown>).map(([name, value]): [string, string] => [
    name,
    String(value),
  ]);
  return {
    status,
    headers: [
      ...(named.some(([name]) => name.toLowerCase() === 'content-type')
        ? []
        : ([['Content-Type', 'application/json']] as [string, string][])),
      ...named,
      ...cookies.map((cookie): [string, string] => ['Set-Cookie', String(cookie)]),
    ],
    body: Buffer.from(typeof body === 'string' ? body : '', isBase64Encoded === true ? 'base64' : 'utf8'),
  };
};

/** The function's answer as the route's response: undefined when it failed or answered malformed (`notes` say). */
export const respond = (route: HttpRoute, { invocation }: InvocationReport, notes: string[]) => {
  const response =
    invocation.outcome !== 'result'
      ? undefined
      : route.payloadVersion === '1.0'
        ? // A REST API's response format; with no binary media types, a body marked base64 is decoded.
          proxyResultToResponse(invocation.result, true)
        : resultToResponse(invocation.result);
  if (!response)
    notes.push(
      `${route.functionId} ${invocation.outcome === 'result' ? 'malformed result' : `${invocation.outcome}: ${failureOf(invocation)}`}`,
    );
  return response ?? ownResponse(500);
};
