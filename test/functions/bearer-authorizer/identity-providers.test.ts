// The tokens of the identity providers people bring, each shaped as its vendor documents it (the page is named per
// case), signed by keys generated here and verified by the authorizer's own code with the settings
// docs/identity-providers.md gives for that provider. The verdict is API Gateway's: Allow, Deny (403) or 401.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { JWTPayload } from 'jose';
import { parseAlgorithms } from '../../../functions/bearer-authorizer/algorithms.ts';
import { authorize } from '../../../functions/bearer-authorizer/authorize.ts';
import { createTokenVerifier, InvalidTokenError } from '../../../functions/bearer-authorizer/token-verifier.ts';
import { tokenAuthorizerEvent } from '../../helpers/events.ts';
import {
  type DiscoveryIssuer,
  publicJwk,
  type SigningKey,
  signingKey,
  signToken,
  startDiscoveryIssuer,
} from '../../helpers/token-issuer.ts';

let issuer: DiscoveryIssuer;
/** Entra ID publishes its keys without `alg` (and with x5t/x5c): this RS256 key is published bare. */
let entra: SigningKey;
const keys: Partial<Record<SigningKey['alg'], SigningKey>> = {};
const keyFor = (alg: SigningKey['alg']) => {
  const key = keys[alg];
  if (key === undefined) throw new Error(`no ${alg} key`);
  return key;
};

beforeAll(async () => {
  for (const alg of ['RS256', 'RS384', 'PS256', 'ES256', 'EdDSA', 'Ed25519'] as const) {
    keys[alg] = await signingKey(`${alg.toLowerCase()}-1`, alg);
  }
  entra = await signingKey('entra-x5t', 'RS256');
  issuer = await startDiscoveryIssuer([
    ...(await Promise.all(Object.values(keys).map((key) => publicJwk(key)))),
    await publicJwk(entra, true),
  ]);
});
afterAll(() => issuer.close());

interface Settings {
  audience: string;
  requiredScope?: string;
  algorithms?: string;
}
type Verdict = 'Allow' | 'Deny' | 401;

/** The authorizer's answer for `token` under `settings`, keys found by discovery as with no JWKS_URI set. */
const verdictOf = async (token: string, settings: Settings) => {
  const verify = createTokenVerifier({
    issuer: issuer.issuer,
    audience: settings.audience,
    algorithms: parseAlgorithms(settings.algorithms ?? 'RS256,ES256', 'JWT_ALGORITHMS'),
    clockToleranceSeconds: 5,
  });
  try {
    const result = await authorize(tokenAuthorizerEvent(`Bearer ${token}`), {
      verify,
      requiredScope: settings.requiredScope ?? '',
    });
    return { verdict: result.policyDocument.Statement[0]?.Effect as Verdict, context: result.context };
  } catch (error) {
    if (error instanceof InvalidTokenError) return { verdict: 401 as const, reason: error.message };
    throw error;
  }
};

const now = () => Math.floor(Date.now() / 1000);

interface Shape {
  /** The vendor's page the shape follows. */
  source: string;
  settings: Settings;
  key?: () => SigningKey;
  /** The protected header beyond alg and kid; `typ: undefined` leaves typ out. */
  header: Record<string, unknown>;
  claims: () => JWTPayload;
  verdict: Verdict;
  clientId?: string;
}

