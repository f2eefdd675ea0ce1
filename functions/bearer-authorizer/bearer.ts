// The one rule for the Authorization header: API Gateway checks it before invoking the authorizer (the TOKEN
// authorizer's identity validation expression, a Java regular expression), and the authorizer checks it again.

/**
 * `Bearer <token>` as RFC 6750 section 2.1 writes it: the scheme, one or more spaces, the token in the b64token
 * characters. The scheme is case-insensitive (RFC 9110 section 11.1), spelled out letter by letter so that Java and
 * JavaScript read the expression alike, without flags.
 */
export const bearerHeaderPattern = '^[Bb][Ee][Aa][Rr][Ee][Rr] +([-0-9A-Za-z._~+/]+=*)$';

const bearerHeader = new RegExp(bearerHeaderPattern);

/** The token of an `Authorization: Bearer <token>` value, or undefined when the value breaks the rule. */
export const bearerToken = (header: string | undefined): string | undefined =>
  header === undefined ? undefined : bearerHeader.exec(header)?.[1];
