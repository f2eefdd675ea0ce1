// A token issuer for tests: key pairs generated here, a JWKS served on loopback, and real signed JWTs.
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { serveJwks } from '../../infra/local/issuer/dev-issuer.ts';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

export const signingKey = async (kid: string, alg: SigningKey['alg']): Promise<SigningKey> => ({
  kid,
  alg,
  ...(await generateKeyPair(alg, { extractable: true })),
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
  const jwks = await serveJwks(() =>
    Promise.all(
      published.map(async ({ kid, alg, publicKey }) => ({ ...(await exportJWK(publicKey)), kid, alg, use: 'sig' })),
    ),
  );
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

/** A signed JWT: valid for an hour from now unless the claims say otherwise. */
export const signToken = (key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
};