const cognitoClient = '4n1m0cl13nt1d5c0gn1t0000a';
const cognitoAccess = (): JWTPayload => ({
  sub: cognitoClient,
  token_use: 'access',
  scope: 'plants/write',
  auth_time: now(),
  iss: issuer.issuer,
  version: 2,
  jti: 'f1e2d3c4-0000-4000-8000-000000000001',
  client_id: cognitoClient,
});
const cognitoId = (): JWTPayload => ({
  sub: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
  aud: cognitoClient,
  email_verified: true,
  token_use: 'id',
  auth_time: now(),
  iss: issuer.issuer,
  'cognito:username': 'gardener',
  at_hash: 'Jd1Y5r1a6Pp1Tq0bGd0T0w',
  jti: 'f1e2d3c4-0000-4000-8000-000000000002',
  origin_jti: 'f1e2d3c4-0000-4000-8000-000000000003',
  email: 'gardener@example.com',
});
const auth0Api = 'https://plants.example.com';
const auth0Client = 'Zr8VmC3n9yq1lDkP0aB2cD3eF4gH5iJ6';
const entraApi = 'api://5c2b9f3e-8d1a-4b7c-9e6f-0a1b2c3d4e5f';
const entraClaims = (claims: JWTPayload): JWTPayload => ({
  aud: entraApi,
  iss: issuer.issuer,
  azp: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
  azpacr: '1',
  oid: '690222be-ff1a-4d56-abd1-7e4f7d38e474',
  tid: '72f988bf-86f1-41af-91ab-2d7cd011db47',
  sub: 'HKZpfaHyWadeOouYlitjrI-KffTm222X5rrV3xDqfKQ',
  uti: 'fqiBqXLPj0eQa82S-IYFAA',
  ver: '2.0',
  ...claims,
});

