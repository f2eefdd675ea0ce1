// An HTTP API's CORS configuration, which API Gateway applies itself ("Configure CORS for HTTP APIs"): a preflight
// answered before any route, and the headers of every other response.
import type { IncomingMessage } from 'node:http';
import type { HttpCors } from '../../app/http-api.ts';
import type { HttpResponse } from '../responses.ts';

/**
 * The API's CORS configuration applied as API Gateway applies it ("Configure CORS for HTTP APIs"): a preflight
 * (OPTIONS with Origin and Access-Control-Request-Method) answered by API Gateway itself, 204, whatever the routes;
 * other responses get Access-Control-Allow-Origin (`*` for the origins `*`, else the request's origin), -Expose-Headers
 * and -Allow-Credentials in place of any the integration sent. An origin is allowed when an entry of AllowOrigins is
 * `*`, is the origin, or is `https://*` or `http://*` and the origin begins with that scheme ("allow any origin that
 * begins with https://", the page's example values); an origin not allowed gets no CORS headers.
 */
export const corsHeaders = (cors: HttpCors, request: IncomingMessage, preflight: boolean): [string, string][] => {
  const origin = request.headers.origin;
  const allows = (entry: string) =>
    origin !== undefined && (entry === origin || (entry.endsWith('://*') && origin.startsWith(entry.slice(0, -1))));
  const allowed = cors.allowOrigins.includes('*') ? '*' : cors.allowOrigins.some(allows) ? origin : undefined;
  if (allowed === undefined) return [];
  const header = (name: string, values: string[]): [string, string][] =>
    values.length > 0 ? [[name, values.join(',')]] : [];
  const credentials = header('Access-Control-Allow-Credentials', cors.allowCredentials ? ['true'] : []);
  if (!preflight)
    return [
      ['Access-Control-Allow-Origin', allowed],
      ...credentials,
      ...header('Access-Control-Expose-Headers', cors.exposeHeaders),
    ];
  return [
    ['Access-Control-Allow-Origin', allowed],
    ...credentials,
    ...header('Access-Control-Allow-Methods', cors.allowMethods),
    ...header('Access-Control-Allow-Headers', cors.allowHeaders),
    ...header('Access-Control-Max-Age', cors.maxAge === undefined ? [] : [String(cors.maxAge)]),
  ];
};

/** A response with the API's CORS headers in place of the integration's (none without a configuration). */
export const withCors = (
  cors: HttpCors | undefined,
  request: IncomingMessage,
  response: HttpResponse,
): HttpResponse => {
  if (!cors) return response;
  const kept = response.headers.filter(([name]) => !name.toLowerCase().startsWith('access-control-'));
  return { ...response, headers: [...kept, ...corsHeaders(cors, request, false)] };
};

/** Whether `request` is a CORS preflight: OPTIONS with Origin and Access-Control-Request-Method. */
export const isPreflight = (request: IncomingMessage) =>
  request.method === 'OPTIONS' &&
  Boolean(request.headers.origin) &&
  Boolean(request.headers['access-control-request-method']);

/** A preflight `answeredBy` answers itself, the function not invoked: 204 with the CORS headers. */
export const preflightAnswer = (cors: HttpCors, request: IncomingMessage, answeredBy: string) => {
  request.resume();
  const response: HttpResponse = { status: 204, headers: corsHeaders(cors, request, true), body: Buffer.alloc(0) };
  return { response, notes: [`CORS preflight, answered by ${answeredBy}`] };
};
