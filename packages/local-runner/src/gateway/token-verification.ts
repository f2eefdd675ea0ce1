// What API Gateway's two token authorizers check alike of a JWT: its signature, by the key of the issuer's JWKS that
// its `kid` names (a token without a `kid`, or naming no key of the issuer, is refused: "Control access to HTTP APIs
// with JWT authorizers in API Gateway" for HTTP APIs, Cognito's "Verifying JSON web tokens" for user pools), its
// issuer, and `exp` and `nbf` (RFC 7519 sections 4.1.4 and 4.1.5). `exp` must be there (jose checks it only when it
// is): the JWT authorizer page's "exp must be after the current time", and Cognito's tokens always carry it. What only
// one of them checks (an HTTP API's audiences, `iat` and scopes; a user pool's `token_use`) stays with it. Locally the issuer's JWKS is the development
// issuer's one key, ES256 (where AWS takes RSA keys).
import { type CryptoKey, errors, importJWK, type JWTPayload, jwtVerify } from 'jose';
import type { SigningKey } from '../issuer/dev-issuer.ts';

/**
 * The claims of `token` if it passes the shared checks for one of `issuers`; else undefined. One verifier serves every
 * token authorizer of a deployment, REST (authorizers/user-pool-authorizer.ts) and HTTP
 * (authorizers/jwt-authorizer.ts) alike.
 */
export type TokenVerifier = (token: string, issuers: string | string[]) => Promise<JWTPayload | undefined>;

export const tokenVerifier = (signingKey: SigningKey): TokenVerifier => {
  const key = importJWK(signingKey.publicJwk, 'ES256') as Promise<CryptoKey>;
  const keyOfKid = ({ kid }: { kid?: string }) => {
    if (kid !== signingKey.kid) throw new errors.JWKSNoMatchingKey();
    return key;
  };
  return async (token, issuers) => {
    try {
      return (await jwtVerify(token, keyOfKid, { issuer: issuers, algorithms: ['ES256'], requiredClaims: ['exp'] }))
        .payload;
    } catch {
      return undefined;
    }
  };
};

/**
 * The token in an authorizer's header value: the value alone, or after `Bearer `. Both authorizers take both forms:
 * the JWT authorizer page's "The identitySource can include only the token, or the token prefixed with Bearer", and
 * the Cognito guide's "add them as bearer tokens to an Authorization header" (whether a REST Cognito authorizer also
 * takes the token alone we have not seen settled, so it does, as it always did here).
 */
export const bearerToken = (value: string) => value.replace(/^Bearer /i, '');

/** A token's claims as both authorizers hand them to the function: each as text (an array's items joined by commas). */
export const claimsAsText = (claims: JWTPayload): Record<string, string> =>
  Object.fromEntries(Object.entries(claims).map(([name, value]) => [name, String(value)]));