const shapes: Record<string, Shape> = {
  'Cognito access token (client credentials), with the stack own required scope': {
    source:
      'https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html',
    settings: { audience: cognitoClient, requiredScope: 'plants/write' },
    header: { typ: undefined },
    claims: cognitoAccess,
    verdict: 'Allow',
    clientId: cognitoClient,
  },
  'Cognito ID token of the same app client, bring-your-own pool with no required scope': {
    source:
      'https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-id-token.html',
    settings: { audience: cognitoClient },
    header: { typ: undefined },
    claims: cognitoId,
    verdict: 401,
  },
  'Cognito ID token of the same app client, with a required scope (401, not 403)': {
    source:
      'https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html',
    settings: { audience: cognitoClient, requiredScope: 'plants/write' },
    header: { typ: undefined },
    claims: cognitoId,
    verdict: 401,
  },
  'Auth0 machine-to-machine token (Auth0 token profile)': {
    source: 'https://auth0.com/docs/secure/tokens/access-tokens/access-token-profiles',
    settings: { audience: auth0Api, requiredScope: 'plants/write' },
    header: {},
    claims: () => ({
      iss: issuer.issuer,
      sub: `${auth0Client}@clients`,
      aud: auth0Api,
      scope: 'plants/write',
      gty: 'client-credentials',
      azp: auth0Client,
    }),
    verdict: 'Allow',
    clientId: auth0Client,
  },
  'Auth0 user token for the API and /userinfo (Auth0 token profile)': {
    source: 'https://auth0.com/docs/secure/tokens/access-tokens/access-token-profiles',
    settings: { audience: auth0Api, requiredScope: 'plants/write' },
    header: {},
    claims: () => ({
      iss: issuer.issuer,
      sub: 'auth0|6543210fedcba',
      aud: [auth0Api, `${issuer.issuer}/userinfo`],
      scope: 'openid profile plants/write',
      azp: auth0Client,
    }),
    verdict: 'Allow',
    clientId: auth0Client,
  },
  'Auth0 machine-to-machine token (RFC 9068 token profile: typ at+jwt, client_id)': {
    source: 'https://auth0.com/docs/secure/tokens/access-tokens/access-token-profiles',
    settings: { audience: auth0Api, requiredScope: 'plants/write' },
    header: { typ: 'at+jwt' },
    claims: () => ({
      iss: issuer.issuer,
      sub: `${auth0Client}@clients`,
      aud: auth0Api,
      scope: 'plants/write',
      client_id: auth0Client,
      jti: 'a1b2c3',
    }),
    verdict: 'Allow',
    clientId: auth0Client,
  },
  'Auth0 ID token (its audience is the client, not the API)': {
    source: 'https://auth0.com/docs/secure/tokens/id-tokens/id-token-structure',
    settings: { audience: auth0Api },
    header: {},
    claims: () => ({
      iss: issuer.issuer,
      sub: 'auth0|6543210fedcba',
      aud: auth0Client,
      nonce: 'n-0S6_WzA2Mj',
      name: 'A Gardener',
      sid: 'Hq2lRgxMP0hN3c6Q',
    }),
    verdict: 401,
  },
  'Entra ID v2 delegated token: scp is one space-separated string': {
    source: 'https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference',
    settings: { audience: entraApi, requiredScope: 'Plants.Write' },
    key: () => entra,
    header: { typ: 'JWT', x5t: 'entra-x5t' },
    claims: () => entraClaims({ scp: 'Plants.Read Plants.Write', name: 'A Gardener' }),
    verdict: 'Allow',
    clientId: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
  },
  'Entra ID v2 app-only token: application permissions in roles, no scp': {
    source: 'https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference',
    settings: { audience: entraApi, requiredScope: 'Plants.Write' },
    key: () => entra,
    header: { typ: 'JWT' },
    claims: () => entraClaims({ roles: ['Plants.Write'], idtyp: 'app' }),
    verdict: 'Allow',
    clientId: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
  },
  "Entra ID v2 delegated token: a user's role does not stand in for a scope the client lacks": {
    source: 'https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference',
    settings: { audience: entraApi, requiredScope: 'Plants.Write' },
    key: () => entra,
    header: { typ: 'JWT' },
    claims: () => entraClaims({ scp: 'Plants.Read', roles: ['Plants.Write'] }),
    verdict: 'Deny',
  },
  'Okta custom authorization server token: scp an array, the client in cid': {
    source: 'https://developer.okta.com/docs/api/openapi/okta-oauth/guides/overview/#access-token-payload',
    settings: { audience: 'api://default', requiredScope: 'plants/write' },
    header: {},
    claims: () => ({
      ver: 1,
      jti: 'AT.0mP4JKAZX1iACIT4vbEDF7LpvDVjxypPMf0D7uX39RE',
      iss: issuer.issuer,
      aud: 'api://default',
      cid: '0oa1a2b3c4d5e6f7g8h9',
      scp: ['plants/write'],
      sub: '0oa1a2b3c4d5e6f7g8h9',
    }),
    verdict: 'Allow',
    clientId: '0oa1a2b3c4d5e6f7g8h9',
  },
  'Keycloak access token: typ Bearer, the client in azp': {
    source: 'https://github.com/keycloak/keycloak/blob/main/core/src/main/java/org/keycloak/util/TokenUtil.java',
    settings: { audience: 'plant-store', requiredScope: 'plants/write' },
    header: { typ: 'JWT' },
    claims: () => ({
      iss: issuer.issuer,
      aud: 'plant-store',
      sub: 'f3c1b2a0-0000-4000-8000-00000000c10a',
      typ: 'Bearer',
      azp: 'plant-store-client',
      scope: 'profile email plants/write',
    }),
    verdict: 'Allow',
    clientId: 'plant-store-client',
  },
  'Keycloak ID token, even for an audience configured as the client': {
    source: 'https://github.com/keycloak/keycloak/blob/main/core/src/main/java/org/keycloak/util/TokenUtil.java',
    settings: { audience: 'plant-store-client' },
    header: { typ: 'JWT' },
    claims: () => ({
      iss: issuer.issuer,
      aud: 'plant-store-client',
      sub: 'f3c1b2a0-0000-4000-8000-00000000c10a',
      typ: 'ID',
      azp: 'plant-store-client',
      at_hash: 'x0D6kZ7_hash',
    }),
    verdict: 401,
  },
  'an RFC 9068 access token typed application/at+jwt in capitals': {
    source: 'https://www.rfc-editor.org/rfc/rfc9068#section-2.1',
    settings: { audience: 'plant-store' },
    header: { typ: 'Application/AT+JWT' },
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'client-1', client_id: 'client-1' }),
    verdict: 'Allow',
    clientId: 'client-1',
  },
  'a JWT typed as another kind of token (an OpenID back-channel logout token)': {
    source: 'https://openid.net/specs/openid-connect-backchannel-1_0.html#LogoutToken',
    settings: { audience: 'plant-store' },
    header: { typ: 'logout+jwt' },
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'user-1', sid: 's-1' }),
    verdict: 401,
  },
  'PS256 (RSASSA-PSS), when allowed': {
    source: 'https://www.rfc-editor.org/rfc/rfc7518#section-3.5',
    settings: { audience: 'plant-store', algorithms: 'PS256' },
    key: () => keyFor('PS256'),
    header: { typ: 'at+jwt' },
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'client-1' }),
    verdict: 'Allow',
  },
  'RS384, when allowed': {
    source: 'https://www.rfc-editor.org/rfc/rfc7518#section-3.3',
    settings: { audience: 'plant-store', algorithms: 'RS384' },
    key: () => keyFor('RS384'),
    header: {},
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'client-1' }),
    verdict: 'Allow',
  },
  'EdDSA on Ed25519, when allowed': {
    source: 'https://www.rfc-editor.org/rfc/rfc8037#section-3.1',
    settings: { audience: 'plant-store', algorithms: 'EdDSA' },
    key: () => keyFor('EdDSA'),
    header: {},
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'client-1' }),
    verdict: 'Allow',
  },
  'Ed25519 (the fully specified name), when allowed': {
    source: 'https://www.rfc-editor.org/rfc/rfc9864#section-2.2',
    settings: { audience: 'plant-store', algorithms: 'Ed25519' },
    key: () => keyFor('Ed25519'),
    header: {},
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'client-1' }),
    verdict: 'Allow',
  },
  'PS256 when only the default RS256 and ES256 are allowed': {
    source: 'https://www.rfc-editor.org/rfc/rfc8725#section-3.1',
    settings: { audience: 'plant-store' },
    key: () => keyFor('PS256'),
    header: {},
    claims: () => ({ iss: issuer.issuer, aud: 'plant-store', sub: 'client-1' }),
    verdict: 401,
  },
};

