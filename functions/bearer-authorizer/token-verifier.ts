// Verifies bearer JWTs: access tokens of one OpenID Connect or OAuth 2.0 issuer (docs/identity-providers.md).
// aws-jwt-verify (AWS Labs) parses the token, fetches the issuer's JWKS over node:https, caches the keys across warm
// invocations, refetches them when a token names an unknown `kid` (key rotation, with a penalty box against floods of
// unknown kids) and checks the time and issuer claims. Where jose goes through WebCrypto and fetch (undici), which
// cost each cold start (docs/benchmarks.md measures the authorizer's), it uses node:crypto and node:https. The
// signature itself is checked here, with node:crypto, because aws-jwt-verify has no RSA-PSS (PS256/384/512) and no
// RFC 9864 `Ed25519`.
import { constants, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { FetchError, JwksValidationError, JwkValidationError, JwtBaseError } from 'aws-jwt-verify/error';
import { SimpleFetcher } from 'aws-jwt-verify/https';
import { assertIsSignatureJwk, type Jwk, SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { type DecomposedJwt, decomposeUnverifiedJwt, validateJwtFields } from 'aws-jwt-verify/jwt';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { type Algorithm, parseAlgorithms } from './algorithms.ts';
import { issuerTransport } from './issuer-address.ts';
import { scopesOf } from './scopes.ts';
import { authorizerVariableNames as names } from './variable-names.ts';

export interface TokenVerifierConfig {
  issuer: string;
  /** Matched against `aud`, or against Cognito's `client_id` for Cognito access tokens (which carry no `aud`). */
  audience: string;
  /** Where the issuer's keys are; undefined: where its OpenID Connect discovery document says. */
  jwksUri?: string | undefined;
  /** Allow-listed asymmetric algorithms, e.g. RS256, ES256 (algorithms.ts). */
  algorithms: readonly string[];
  clockToleranceSeconds: number;
  /** How long the issuer may take to answer each fetch; `defaultIssuerTimeoutMs` when unset. */
  issuerTimeoutMs?: number;
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

/**
 * How long the issuer may take to answer (its discovery document, its keys). aws-jwt-verify tries a failed fetch once
 * more at once, so an issuer that hangs is reported after twice this; discovery and keys together stay within the
 * authorizer's 5 s timeout: the failure it is (500), before Lambda cuts the invocation off.
 */
const defaultIssuerTimeoutMs = 1_000;

/** OpenID Connect Core 1.0, section 2: `sub` "MUST NOT exceed 255 ASCII characters in length". */
const maxSubjectLength = 255;

/** RSA keys shorter than this are refused (RFC 7518, section 3.3: "A key of size 2048 bits or larger MUST be used"). */
const minRsaModulusBits = 2048;

/** The JWK key type each algorithm family needs (RFC 7518, section 6.1; RFC 8037 and RFC 9864 for OKP). */
const keyTypeOf = (algorithm: Algorithm) => ({ RS: 'RSA', PS: 'RSA', ES: 'EC', Ed: 'OKP' })[algorithm.slice(0, 2)];

/**
 * RFC 7518, section 3.4: an ECDSA signature is R and S, each as long as the curve's order, concatenated (64 octets for
 * ES256 on P-256, 96 for ES384 on P-384, 132 for ES512 on P-521).
 */
const ecdsa: Partial<Record<Algorithm, { curve: string; signatureBytes: number }>> = {
  ES256: { curve: 'P-256', signatureBytes: 64 },
  ES384: { curve: 'P-384', signatureBytes: 96 },
  ES512: { curve: 'P-521', signatureBytes: 132 },
};

/** The curves of an OKP key each EdDSA name may use: RFC 8037's `EdDSA` either, RFC 9864's `Ed25519` its own. */
const edwardsCurves: Partial<Record<Algorithm, string[]>> = { EdDSA: ['Ed25519', 'Ed448'], Ed25519: ['Ed25519'] };

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
 * failure of ours, so it is refused here first. Answers the algorithm and the signature.
 */
const checkToken = (jwt: DecomposedJwt, algorithms: readonly Algorithm[]) => {
  decodedPart(jwt.headerB64, 'header');
  decodedPart(jwt.payloadB64, 'payload');
  const signature = decodedPart(jwt.signatureB64, 'signature');
  const algorithm = algorithms.find((allowed) => allowed === jwt.header.alg);
  if (algorithm === undefined) throw new InvalidTokenError(`alg ${String(jwt.header.alg)} is not allowed`);
  // RFC 7515, section 4.1.11: extensions listed in `crit` that are not understood (we understand none) MUST fail.
  if (jwt.header.crit !== undefined) throw new InvalidTokenError('crit extensions are not supported');
  const signatureBytes = ecdsa[algorithm]?.signatureBytes;
  if (signatureBytes !== undefined && signature.length !== signatureBytes) {
    throw new InvalidTokenError(`an ${algorithm} signature has ${signatureBytes} bytes, not ${signature.length}`);
  }
  return { algorithm, signature };
};

/**
 * The key the token names must fit its algorithm, checked before the signature: node:crypto throws for a key of
 * another type or curve than the algorithm's (an ES256 token naming an RSA, P-384 or Ed25519 key). Answers the key as
 * node:crypto reads it (`keyOf`).
 */
const checkKey = (algorithm: Algorithm, jwk: Jwk, keyOf: (jwk: Jwk) => KeyObject) => {
  if (jwk.kty !== keyTypeOf(algorithm)) throw new InvalidTokenError(`alg ${algorithm} does not fit a ${jwk.kty} key`);
  const curves = [ecdsa[algorithm]?.curve ?? edwardsCurves[algorithm]].flat();
  if (curves[0] !== undefined && !curves.includes(String(jwk.crv))) {
    throw new InvalidTokenError(`alg ${algorithm} does not fit a ${jwk.crv} key`);
  }
  // RFC 7517, section 4.4: a key that names its algorithm is for that one only.
  if (jwk.alg !== undefined && jwk.alg !== algorithm) {
    throw new InvalidTokenError(`alg ${algorithm} does not fit a key for ${jwk.alg}`);
  }
  assertIsSignatureJwk(jwk);
  const key = keyOf(jwk);
  // A weak key in the issuer's JWKS cannot vouch for a token. Its size is the modulus's, an integer (Node.js's
  // keyObject.asymmetricKeyDetails.modulusLength), not the octets of `n`: zeros first, 1024 bits fill 256 of them.
  const modulusBits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (jwk.kty === 'RSA' && modulusBits < minRsaModulusBits) {
    throw new InvalidTokenError(`the issuer's key ${String(jwk.kid ?? '')} is a ${modulusBits}-bit RSA key`);
  }
  return key;
};

/**
 * The JWS signature check of RFC 7518 section 3 (RSASSA-PKCS1-v1_5, RSASSA-PSS with a salt as long as the hash,
 * ECDSA as R || S) and RFC 8037 section 3.1 (EdDSA, whose curve implies the hash).
 */
const signatureValid = (algorithm: Algorithm, key: KeyObject, signingInput: string, signature: Buffer) => {
  const input = Buffer.from(signingInput);
  const hash = `sha${algorithm.slice(2)}`;
  switch (algorithm.slice(0, 2)) {
    case 'RS':
      return verify(hash, input, key, signature);
    case 'PS':
      return verify(
        hash,
        input,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
        signature,
      );
    case 'ES':
      return verify(hash, input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    default:
      return verify(null, input, key, signature);
  }
};

/**
 * aws-jwt-verify errors that say the issuer's keys could not be had (not reachable, not a JWKS, a key in it broken):
 * a failure on our side, since the client's token may well be valid. Every other error of the library is about the
 * token; anything else (a bug, an issuer whose discovery document is wrong) is ours too.
 */
const issuerErrors = [FetchError, JwksValidationError, JwkValidationError];

/**
 * Only access tokens are credentials for an API. An ID token tells a client who signed in (OpenID Connect Core 1.0,
 * sections 2 and 3.1.3.7: its audience is the client); other JWTs (logout, refresh) are not bearer credentials at all.
 * The marks issuers put on the kind of token:
 * - the header `typ`: RFC 9068 section 2.1 types access tokens `at+jwt`; RFC 7519 section 5.1's generic `JWT` (Entra
 *   ID, Auth0, Keycloak) says nothing either way. Compared as RFC 7515 section 4.1.9 says: case-insensitively, with
 *   `application/` optional;
 * - Cognito's `token_use`: `access` or `id` (Cognito's guide to verifying tokens);
 * - Keycloak's `typ` claim: `Bearer` for access tokens, `ID`, `Refresh`, `Logout` for the others.
 * An ID token without such a mark is refused by its audience (the client's id, not the API's):
 * docs/identity-providers.md.
 */
const genericTypes = new Set(['jwt', 'at+jwt']);
const checkAccessToken = (header: JwtHeader, payload: JwtPayload) => {
  const type = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : header.typ;
  if (type !== undefined && !genericTypes.has(String(type))) {
    throw new InvalidTokenError(`a token of typ ${String(header.typ)} is not an access token`);
  }
  if (payload.token_use !== undefined && payload.token_use !== 'access') {
    throw new InvalidTokenError(`a token_use ${String(payload.token_use)} token is not an access token`);
  }
  if (payload.typ !== undefined && String(payload.typ).toLowerCase() !== 'bearer') {
    throw new InvalidTokenError(`a typ ${String(payload.typ)} token is not an access token`);
  }
};

const audienceMatches = (payload: JwtPayload, audience: string) => {
  if (payload.aud !== undefined) return [payload.aud].flat().includes(audience);
  return payload.client_id === audience && payload.token_use === 'access';
};

/** The client the token was issued to: `client_id` (RFC 9068, Cognito), `azp` (Auth0, Entra ID, Keycloak), `cid` (Okta). */
const clientIdOf = (payload: JwtPayload) =>
  [payload.client_id, payload.azp, payload.cid].find((value): value is string => typeof value === 'string') ?? '';

const checkClaims = (jwt: DecomposedJwt, config: TokenVerifierConfig) => {
  const { sub, iat, exp } = jwt.payload;
  if (typeof exp !== 'number') throw new InvalidTokenError('exp must be a number');
  if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('sub must be a non-empty string');
  if (sub.length > maxSubjectLength) throw new InvalidTokenError(`sub is longer than ${maxSubjectLength} characters`);
  if (typeof iat === 'number' && iat > Date.now() / 1000 + config.clockToleranceSeconds) {
    throw new InvalidTokenError('iat is in the future');
  }
  checkAccessToken(jwt.header, jwt.payload);
  if (!audienceMatches(jwt.payload, config.audience)) throw new InvalidTokenError('audience mismatch');
  return sub;
};

/**
 * The request options that reach `uri` as issuer-address.ts allows: plain http goes through node:http's agent,
 * loaded only then (a request with an http.Agent is plain HTTP). Throws for any other address.
 */
const agentFor = (uri: string, what: string) => {
  const transport = issuerTransport(uri);
  if (transport === 'https') return {};
  if (transport === 'http') {
    const { Agent } = process.getBuiltinModule('node:http');
    return { agent: new Agent() };
  }
  throw new Error(`${what} must be https (plain http only for a loopback issuer), not ${uri}`);
};

/** aws-jwt-verify's fetcher (one retry, time limits), over https or to a loopback issuer over http. */
class IssuerFetcher extends SimpleFetcher {
  constructor(timeoutMs: number) {
    super({ defaultRequestOptions: { timeout: timeoutMs, responseTimeout: timeoutMs } });
  }
  override fetch(uri: string) {
    return super.fetch(uri, agentFor(uri, 'An issuer address'));
  }
}

/** OpenID Connect Discovery 1.0, section 4: the issuer, any trailing `/` removed, followed by this path. */
const discoveryPath = '/.well-known/openid-configuration';

/**
 * The JWKS address the issuer's discovery document names (its `jwks_uri`). The document must name the issuer it was
 * asked for, exactly (section 4.3), or an impostor could point at keys of its own. Any failure is the issuer's: 500.
 */
const discoverJwksUri = async (issuer: string, fetcher: IssuerFetcher): Promise<string> => {
  const url = `${issuer.replace(/\/$/, '')}${discoveryPath}`;
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await fetcher.fetch(url)));
  } catch (error) {
    if (error instanceof FetchError) throw error;
    throw new Error(`${url} is not a JSON discovery document`, { cause: error });
  }
  const { issuer: named, jwks_uri: jwksUri } = (document ?? {}) as Record<string, unknown>;
  if (named !== issuer) throw new Error(`${url} names the issuer ${String(named)}, not ${issuer}`);
  if (typeof jwksUri !== 'string') throw new Error(`${url} names no jwks_uri`);
  agentFor(jwksUri, `The jwks_uri of ${url}`);
  return jwksUri;
};

/**
 * A verifier for `config`; create it once per cold start so the keys (and the discovered JWKS address) survive warm
 * invocations. Rejects with InvalidTokenError for any token that is not acceptable; with other errors when the issuer's
 * keys cannot be had (a server-side failure, not the client's). Throws at once for a configuration that cannot work.
 */
export const createTokenVerifier = (config: TokenVerifierConfig) => {
  const algorithms = parseAlgorithms(config.algorithms.join(','), names.algorithms);
  if (config.jwksUri === undefined)
    agentFor(config.issuer, `${names.issuer} (whose discovery document names its keys)`);
  else agentFor(config.jwksUri, `The JWKS URI (${names.jwksUri})`);
  const fetcher = new IssuerFetcher(config.issuerTimeoutMs ?? defaultIssuerTimeoutMs);
  const jwks = new SimpleJwksCache({ fetcher });
  // Found once per execution environment; a failed discovery is tried again by the next token.
  let jwksUri = config.jwksUri === undefined ? undefined : Promise.resolve(config.jwksUri);
  const keysAddress = () => {
    jwksUri ??= discoverJwksUri(config.issuer, fetcher).catch((error: unknown) => {
      jwksUri = undefined;
      throw error;
    });
    return jwksUri;
  };
  // The keys as node:crypto objects, for as long as the JWKS cache holds the same JWK.
  const publicKeys = new WeakMap<Jwk, KeyObject>();
  const publicKey = (jwk: Jwk) => {
    let key = publicKeys.get(jwk);
    if (key === undefined) {
      key = createPublicKey({ key: jwk, format: 'jwk' });
      publicKeys.set(jwk, key);
    }
    return key;
  };

  const verifyToken = async (token: string): Promise<VerifiedToken> => {
    const jwt = decomposeUnverifiedJwt(token);
    const { algorithm, signature } = checkToken(jwt, algorithms);
    const jwk = await jwks.getJwk(await keysAddress(), jwt);
    const key = checkKey(algorithm, jwk, publicKey);
    if (!signatureValid(algorithm, key, `${jwt.headerB64}.${jwt.payloadB64}`, signature)) {
      throw new InvalidTokenError('the signature is not valid');
    }
    validateJwtFields(jwt.payload, {
      issuer: config.issuer,
      audience: null,
      graceSeconds: config.clockToleranceSeconds,
    });
    const sub = checkClaims(jwt, config);
    return { sub, scopes: scopesOf(jwt.payload), clientId: clientIdOf(jwt.payload) };
  };

  return async (token: string): Promise<VerifiedToken> => {
    try {
      return await verifyToken(token);
    } catch (error) {
      if (error instanceof JwtBaseError && !issuerErrors.some((type) => error instanceof type)) {
        throw new InvalidTokenError(error.message, { cause: error });
      }
      throw error;
    }
  };
};
