// An HTTP API's JWT authorizer ("Control access to HTTP APIs with JWT authorizers in API Gateway", its "Authorizing
// API requests with a JWT authorizer"): the token in the identity source, alone or after `Bearer `; the checks shared
// with user pools (token-verification.ts: the key its `kid` names, `iss` the configured issuer, `exp`, `nbf`); `iat`
// not in the future; `aud` one of the audiences, or, only when the token has no `aud`, `client_id` ("Troubleshooting
// issues with HTTP API JWT authorizers": "When both aud and client_id are present, API Gateway evaluates aud"); else
// 401. A route's scopes: one of them in the token's `scope` or `scp`, else 403. Locally the development issuer signs
// the issuer's tokens (`cdk-local-runner token --issuer`, or `--pool` for a Cognito issuer).
import type { JWTPayload } from 'jose';
import type { JwtAuthorizerDefinition } from '../../app/http-api.ts';
import { resolveValue, type ValueContext } from '../../app/intrinsics.ts';
import { bearerToken, claimsAsText, type TokenVerifier } from '../token-verification.ts';
import {
  type Authorizer,
  type AuthorizerDecision,
  type AuthorizerRequest,
  headerValues,
  refuse,
} from './authorizer.ts';

/**
 * A header's value as Node reads one sent more than once (IncomingMessage's `headers`): Authorization's first, any
 * other's joined by `, `.
 */
const headerValue = (headers: Record<string, string[]>, name: string) => {
  const values = headerValues(headers, name);
  return name.toLowerCase() === 'authorization' ? values[0] : values.length > 0 ? values.join(', ') : undefined;
};

export class JwtAuthorizer implements Authorizer {
  readonly #headerName: string;
  readonly #issuer: string;
  readonly #audience: string[];
  readonly #verify: TokenVerifier;

  /** `stack`: where the definition's issuer and audiences are resolved. */
  constructor(definition: JwtAuthorizerDefinition, stack: ValueContext, verify: TokenVerifier) {
    this.#headerName = definition.headerName.toLowerCase();
    this.#issuer = resolveValue(definition.issuer, stack);
    this.#audience = definition.audience.map((value) => resolveValue(value, stack));
    this.#verify = verify;
  }

  /** Whether `claims` pass the checks only an HTTP API's JWT authorizer makes: `iat`, then `aud` or `client_id`. */
  #fits(claims: JWTPayload) {
    if (claims.iat !== undefined && claims.iat > Math.floor(Date.now() / 1000)) return false;
    const presented = claims.aud === undefined ? [claims.client_id] : [claims.aud].flat();
    return presented.some((value) => typeof value === 'string' && this.#audience.includes(value));
  }

  /** The decision for `request` on a route of its `scopes`; the function gets the claims and scopes as `jwt`. */
  async authorize(request: AuthorizerRequest): Promise<{ decision: AuthorizerDecision }> {
    const { scopes = [] } = request;
    const sent = headerValue(request.headers, this.#headerName);
    const token = sent === undefined ? '' : bearerToken(sent);
    const claims = await this.#verify(token, this.#issuer);
    if (!claims || !this.#fits(claims)) return { decision: refuse('UNAUTHORIZED', 'Unauthorized') };
    const granted = [claims.scope, claims.scp]
      .flatMap((value) => (typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : []))
      .map(String);
    if (scopes.length > 0 && !scopes.some((scope) => granted.includes(scope)))
      return { decision: refuse('ACCESS_DENIED', 'Forbidden') };
    const jwt = { claims: claimsAsText(claims), scopes: granted.length > 0 ? granted : null };
    return { decision: { allowed: true, authorizer: { jwt } } };
  }
}
