// A function's own headers as every gateway sends them (a REST API's and an HTTP API's proxy results, a function URL's
// result, a stream's prelude): once through `functionHeaders`, so that what frames the message on the client's
// connection is the gateway's alone. A recipient of two Content-Length values, or of Content-Length beside
// Transfer-Encoding, cannot tell where the message ends (RFC 9112 sections 6.2 and 6.3; RFC 9110 section 8.6: the
// response desync); a function's Connection or Keep-Alive would speak for a connection that is not its own.

/** A function's answer no gateway sends: why (which header, what is wrong with it), for the request's log line. */
export interface Malformed {
  malformed: string;
}

/**
 * Dropped: Transfer-Encoding, which only the gateway's own framing may set (localstack/localstack's
 * services/apigateway/next_gen/execute_api/header_utils.py drops it from every integration's response, as seen on
 * AWS).
 */
const dropped = new Set(['transfer-encoding']);

/**
 * Renamed `x-amzn-Remapped-<name>`: Authorization, Connection, Content-Length, Date, Server, Trailer and
 * WWW-Authenticate are among the headers "Amazon API Gateway important notes for REST APIs" says may be remapped; seen
 * on AWS for Content-Length behind a streaming function URL (cargo-lambda/cargo-lambda issue 862), for Connection
 * behind a function URL (zenn.dev/ashphy/scraps/5d70402729657f), for WWW-Authenticate behind a REST API (a Serverless
 * forum thread, forum.serverless.com/t/4305) and for Connection, Date and Server through an HTTP proxy. Keep-Alive is
 * the runner's addition: it qualifies Connection (RFC 9112 section 9.3). Trailer announces fields of a chunked framing
 * that is the gateway's (RFC 9110 section 6.6.2; Node refuses it beside Content-Length). What an HTTP API does with
 * them is not documented (docs/http-apis.md).
 */
const remapped = new Set([
  'authorization',
  'connection',
  'content-length',
  'date',
  'keep-alive',
  'server',
  'trailer',
  'www-authenticate',
]);

/** RFC 9110 section 5.1: a field name is a token. */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * RFC 9110 section 5.5: CR, LF and NUL in a field value are "invalid and dangerous", the other controls but HTAB
 * invalid: the result is malformed (a gateway answers it as any malformed result), never a header that splits.
 */
const controlIn = (value: string) =>
  [...value].find((character) => {
    const code = character.charCodeAt(0);
    return (code < 0x20 && character !== '\t') || code === 0x7f;
  });

/** The control's name, for the log line. */
const named = (character: string) =>
  character === '\r' ? 'CR' : character === '\n' ? 'LF' : `U+${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Text beyond ASCII goes out as its UTF-8 bytes (Node writes a header value's characters as Latin-1 bytes, one each):
 * what the JSON a function answers holds. AWS's bytes for them are not documented.
 */
const asUtf8Bytes = (value: string) =>
  [...value].some((character) => character.charCodeAt(0) > 0x7e)
    ? Buffer.from(value, 'utf8').toString('latin1')
    : value;

/**
 * A function's header pairs as the gateway sends them: Transfer-Encoding dropped, the framing and connection headers
 * remapped, the rest as they are; `{ malformed }` for a name that is no token or a value with a control character.
 */
export const functionHeaders = (pairs: readonly [string, string][]): { headers: [string, string][] } | Malformed => {
  const headers: [string, string][] = [];
  for (const [name, value] of pairs) {
    if (!token.test(name)) return { malformed: `header ${JSON.stringify(name)}: not a field name` };
    const bad = controlIn(value);
    if (bad !== undefined) return { malformed: `header ${name}: its value has ${named(bad)}` };
    const lower = name.toLowerCase();
    if (dropped.has(lower)) continue;
    headers.push([remapped.has(lower) ? `x-amzn-Remapped-${name}` : name, asUtf8Bytes(value)]);
  }
  return { headers };
};
