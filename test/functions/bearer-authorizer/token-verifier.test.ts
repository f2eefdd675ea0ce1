import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
import { createTokenVerifier, InvalidTokenError } from '../../../functions/bearer-authorizer/token-verifier.ts';
import { refusedEndpoint } from '../../helpers/dynalite.ts';
import { paddedRsaKey, signingKey, signToken } from '../../helpers/token-issuer.ts';

const config = { issuer: 'https://issuer.test', audience: 'api', algorithms: ['RS256'], clockToleranceSeconds: 5 };
const validToken = async () => signToken(await signingKey('k', 'RS256'), { iss: config.issuer, aud: 'api', sub: 's' });

let jwksServer: Server | undefined;
afterEach(() => {
  jwksServer?.closeAllConnections();
  jwksServer?.close();
  jwksServer = undefined;
});

/** A JWKS endpoint that answers every request with `answer` (or never, without one). */
const jwksEndpoint = async (answer?: (response: import('node:http').ServerResponse) => void) => {
  jwksServer = createServer((_request, response) => answer?.(response));
  return `${await listenOnLoopback(jwksServer)}/jwks.json`;
};

describe('createTokenVerifier', () => {
  test('refuses to trust symmetric algorithms or none', () => {
    const jwksUri = 'https://issuer.test/jwks.json';
    expect(() => createTokenVerifier({ ...config, jwksUri, algorithms: ['RS256', 'HS256'] })).toThrow(
      /JWT_ALGORITHMS must list asymmetric algorithms among .*, not HS256$/,
    );
    expect(() => createTokenVerifier({ ...config, jwksUri, algorithms: ['none'] })).toThrow(/, not none$/);
  });

  test('fetches keys over https, or over plain http from a loopback issuer only', () => {
    for (const jwksUri of ['http://issuer.test/jwks.json', 'http://10.0.0.1/jwks.json', 'ftp://issuer.test/jwks']) {
      expect(() => createTokenVerifier({ ...config, jwksUri })).toThrow(/must be https/);
    }
    for (const jwksUri of ['https://issuer.test/jwks.json', 'http://127.0.0.1:1/jwks.json', 'http://[::1]:1/jwks']) {
      expect(typeof createTokenVerifier({ ...config, jwksUri })).toBe('function');
    }
  });
});

describe('issuer keys that cannot be had are a server-side failure, never an invalid token', () => {
  test.each([
    ['refused connections', async () => `${await refusedEndpoint()}/jwks.json`],
    [
      'an HTTP 503',
      () => jwksEndpoint((response) => response.writeHead(503, { 'Content-Type': 'text/plain' }).end('busy')),
    ],
    [
      'an HTML page',
      () => jwksEndpoint((response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>')),
    ],
    ['no answer (the fetch times out)', () => jwksEndpoint()],
  ])('%s', async (_case, endpoint) => {
    const verify = createTokenVerifier({ ...config, jwksUri: await endpoint() });

    const failure = verify(await validToken());

    await expect(failure).rejects.toThrow();
    await expect(failure).rejects.not.toBeInstanceOf(InvalidTokenError);
  });
});

describe('the 2048-bit rule is on the modulus, an integer, not on the octets that write it', () => {
  /** A verifier of keys the JWKS endpoint publishes, and a token of `key` it is given. */
  const verifyWith = async (key: ReturnType<typeof paddedRsaKey>) => {
    const jwksUri = await jwksEndpoint((response) =>
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] })),
    );
    const now = Math.floor(Date.now() / 1000);
    return createTokenVerifier({ ...config, jwksUri })(
      key.sign({ iss: config.issuer, aud: 'api', sub: 's', iat: now, exp: now + 3600 }),
    );
  };

  test('a 1024-bit key whose n is zero-padded to 256 octets is refused', async () => {
    const key = paddedRsaKey('weak-padded', 1024, 256);

    const verified = verifyWith(key);

    await expect(verified).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verified).rejects.toThrow(/is a 1024-bit RSA key/);
  });

  test('a 2048-bit key whose n has a leading zero octet (257 octets) is accepted', async () => {
    await expect(verifyWith(paddedRsaKey('strong-padded', 2048, 257))).resolves.toMatchObject({ sub: 's' });
  });
});
