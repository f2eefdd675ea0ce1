// Verifies bearer JWTs with aws-jwt-verify (AWS Labs): it verifies with node:crypto's own keys and fetches the JWKS
// over node:https, where jose goes through WebCrypto and fetch (undici), which made most of its cold start
// (docs/benchmarks.md); it verifies tokens of any OIDC issuer (`JwtVerifier`), caches the keys across warm invocations
// and refetches them when a token names an unknown `kid` (key rotation), with a penalty box against floods of unknown
// kids.
import { JwtVerifier } from 'aws-jwt-verify';
import { FetchError, JwksValidationError, JwkValidationError, JwtBaseError } from 'aws-jwt-verify/error';
import { SimpleFetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { DecomposedJwt } from 'aws-jwt-verify/jwt';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

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
 * How long the issuer's keys may take to arrive. aws-jwt-verify tries a failed fetch once more at once, so an issuer
 * that hangs is reported after twice this, well within the authorizer's 5 s timeout: the failure it is (500), before
 * Lambda cuts the invocation off.
 */
const jwksTimeoutMs = 1_500;

/** OpenID Connect Core 1.0, section 2: `sub` "MUST NOT exceed 255 ASCII characters in length". */
const maxSubjectLength = 255;

/** RSA keys shorter than this are refused (RFC 7518, section 3.3: "A key of size 2048 bits or larger MUST be used"). */
const minRsaModulusBits = 2048;

/** The JWK key type each algorithm family needs (RFC 7518, section 6.1; RFC 8037 for OKP). */
const keyTypeOf = (algorithm: string) => ({ RS: 'RSA', ES: 'EC', Ed: 'OKP' })[algorithm.slice(0, 2)];

/**
 * RFC 7518, section 3.4: an ECDSA signature is R and S, each as long as the curve's order, concatenated (64 octets for
 * ES256 on P-256, 96 for ES384 on P-384, 132 for ES512 on P-521).
 */
const ecdsa: Record<string, { curve: string; signatureBytes: number }> = {
  ES256: { curve: 'P-256', signatureBytes: 64 },
  ES384: { curve: 'P-384', signatureBytes: 96 },
  ES512: { curve: 'P-521', signatureBytes: 132 },
};

/**
 * RFC 7515, section 2: each part is base64url "with all trailing '=' characters omitted" and no other characters.
 * Decoders are lenient (padding, the `+/` alphabet, stray characters and the unused low bits of the last character are
 * dropped or ignored), so a token that is not written back identically is not the token that was signed.
 */
const decodedPart = (part: string, name: string) => {
  const bytes = Buffer.from(part, 'base64url');
  if (part === '' || bytes.toString('base64url') !== part) {
    throw new InvalidTokenError(`the ${name} is not canonical base64url`);
  }
  return bytes;
};

/**
 * What aws-jwt-verify leaves to its caller, checked before the issuer's keys are looked up: the token's own bytes.
 * node:crypto throws (rather than answering "invalid") for an EC signature of the wrong length: a forgery, never a
 * failure of ours, so it is refused here first.
 */
const checkToken = (jwt: DecomposedJwt, config: TokenVerifierConfig) => {
  decodedPart(jwt.headerB64, 'header');
  decodedPart(jwt.payloadB64, 'payload');
  const signature = decodedPart(jwt.signatureB64, 'signature');
  const algorithm = String(jwt.header.alg);
  if (!config.algorithms.includes(algorithm)) throw new InvalidTokenError(`alg ${algorithm} is not allowed`);
  // RFC 7515, section 4.1.11: extensions listed in `crit` that are not understood (we understand none) MUST fail.
  if (jwt.header.crit !== undefined) throw new InvalidTokenError('crit extensions are not supported');
  const signatureBytes = ecdsa[algorithm]?.signatureBytes;
  if (signatureBytes !== undefined && signature.length !== signatureBytes) {
    throw new InvalidTokenError(`an ${algorithm} signature has ${signatureBytes} bytes, not ${signature.length}`);
  }
};

/**
 * The key the token names must fit its algorithm, checked before the signature: node:crypto throws for a key of
 * another type or curve than the algorithm's (an ES256 token naming an RSA, P-384 or Ed25519 key).
 */
const checkKey = (algorithm: string, jwk: Record<string, unknown>) => {
  if (jwk.kty !== keyTypeOf(algorithm)) throw new InvalidTokenError(`alg ${algorithm} does not fit a ${jwk.kty} key`);
  const curve = ecdsa[algorithm]?.curve;
  if (curve !== undefined && jwk.crv !== curve) {
    throw new InvalidTokenError(`alg ${algorithm} does not fit a ${jwk.crv} key`);
  }
  const modulusBits = typeof jwk.n === 'string' ? Buffer.from(jwk.n, 'base64url').length * 8 : undefined;
  // A weak key in the issuer's JWKS cannot vouch for a token.
  if (modulusBits !== undefined && modulusBits < minRsaModulusBits) {
    throw new InvalidTokenError(`the issuer's key ${String(jwk.kid ?? '')} is a ${modulusBits}-bit RSA key`);
  }
};

/**
 * aws-jwt-verify errors that say the issuer's keys could not be had (not reachable, not a JWKS, a key in it broken):
 * a failure on our side, since the client's token may well be valid. Every other error of the library is about the
 * token; anything else (a bug) is ours too.
 */
const issuerErrors = [FetchError, JwksValidationError, JwkValidationError];

const audienceMatches = (payload: JwtPayload, audience: string) => {
  if (payload.aud !== undefined) return [payload.aud].flat().includes(audience);
  return payload.client_id === audience && payload.token_use === 'access';
};

/** `scope` (space-separated, RFC 8693 / Cognito) or `scp` (a list, some providers). */
const scopesOf = (payload: JwtPayload): string[] => {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope): scope is string => typeof scope === 'string');
  return [];
};

