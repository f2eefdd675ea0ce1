// A token issuer for tests: key pairs generated here, a JWKS served on loopback, and real signed JWTs.
import { createServer } from 'node:http';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { listenOnLoopback } from '../../infra/local/loopback.ts';

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
  let fetches = 0;
  const server = createServer(async (request, response) => {
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    fetches += 1;
    const jwks = await Promise.all(
      published.map(async ({ kid, alg, publicKey }) => ({ ...(await exportJWK(publicKey)), kid, alg, use: 'sig' })),
    );
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: jwks }));
  });
  const issuer = await listenOnLoopback(server);
  return {
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    fetches: () => fetches,
    publish: (keys) => {
      published = keys;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/** A signed JWT: valid for an hour from now unless the claims say otherwise. */
export const signToken = (key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
};
