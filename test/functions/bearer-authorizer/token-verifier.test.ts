import { describe, expect, test } from '@jest/globals';
import { createTokenVerifier, InvalidTokenError } from '../../../functions/bearer-authorizer/token-verifier.ts';
import { refusedEndpoint } from '../../helpers/dynalite.ts';
import { signingKey, signToken } from '../../helpers/token-issuer.ts';

const config = { issuer: 'https://issuer.test', audience: 'api', algorithms: ['RS256'], clockToleranceSeconds: 5 };

describe('createTokenVerifier', () => {
  test('refuses to trust symmetric algorithms or none', () => {
    const jwksUri = 'https://issuer.test/jwks.json';
    expect(() => createTokenVerifier({ ...config, jwksUri, algorithms: ['RS256', 'HS256'] })).toThrow(
      /asymmetric algorithms only, not HS256/,
    );
    expect(() => createTokenVerifier({ ...config, jwksUri, algorithms: ['none'] })).toThrow(/not none/);
  });

  test('an unreachable JWKS is a server-side failure, not an invalid token', async () => {
    const verify = createTokenVerifier({ ...config, jwksUri: `${await refusedEndpoint()}/jwks.json` });
    const token = await signToken(await signingKey('k', 'RS256'), { iss: config.issuer, aud: 'api', sub: 's' });

    const failure = verify(token);

    await expect(failure).rejects.toBeDefined();
    await expect(failure).rejects.not.toBeInstanceOf(InvalidTokenError);
  });
});
