// A token issuer for tests: key pairs generated here, a JWKS (and an OpenID Connect discovery document) served on
// loopback, and real signed JWTs.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { listenOnLoopback, serveJwks } from 'cdk-local-runner';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'RS384' | 'PS256' | 'ES256' | 'EdDSA' | 'Ed25519';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

export const signingKey = async (kid: string, alg: SigningKey['alg']): Promise<SigningKey> => ({
  kid,
  alg,
  ...(await generateKeyPair(alg, { extractable: true })),
});

/** A key as issuers publish it: with its `alg` and `use`, unless `bare` (Entra ID's keys name no `alg`). */
export const publicJwk = async ({ kid, alg, publicKey }: SigningKey, bare = false): Promise<JWK> => ({
  ...(await exportJWK(publicKey)),
  kid,
  ...(bare ? {} : { alg, use: 'sig' }),
});

export interface TestIssuer {
  issuer: string;
  jwksUri: string;
  /** How often the JWKS was fetched. */
  fetches: () => number;
  /** Replaces the published keys. */
  publish: (keys: SigningKey[]) => void;
  close: () => Promise<void>;
}

export const startIssuer = async (keys: SigningKey[]): Promise<TestIssuer> => {
  let published = keys;
  const jwks = await serveJwks(() => Promise.all(published.map((key) => publicJwk(key))));
  return {
    issuer: jwks.url,
    jwksUri: jwks.jwksUri,
    fetches: jwks.fetches,
    publish: (keys) => {
      published = keys;
    },
    close: jwks.close,
  };
};

export interface DiscoveryIssuer {
  /** `http://127.0.0.1:<port>/<path>`: the issuer, whose discovery document names its keys at `/keys`. */
  issuer: string;
  /** Requests by path. */
  requests: (path: string) => number;
  /** Replaces what `path` answers (status and JSON body); `keys` are published at `/keys`. */
  answer: (path: string, status: number, body: unknown) => void;
  close: () => Promise<void>;
}

/**
 * An OpenID provider's metadata on loopback: `<issuer>/.well-known/openid-configuration` naming `jwks_uri`
 * `<origin>/keys` (not where Cognito and Auth0 keep theirs), as OpenID Connect Discovery 1.0 section 4 lays out.
 */
export const startDiscoveryIssuer = async (keys: JWK[], path = '/tenant/v2.0'): Promise<DiscoveryIssuer> => {
  const counts = new Map<string, number>();
  const answers = new Map<string, { status: number; body: unknown }>();
  const server = createServer((request, response) => {
    const url = request.url ?? '';
    counts.set(url, (counts.get(url) ?? 0) + 1);
    const { status, body } = answers.get(url) ?? { status: 404, body: { error: 'not found' } };
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  const origin = await listenOnLoopback(server);
  const issuer = `${origin}${path}`;
  answers.set(`${path}/.well-known/openid-configuration`, {
    status: 200,
    body: { issuer, jwks_uri: `${origin}/keys`, token_endpoint: `${origin}/token` },
  });
  answers.set('/keys', { status: 200, body: { keys } });
  return {
    issuer,
    requests: (path) => counts.get(path) ?? 0,
    answer: (path, status, body) => answers.set(path, { status, body }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** A signed JWT: valid for an hour from now unless the claims say otherwise. */
export const signToken = (key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
};

/**
 * An RS256 key of `modulusLength` bits whose JWK writes `n` in `octets` octets, zeros first (RFC 7518 section 6.3.1.1
 * asks for the fewest; an issuer may not keep to it), with a signer of tokens through node:crypto (jose refuses to sign
 * with an RSA key under 2048 bits).
 */
export const paddedRsaKey = (kid: string, modulusLength: number, octets: number) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength });
  const { n, ...jwk } = publicKey.export({ format: 'jwk' });
  const modulus = Buffer.from(String(n), 'base64url');
  const padded = Buffer.concat([Buffer.alloc(octets - modulus.length), modulus]).toString('base64url');
  return {
    jwk: { ...jwk, n: padded, kid, alg: 'RS256', use: 'sig' },
    /** A compact JWS of `claims`, as given (no iat or exp added). */
    sign: (claims: Record<string, unknown>) => {
      const input = [{ alg: 'RS256', kid, typ: 'JWT' }, claims]
        .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
        .join('.');
      return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
    },
  };
};