describe.each(Object.entries(shapes))('%s', (_name, shape) => {
  test(`is ${shape.verdict} (${shape.source})`, async () => {
    const key = shape.key?.() ?? keyFor('RS256');
    const token = await signToken(key, { exp: now() + 3600, ...shape.claims() }, shape.header);

    const answer = await verdictOf(token, shape.settings);

    expect(answer.verdict).toBe(shape.verdict);
    if (shape.clientId !== undefined) expect(answer.context?.clientId).toBe(shape.clientId);
  });
});

describe('keys found by OpenID Connect Discovery (no JWKS_URI)', () => {
  const settings = { audience: 'plant-store' };
  const token = () => signToken(keyFor('RS256'), { iss: issuer.issuer, aud: 'plant-store', sub: 'client-1' });
  const discovery = () => `${new URL(issuer.issuer).pathname}/.well-known/openid-configuration`;

  test('the document is read once per execution environment, whatever the number of tokens', async () => {
    const before = issuer.requests(discovery());
    const verify = createTokenVerifier({
      issuer: issuer.issuer,
      ...settings,
      algorithms: ['RS256'],
      clockToleranceSeconds: 5,
    });

    await Promise.all([verify(await token()), verify(await token())]);
    await verify(await token());

    expect(issuer.requests(discovery()) - before).toBe(1);
  });

  test.each([
    ['names another issuer', (origin: string) => ({ issuer: `${origin}/other`, jwks_uri: `${origin}/keys` })],
    ['names no jwks_uri', () => ({ issuer: issuer.issuer })],
    [
      'names keys over plain http off loopback',
      () => ({ issuer: issuer.issuer, jwks_uri: 'http://keys.example.com/' }),
    ],
  ])(
    'a document that %s is the issuer failing (500), never a token refused, and is asked again',
    async (_case, body) => {
      const origin = new URL(issuer.issuer).origin;
      issuer.answer(discovery(), 200, body(origin));
      const verify = createTokenVerifier({
        issuer: issuer.issuer,
        ...settings,
        algorithms: ['RS256'],
        clockToleranceSeconds: 5,
      });
      try {
        const failure = verify(await token());
        await expect(failure).rejects.toThrow(/openid-configuration/);
        await expect(failure).rejects.not.toBeInstanceOf(InvalidTokenError);
        const asked = issuer.requests(discovery());
        await expect(verify(await token())).rejects.toThrow();
        expect(issuer.requests(discovery())).toBe(asked + 1);
      } finally {
        issuer.answer(discovery(), 200, { issuer: issuer.issuer, jwks_uri: `${origin}/keys` });
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
