// The one rule for the Authorization header: API Gateway checks it before invoking the authorizer (the TOKEN
// authorizer's identity validation expression, a Java regular expression), and the authorizer checks it again.

/**
 * `Bearer <token>` as RFC 6750 section 2.1 writes it: the scheme, one or more spaces, the token; the token a JWS in its
 * compact serialization (RFC 7515 section 7.1: three non-empty base64url parts, RFC 7515 section 2 base64url without
 * padding), the only tokens this authorizer can verify. Anything else (a placeholder such as `eyJhbGciOi...`, an opaque
 * token, a JWE's five parts) is answered 401 by API Gateway without invoking the authorizer: no invocation to pay, and
 * no failed invocation in its log. The scheme is case-insensitive (RFC 9110 section 11.1), spelled out letter by letter
 * so that Java and JavaScript read the expression alike, without flags.
 */
export const bearerHeaderPattern = '^[Bb][Ee][Aa][Rr][Ee][Rr] +([-0-9A-Za-z_]+[.][-0-9A-Za-z_]+[.][-0-9A-Za-z_]+)$';

const bearerHeader = new RegExp(bearerHeaderPattern);

/** The token of an `Authorization: Bearer <token>` value, or undefined when the value breaks the rule. */
export const bearerToken = (header: string | undefined): string | undefined =>
  header === undefined ? undefined : bearerHeader.exec(header)?.[1];
