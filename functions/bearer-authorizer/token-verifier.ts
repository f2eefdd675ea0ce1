// Verifies bearer JWTs with jose: it is maintained, has no dependencies, verifies tokens of any OIDC provider
// (aws-jwt-verify targets Cognito first), and its remote JWKS caches keys across warm invocations and refetches
// them when a token names an unknown `kid` (key rotation), with a cool-down against floods of unknown kids.
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

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

/**
 * How long the issuer's keys may take to arrive: well within the authorizer's 5 s timeout, so that an issuer that
 * hangs is reported as the failure it is (500) before Lambda cuts the invocation off.
 */
const jwksTimeoutMs = 2_000;

/** OpenID Connect Core 1.0, section 2: `sub` "MUST NOT exceed 255 ASCII characters in length". */
const maxSubjectLength = 255;

/** RSA keys shorter than this are refused (RFC 7518, section 3.3: "A key of size 2048 bits or larger MUST be used"). */
const minRsaModulusBits = 2048;

/**
 * jose errors that say the token itself is not acceptable. Every other error (the JWKS endpoint answering an HTTP
 * error, garbage, or nothing in time; a bug) is a failure on our side: the client's token may well be valid.
 */
const tokenErrors = [
  errors.JWTExpired, // exp in the past
  errors.JWTClaimValidationFailed, // iss, nbf, required claims
  errors.JWTInvalid, // payload not a JWT claims set
  errors.JWSInvalid, // malformed compact serialization, bad header
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed, // alg not on the allow-list, `none`
  errors.JOSENotSupported, // crit extensions, algorithms jose does not know
  errors.JWKSNoMatchingKey, // no key for the kid, even after a refetch
  errors.JWKSMultipleMatchingKeys,
];

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

/** The claims jose does not check itself. */
const checkClaims = (payload: JWTPayload, config: TokenVerifierConfig): string => {
  const { sub, iat } = payload;
  if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('sub must be a non-empty string');
  if (sub.length > maxSubjectLength) throw new InvalidTokenError(`sub is longer than ${maxSubjectLength} characters`);
  if (typeof iat === 'number' && iat > Date.now() / 1000 + config.clockToleranceSeconds) {
    throw new InvalidTokenError('iat is in the future');
  }
  if (!audienceMatches(payload, config.audience)) throw new InvalidTokenError('audience mismatch');
  return sub;
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
  const remoteKeys = createRemoteJWKSet(new URL(config.jwksUri), { timeoutDuration: jwksTimeoutMs });
  // A weak key in the issuer's JWKS cannot vouch for a token: refused as the token's problem, before jose would
  // throw a TypeError for it.
  const keys: JWTVerifyGetKey = async (header, token) => {
    const key = await remoteKeys(header, token);
    const { modulusLength } = key.algorithm as { modulusLength?: number };
    if (modulusLength !== undefined && modulusLength < minRsaModulusBits) {
      throw new InvalidTokenError(`the issuer's key ${header.kid ?? ''} is a ${modulusLength}-bit RSA key`);
    }
    return key;
  };

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
      if (tokenErrors.some((type) => error instanceof type)) {
        throw new InvalidTokenError((error as errors.JOSEError).code, { cause: error });
      }
      throw error;
    }
    const sub = checkClaims(payload, config);
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : '';
    return { sub, scopes: scopesOf(payload), clientId };
  };
};
