// Verifies bearer JWTs with jose: it is maintained, has no dependencies, verifies tokens of any OIDC provider
// (aws-jwt-verify targets Cognito first), and its remote JWKS caches keys across warm invocations and refetches
// them when a token names an unknown `kid` (key rotation), with a cool-down against floods of unknown kids.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';

export interface TokenVerifierConfig {
  issuer: string;
  /** Matched against `aud`, or against Cognito's `client_id` for Cognito access tokens (which carry no `aud`). */
  audience: string;
  jwksUri: string;
  /** Allow-listed asymmetric algorithms, e.g. RS256, ES256. */
  algorithms: string[];
  clockToleranceSeconds: number;
}

export interface VerifiedToken {
  sub: string;
  scopes: string[];
  clientId: string;
}

/** The token is not acceptable: the client should get 401. */
export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

const symmetric = /^HS/;

const audienceMatches = (payload: JWTPayload, audience: string) => {
  if (payload.aud !== undefined) return [payload.aud].flat().includes(audience);
  return payload.client_id === audience && payload.token_use === 'access';
};

/** `scope` (space-separated, RFC 8693 / Cognito) or `scp` (a list, some providers). */
const scopesOf = (payload: JWTPayload): string[] => {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope): scope is string => typeof scope === 'string');
  return [];
};

/**
 * A verifier for `config`; create it once per cold start so the JWKS cache survives warm invocations.
 * Rejects with InvalidTokenError for any token that is not acceptable; with other errors when the issuer's keys
 * cannot be fetched (a server-side failure, not the client's).
 */
export const createTokenVerifier = (config: TokenVerifierConfig) => {
  const unsafe = config.algorithms.filter((algorithm) => symmetric.test(algorithm) || algorithm === 'none');
  if (unsafe.length > 0)
    throw new Error(`JWT_ALGORITHMS must list asymmetric algorithms only, not ${unsafe.join(', ')}`);
  const keys = createRemoteJWKSet(new URL(config.jwksUri));

  return async (token: string): Promise<VerifiedToken> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        algorithms: config.algorithms,
        clockTolerance: config.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      const fetchFailed = error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid;
      if (error instanceof errors.JOSEError && !fetchFailed) throw new InvalidTokenError(error.code, { cause: error });
      throw error;
    }
    if (!audienceMatches(payload, config.audience)) throw new InvalidTokenError('audience mismatch');
    const { sub = '' } = payload;
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : '';
    return { sub, scopes: scopesOf(payload), clientId };
  };
};
