// The one rule for the Authorization header: API Gateway checks it before invoking the authorizer (the TOKEN
// authorizer's identity validation expression, a Java regular expression), and the authorizer checks it again.

/**
 * `Bearer <token>`, the scheme as RFC 6750 writes it (case-sensitive, as API Gateway matches it), the token in the
 * b64token characters of RFC 6750 section 2.1. Written so that Java and JavaScript read it alike.
 */
export const bearerHeaderPattern = '^Bearer [-0-9A-Za-z._~+/]+=*$';

const bearerHeader = new RegExp(bearerHeaderPattern);

/** The token of an `Authorization: Bearer <token>` value, or undefined when the value breaks the rule. */
export const bearerToken = (header: string | undefined): string | undefined =>
  header !== undefined && bearerHeader.test(header) ? header.slice('Bearer '.length) : undefined;
