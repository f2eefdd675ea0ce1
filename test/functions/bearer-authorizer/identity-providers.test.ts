// The tokens of the identity providers people bring (test/helpers/vendor-tokens.ts: each shaped as its vendor's page
// documents it), verified by the authorizer's own code with the settings docs/identity-providers.md gives for that
// provider; and how the authorizer finds an issuer's keys by OpenID Connect Discovery.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parseAlgorithms } from '../../../functions/bearer-authorizer/algorithms.ts';
import { authorize } from '../../../functions/bearer-authorizer/authorize.ts';
import { parseRouteScopes } from '../../../functions/bearer-authorizer/route-policy.ts';
import { createTokenVerifier, InvalidTokenError } from '../../../functions/bearer-authorizer/token-verifier.ts';
import { tokenAuthorizerEvent } from '../../helpers/events.ts';
import { type Settings, startVendorIssuer, type VendorIssuer, type Verdict } from '../../helpers/vendor-tokens.ts';

/**
 * The issuer here is a server in the test's own process: on a busy machine its answer can take longer than the authorizer's
 * 1 s default, which would turn a slow answer into a failed fetch and a retry (one discovery request too many).
 */
const issuerTimeoutMs = 30_000;

let vendor: VendorIssuer;
beforeAll(async () => {
  vendor = await startVendorIssuer();
});
afterAll(() => vendor.issuer.close());

/** The authorizer's answer for `token` under `settings`, keys found by discovery as with no JWKS_URI set. */
const verdictOf = async (token: string, settings: Settings) => {
  const verify = createTokenVerifier({
    issuer: vendor.issuer.issuer,
    audience: settings.JWT_AUDIENCE,
    algorithms: parseAlgorithms(settings.JWT_ALGORITHMS ?? 'RS256,ES256', 'JWT_ALGORITHMS'),
    clockToleranceSeconds: 5,
    issuerTimeoutMs,
  });
  try {
    const result = await authorize(tokenAuthorizerEvent(`Bearer ${token}`), {
      verify,
      routes: parseRouteScopes(settings.ROUTE_SCOPES ?? '', 'ROUTE_SCOPES'),
    });
    return { verdict: result.policyDocument.Statement[0]?.Effect as Verdict, context: result.context };
  } catch (error) {
    if (error instanceof InvalidTokenError) return { verdict: 401 as const, reason: error.message };
    throw error;
  }
};

// The shapes are known only once the issuer runs; jest names each case when the test runs.
test('every vendor shape gets its verdict, and names its client', async () => {
  const verdicts = await Promise.all(
    Object.entries(vendor.shapes).map(async ([name, shape]) => {
      const answer = await verdictOf(await vendor.sign(shape), shape.settings);
      const clientId = shape.clientId === undefined ? undefined : answer.context?.clientId;
      return { name, source: shape.source, verdict: answer.verdict, clientId };
    }),
  );
  expect(verdicts).toEqual(
    Object.entries(vendor.shapes).map(([name, shape]) => ({
      name,
      source: shape.source,
      verdict: shape.verdict,
      clientId: shape.clientId,
    })),
  );
});

describe('keys found by OpenID Connect Discovery (no JWKS_URI)', () => {
  const settings = { audience: 'plant-store' };
  const issuer = () => vendor.issuer;
  const token = () =>
    vendor.sign({
      source: 'https://openid.net/specs/openid-connect-discovery-1_0.html',
      settings: { JWT_AUDIENCE: 'plant-store' },
      header: {},
      claims: () => ({ iss: issuer().issuer, aud: 'plant-store', sub: 'client-1' }),
      verdict: 'Allow',
    });
  const discovery = () => `${new URL(issuer().issuer).pathname}/.well-known/openid-configuration`;

  test('the document is read once per execution environment, whatever the number of tokens', async () => {
    const before = issuer().requests(discovery());
    const verify = createTokenVerifier({
      issuer: issuer().issuer,
      ...settings,
      algorithms: ['RS256'],
      clockToleranceSeconds: 5,
      issuerTimeoutMs,
    });

    await Promise.all([verify(await token()), verify(await token())]);
    await verify(await token());

    expect(issuer().requests(discovery()) - before).toBe(1);
  });

  test.each([
    ['names another issuer', (origin: string) => ({ issuer: `${origin}/other`, jwks_uri: `${origin}/keys` })],
    ['names no jwks_uri', () => ({ issuer: issuer().issuer })],
    [
      'names keys over plain http off loopback',
      () => ({ issuer: issuer().issuer, jwks_uri: 'http://keys.example.com/' }),
    ],
  ])(
    'a document that %s is the issuer failing (500), never a token refused, and is asked again',
    async (_case, body) => {
      const origin = new URL(issuer().issuer).origin;
      issuer().answer(discovery(), 200, body(origin));
      const verify = createTokenVerifier({
        issuer: issuer().issuer,
        ...settings,
        algorithms: ['RS256'],
        clockToleranceSeconds: 5,
        issuerTimeoutMs,
      });
      try {
        const failure = verify(await token());
        await expect(failure).rejects.toThrow(/openid-configuration/);
        await expect(failure).rejects.not.toBeInstanceOf(InvalidTokenError);
        const asked = issuer().requests(discovery());
        await expect(verify(await token())).rejects.toThrow();
        expect(issuer().requests(discovery())).toBe(asked + 1);
      } finally {
        issuer().answer(discovery(), 200, { issuer: issuer().issuer, jwks_uri: `${origin}/keys` });
      }
    },
  );

  test('an issuer that is not https (nor loopback http) fails the cold start, naming the setting', () => {
    expect(() =>
      createTokenVerifier({
        issuer: 'http://id.example.com',
        ...settings,
        algorithms: ['RS256'],
        clockToleranceSeconds: 5,
      }),
    ).toThrow(/JWT_ISSUER .* must be https/);
  });
});
