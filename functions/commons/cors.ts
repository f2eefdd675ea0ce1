// CORS (the Fetch standard's "CORS protocol", https://fetch.spec.whatwg.org/#http-cors-protocol) for a browser page
// on another origin that calls the API with a bearer token. One origin, or `*`, set by the stack
// (infra/app-context.ts: `corsOrigin`) and given to every function behind a route as CORS_ORIGIN. A bearer token is
// attached by the page itself, never by the browser, so no answer allows credentials.

/** What a page may send beyond the CORS-safelisted request headers: the token, and a JSON body's media type. */
export const corsAllowedHeaders = ['Authorization', 'Content-Type'];

/**
 * What a page may read beyond the CORS-safelisted response headers: the 401's bearer challenge, and when to retry a
 * 503 or 429.
 */
const corsExposedHeaders = ['WWW-Authenticate', 'Retry-After'];

/** The CORS headers of an answer, when an origin is allowed; none otherwise. */
export const corsHeaders = (origin: string | undefined): Record<string, string> =>
  origin
    ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': corsExposedHeaders.join(', ') }
    : {};
