// The tokens of the identity providers people bring, each shaped as its vendor documents it (the page is named per
// shape), with the settings docs/identity-providers.md gives for that provider and the verdict API Gateway must give:
// Allow, Deny (403) or 401. Signed by keys generated here, published by an issuer found by OpenID Connect Discovery.
import type { JWTPayload } from 'jose';
import { operationScopes } from '../../functions/commons/contract/operation-scopes.ts';
import {
  type DiscoveryIssuer,
  publicJwk,
  type SigningKey,
  signingKey,
  signToken,
  startDiscoveryIssuer,
} from './token-issuer.ts';

/** The authorizer's settings, by their variable names. */
/**
 * The product's routes and their scopes as the stack hands them to the authorizer (ROUTE_SCOPES), each scope named
 * as `names` says (`-c scopes='{...}'`) or as openapi.yaml does.
 */
export const productRouteScopes = (names: Record<string, string> = {}) =>
  JSON.stringify(
    operationScopes.map(({ method, path, scopes }) => ({ method, path, scopes: scopes.map((s) => names[s] ?? s) })),
  );

export interface Settings {
  JWT_AUDIENCE: string;
  ROUTE_SCOPES?: string;
  JWT_ALGORITHMS?: string;
}
export type Verdict = 'Allow' | 'Deny' | 401;

interface Shape {
  /** The vendor's page (or the RFC) the shape follows. */
  source: string;
  settings: Settings;
  /** The key that signs it: RS256 unless said; `entra` is an RS256 key published without `alg`, as Entra ID's are. */
  key?: SigningKey['alg'] | 'entra';
  /** The protected header beyond alg and kid; `typ: undefined` leaves typ out. */
  header: Record<string, unknown>;
  claims: () => JWTPayload;
  verdict: Verdict;
  /** The client the authorizer must name in its context. */
  clientId?: string;
}

const now = () => Math.floor(Date.now() / 1000);

