// Every answer of every function, the errors' too (http-errors.ts), is made here: JSON, with the API's CORS headers
// when the stack allows an origin.
import type { APIGatewayProxyResult } from 'aws-lambda';
import { corsHeaders } from './cors.ts';
import { stringifyExact } from './exact-json.ts';

/** The answers for an API that allows `origin` (none: no CORS headers); a bigint in `body` (an int64) is exact. */
export const jsonResponder = (origin: string | undefined) => {
  const responseHeaders = { 'Content-Type': 'application/json', ...corsHeaders(origin) };
  return (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
    statusCode,
    headers: { ...responseHeaders, ...headers },
    body: stringifyExact(body),
  });
};

/**
 * A JSON response of this function's API. CORS_ORIGIN is read once, as the module loads: a function's variables do
 * not change while its execution environment lives.
 */
export const jsonResponse = jsonResponder(process.env.CORS_ORIGIN);