const checkClaims = (payload: JwtPayload, config: TokenVerifierConfig) => {
  const { sub, iat, exp } = payload;
  if (typeof exp !== 'number') throw new InvalidTokenError('exp must be a number');
  if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('sub must be a non-empty string');
  if (sub.length > maxSubjectLength) throw new InvalidTokenError(`sub is longer than ${maxSubjectLength} characters`);
  if (typeof iat === 'number' && iat > Date.now() / 1000 + config.clockToleranceSeconds) {
    throw new InvalidTokenError('iat is in the future');
  }
  if (!audienceMatches(payload, config.audience)) throw new InvalidTokenError('audience mismatch');
};

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The JWKS fetcher: over https, as aws-jwt-verify requires. Plain http is accepted for a loopback issuer only (the
 * local runner's development issuer), which no deployed function can reach; it goes through node:http's agent, loaded
 * only then (a request with an http.Agent is plain HTTP).
 */
const jwksFetcher = (jwksUri: string) => {
  const { protocol, hostname } = new URL(jwksUri);
  const defaultRequestOptions = { timeout: jwksTimeoutMs, responseTimeout: jwksTimeoutMs };
  if (protocol === 'https:') return new SimpleFetcher({ defaultRequestOptions });
  if (protocol === 'http:' && loopbackHosts.has(hostname)) {
    const { Agent } = process.getBuiltinModule('node:http');
    return new SimpleFetcher({ defaultRequestOptions: { ...defaultRequestOptions, agent: new Agent() } });
  }
  throw new Error(`The JWKS URI must be https (plain http only for a loopback issuer), not ${jwksUri}`);
};

/**
 * The JWKS cache, with the token checked before its key is looked up (so a malformed token fetches nothing) and the
 * key checked after: both before aws-jwt-verify checks the signature.
 */
class CheckingJwksCache extends SimpleJwksCache {
  readonly #config: TokenVerifierConfig;
  constructor(config: TokenVerifierConfig) {
    super({ fetcher: jwksFetcher(config.jwksUri) });
    this.#config = config;
  }
  override async getJwk(jwksUri: string, jwt: DecomposedJwt) {
    checkToken(jwt, this.#config);
    const jwk = await super.getJwk(jwksUri, jwt);
    checkKey(String(jwt.header.alg), jwk as unknown as Record<string, unknown>);
    return jwk;
  }
}

/**
 * A verifier for `config`; create it once per cold start so the JWKS cache survives warm invocations.
 * Rejects with InvalidTokenError for any token that is not acceptable; with other errors when the issuer's keys
 * cannot be fetched (a server-side failure, not the client's).
 */
export const createTokenVerifier = (config: TokenVerifierConfig) => {
  const unsafe = config.algorithms.filter((algorithm) => symmetric.test(algorithm) || algorithm === 'none');
  if (unsafe.length > 0)
    throw new Error(`JWT_ALGORITHMS must list asymmetric algorithms only, not ${unsafe.join(', ')}`);
  const verifier = JwtVerifier.create(
    {
      issuer: config.issuer,
      jwksUri: config.jwksUri,
      // Checked below: Cognito access tokens carry the audience in client_id.
      audience: null,
      graceSeconds: config.clockToleranceSeconds,
      customJwtCheck: ({ payload }) => checkClaims(payload, config),
    },
    { jwksCache: new CheckingJwksCache(config) },
  );

  return async (token: string): Promise<VerifiedToken> => {
    let payload: JwtPayload;
    try {
      payload = await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof JwtBaseError && !issuerErrors.some((type) => error instanceof type)) {
        throw new InvalidTokenError(error.message, { cause: error });
      }
      throw error;
    }
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : '';
    return { sub: payload.sub as string, scopes: scopesOf(payload), clientId };
  };
};