/** Every shape, for tokens of `issuer`. */
const shapesOf = (issuer: string): Record<string, Shape> => {
  const cognitoClient = '4n1m0cl13nt1d5c0gn1t0000a';
  const cognitoAccess = (): JWTPayload => ({
    sub: cognitoClient,
    token_use: 'access',
    scope: 'plants/write',
    auth_time: now(),
    iss: issuer,
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
    iss: issuer,
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
    iss: issuer,
    azp: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
    azpacr: '1',
    oid: '690222be-ff1a-4d56-abd1-7e4f7d38e474',
    tid: '72f988bf-86f1-41af-91ab-2d7cd011db47',
    sub: 'HKZpfaHyWadeOouYlitjrI-KffTm222X5rrV3xDqfKQ',
    uti: 'fqiBqXLPj0eQa82S-IYFAA',
    ver: '2.0',
    ...claims,
  });

  return {
    'Cognito access token (client credentials), with the stack own required scope': {
      source:
        'https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html',
      settings: { JWT_AUDIENCE: cognitoClient, ROUTE_SCOPES: productRouteScopes() },
      header: { typ: undefined },
      claims: cognitoAccess,
      verdict: 'Allow',
      clientId: cognitoClient,
    },
    'Cognito ID token of the same app client, bring-your-own pool with no required scope': {
      source:
        'https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-id-token.html',
      settings: { JWT_AUDIENCE: cognitoClient },
      header: { typ: undefined },
      claims: cognitoId,
      verdict: 401,
    },
    'Cognito ID token of the same app client, with a required scope (401, not 403)': {
      source:
        'https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html',
      settings: { JWT_AUDIENCE: cognitoClient, ROUTE_SCOPES: productRouteScopes() },
      header: { typ: undefined },
      claims: cognitoId,
      verdict: 401,
    },
    'Auth0 machine-to-machine token (Auth0 token profile)': {
      source: 'https://auth0.com/docs/secure/tokens/access-tokens/access-token-profiles',
      settings: { JWT_AUDIENCE: auth0Api, ROUTE_SCOPES: productRouteScopes() },
      header: {},
      claims: () => ({
        iss: issuer,
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
      settings: { JWT_AUDIENCE: auth0Api, ROUTE_SCOPES: productRouteScopes() },
      header: {},
      claims: () => ({
        iss: issuer,
        sub: 'auth0|6543210fedcba',
        aud: [auth0Api, `${issuer}/userinfo`],
        scope: 'openid profile plants/write',
        azp: auth0Client,
      }),
      verdict: 'Allow',
      clientId: auth0Client,
    },
    'Auth0 machine-to-machine token (RFC 9068 token profile: typ at+jwt, client_id)': {
      source: 'https://auth0.com/docs/secure/tokens/access-tokens/access-token-profiles',
      settings: { JWT_AUDIENCE: auth0Api, ROUTE_SCOPES: productRouteScopes() },
      header: { typ: 'at+jwt' },
      claims: () => ({
        iss: issuer,
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
      settings: { JWT_AUDIENCE: auth0Api },
      header: {},
      claims: () => ({
        iss: issuer,
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
      settings: { JWT_AUDIENCE: entraApi, ROUTE_SCOPES: productRouteScopes({ 'plants/write': 'Plants.Write' }) },
      key: 'entra',
      header: { typ: 'JWT', x5t: 'entra-x5t' },
      claims: () => entraClaims({ scp: 'Plants.Read Plants.Write', name: 'A Gardener' }),
      verdict: 'Allow',
      clientId: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
    },
    'Entra ID v2 app-only token: application permissions in roles, no scp': {
      source: 'https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference',
      settings: { JWT_AUDIENCE: entraApi, ROUTE_SCOPES: productRouteScopes({ 'plants/write': 'Plants.Write' }) },
      key: 'entra',
      header: { typ: 'JWT' },
      claims: () => entraClaims({ roles: ['Plants.Write'], idtyp: 'app' }),
      verdict: 'Allow',
      clientId: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
    },
    "Entra ID v2 delegated token: a user's role does not stand in for a scope the client lacks": {
      source: 'https://learn.microsoft.com/en-us/entra/identity-platform/access-token-claims-reference',
      settings: { JWT_AUDIENCE: entraApi, ROUTE_SCOPES: productRouteScopes({ 'plants/write': 'Plants.Write' }) },
      key: 'entra',
      header: { typ: 'JWT' },
      claims: () => entraClaims({ scp: 'Plants.Read', roles: ['Plants.Write'] }),
      verdict: 'Deny',
    },
    'Okta custom authorization server token: scp an array, the client in cid': {
      source: 'https://developer.okta.com/docs/api/openapi/okta-oauth/guides/overview/#access-token-payload',
      settings: { JWT_AUDIENCE: 'api://default', ROUTE_SCOPES: productRouteScopes() },
      header: {},
      claims: () => ({
        ver: 1,
        jti: 'AT.0mP4JKAZX1iACIT4vbEDF7LpvDVjxypPMf0D7uX39RE',
        iss: issuer,
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
      settings: { JWT_AUDIENCE: 'plant-store', ROUTE_SCOPES: productRouteScopes() },
      header: { typ: 'JWT' },
      claims: () => ({
        iss: issuer,
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
      settings: { JWT_AUDIENCE: 'plant-store-client' },
      header: { typ: 'JWT' },
      claims: () => ({
        iss: issuer,
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
      settings: { JWT_AUDIENCE: 'plant-store' },
      header: { typ: 'Application/AT+JWT' },
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'client-1', client_id: 'client-1' }),
      verdict: 'Allow',
      clientId: 'client-1',
    },
    'a JWT typed as another kind of token (an OpenID back-channel logout token)': {
      source: 'https://openid.net/specs/openid-connect-backchannel-1_0.html#LogoutToken',
      settings: { JWT_AUDIENCE: 'plant-store' },
      header: { typ: 'logout+jwt' },
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'user-1', sid: 's-1' }),
      verdict: 401,
    },
    'PS256 (RSASSA-PSS), when allowed': {
      source: 'https://www.rfc-editor.org/rfc/rfc7518#section-3.5',
      settings: { JWT_AUDIENCE: 'plant-store', JWT_ALGORITHMS: 'PS256' },
      key: 'PS256',
      header: { typ: 'at+jwt' },
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'client-1' }),
      verdict: 'Allow',
    },
    'RS384, when allowed': {
      source: 'https://www.rfc-editor.org/rfc/rfc7518#section-3.3',
      settings: { JWT_AUDIENCE: 'plant-store', JWT_ALGORITHMS: 'RS384' },
      key: 'RS384',
      header: {},
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'client-1' }),
      verdict: 'Allow',
    },
    'EdDSA on Ed25519, when allowed': {
      source: 'https://www.rfc-editor.org/rfc/rfc8037#section-3.1',
      settings: { JWT_AUDIENCE: 'plant-store', JWT_ALGORITHMS: 'EdDSA' },
      key: 'EdDSA',
      header: {},
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'client-1' }),
      verdict: 'Allow',
    },
    'Ed25519 (the fully specified name), when allowed': {
      source: 'https://www.rfc-editor.org/rfc/rfc9864#section-2.2',
      settings: { JWT_AUDIENCE: 'plant-store', JWT_ALGORITHMS: 'Ed25519' },
      key: 'Ed25519',
      header: {},
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'client-1' }),
      verdict: 'Allow',
    },
    'PS256 when only the default RS256 and ES256 are allowed': {
      source: 'https://www.rfc-editor.org/rfc/rfc8725#section-3.1',
      settings: { JWT_AUDIENCE: 'plant-store' },
      key: 'PS256',
      header: {},
      claims: () => ({ iss: issuer, aud: 'plant-store', sub: 'client-1' }),
      verdict: 401,
    },
  };
};

export interface VendorIssuer {
  issuer: DiscoveryIssuer;
  shapes: Record<string, Shape>;
  /** A token of `shape`, valid for an hour. */
  sign: (shape: Shape) => Promise<string>;
}

/** An issuer on loopback (its discovery document naming its keys) and the vendors' shapes of its tokens. */
export const startVendorIssuer = async (): Promise<VendorIssuer> => {
  const keys = new Map<Shape['key'], SigningKey>();
  for (const alg of ['RS256', 'RS384', 'PS256', 'ES256', 'EdDSA', 'Ed25519'] as const) {
    keys.set(alg, await signingKey(`${alg.toLowerCase()}-1`, alg));
  }
  keys.set('entra', await signingKey('entra-x5t', 'RS256'));
  const issuer = await startDiscoveryIssuer(
    await Promise.all([...keys].map(([name, key]) => publicJwk(key, name === 'entra'))),
  );
  return {
    issuer,
    shapes: shapesOf(issuer.issuer),
    sign: (shape) => {
      const key = keys.get(shape.key ?? 'RS256') as SigningKey;
      return signToken(key, { exp: now() + 3600, ...shape.claims() }, shape.header);
    },
  };
};
