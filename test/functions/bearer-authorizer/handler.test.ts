// The TOKEN authorizer through its handler, with real tokens signed by keys generated here and a JWKS on loopback.
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { base64url, type CryptoKey, exportSPKI, type JWTPayload, UnsecuredJWT } from 'jose';
import { lambdaContext, tokenAuthorizerEvent } from '../../helpers/events.ts';
import { type SigningKey, signingKey, signToken, startIssuer, type TestIssuer } from '../../helpers/token-issuer.ts';
import { productRouteScopes } from '../../helpers/vendor-tokens.ts';

const audience = 'plant-store-api';
const requiredScope = 'plants/write';
let issuer: TestIssuer;
let rsa: SigningKey;
let ec: SigningKey;
/** A 1024-bit RSA key the issuer publishes beside its good ones (jose cannot sign with it: node:crypto does). */
const weakRsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
const weakKey = {
  kid: 'weak-1',
  alg: 'RS256',
  privateKey: weakRsa.privateKey as unknown as CryptoKey,
  publicKey: weakRsa.publicKey as unknown as CryptoKey,
} as const;
let handler: (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

beforeAll(async () => {
  [rsa, ec] = await Promise.all([signingKey('rsa-1', 'RS256'), signingKey('ec-1', 'ES256')]);
  issuer = await startIssuer([rsa, ec, weakKey]);
  Object.assign(process.env, {
    JWT_ISSUER: issuer.issuer,
    JWT_AUDIENCE: audience,
    JWKS_URI: issuer.jwksUri,
    ROUTE_SCOPES: productRouteScopes(),
  });
  ({ handler } = await import('../../../functions/bearer-authorizer/handler.ts'));
});

afterAll(() => issuer.close());

const validClaims = (): JWTPayload => ({
  iss: issuer.issuer,
  aud: audience,
  sub: 'user-42',
  scope: `openid ${requiredScope}`,
  client_id: 'app-7',
});
const authorizeToken = (token: string) =>
  handler(tokenAuthorizerEvent(`Bearer ${token}`), lambdaContext('bearer-authorizer'));
/**
 * Refused as API Gateway asks for a 401: a failure whose message is exactly `Unauthorized`, with no stack (Lambda's
 * runtime logs a failed invocation with its error's stack: a refused token is one log line, docs/operations.md).
 */
const expectUnauthorized = async (token: string) => {
  const refusal = await authorizeToken(token).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(Error);
  expect({ message: (refusal as Error).message, stack: (refusal as Error).stack }).toEqual({
    message: 'Unauthorized',
    stack: undefined,
  });
};
const now = () => Math.floor(Date.now() / 1000);

describe('a valid token', () => {
  test('is allowed the routes its scopes reach, with the subject as principal and a flat string context', async () => {
    const result = await authorizeToken(await signToken(rsa, validClaims()));

    expect(result).toEqual({
      principalId: 'user-42',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123defg/prod/POST/plants',
          },
        ],
      },
      context: { sub: 'user-42', scope: `openid ${requiredScope}`, clientId: 'app-7', missingScopes: '' },
    });
  });

  test('is allowed when signed with ES256', async () => {
    const result = await authorizeToken(await signToken(ec, validClaims()));
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  });

  test('is allowed as a Cognito access token: no aud, the app client in client_id', async () => {
    const { aud: _aud, ...claims } = validClaims();
    const result = await authorizeToken(await signToken(rsa, { ...claims, client_id: audience, token_use: 'access' }));
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  });

  test('is allowed a few seconds after expiry (clock tolerance)', async () => {
    const result = await authorizeToken(await signToken(rsa, { ...validClaims(), exp: now() - 2 }));
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  });

  test.each(['bearer', 'BEARER', 'bEaReR'])(
    'is allowed with the scheme written %s: RFC 9110 section 11.1, the scheme is case-insensitive',
    async (scheme) => {
      const token = await signToken(rsa, validClaims());
      const result = await handler(tokenAuthorizerEvent(`${scheme} ${token}`), lambdaContext());
      expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    },
  );

  test('is allowed after more than one space (RFC 6750 section 2.1: 1*SP)', async () => {
    const result = await handler(
      tokenAuthorizerEvent(`Bearer   ${await signToken(rsa, validClaims())}`),
      lambdaContext(),
    );
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  });

  test("without a route's scope is denied that route (403), not refused, and told what it lacks", async () => {
    const result = await authorizeToken(await signToken(rsa, { ...validClaims(), scope: 'plants/read' }));
    expect(result.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Deny',
        Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123defg/prod/POST/plants',
      },
    ]);
    expect(result.principalId).toBe('user-42');
    expect(result.context?.missingScopes).toBe('plants/write');
  });
});

describe('the issuer keys', () => {
  test('are cached across invocations and refetched when the issuer rotates to a new key', async () => {
    await authorizeToken(await signToken(rsa, validClaims()));
    const fetchesBefore = issuer.fetches();
    await authorizeToken(await signToken(ec, validClaims()));
    expect(issuer.fetches()).toBe(fetchesBefore);

    const rotated = await signingKey('rsa-2', 'RS256');
    // As issuers rotate: the new key is published beside the old ones.
    issuer.publish([rotated, rsa, ec, weakKey]);
    const result = await authorizeToken(await signToken(rotated, validClaims()));

    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(issuer.fetches()).toBe(fetchesBefore + 1);
  });

  test('are not fetched again for an unknown kid within 10 s of a fetch that did not find one (penalty box)', async () => {
    await expectUnauthorized(await signToken(await signingKey('unknown-1', 'RS256'), validClaims()));
    const fetchesAfterFirst = issuer.fetches();
    await expectUnauthorized(await signToken(await signingKey('unknown-2', 'RS256'), validClaims()));

    expect(issuer.fetches()).toBe(fetchesAfterFirst);
  });
});

describe('a token that is not acceptable is Unauthorized', () => {
  test('expired', async () => expectUnauthorized(await signToken(rsa, { ...validClaims(), exp: now() - 60 })));
  test('not yet valid', async () => expectUnauthorized(await signToken(rsa, { ...validClaims(), nbf: now() + 60 })));
  test('from another issuer', async () =>
    expectUnauthorized(await signToken(rsa, { ...validClaims(), iss: 'https://evil.example' })));
  test('for another audience', async () =>
    expectUnauthorized(await signToken(rsa, { ...validClaims(), aud: 'other-api' })));
  test('a Cognito ID token for the client', async () => {
    const { aud: _aud, ...claims } = validClaims();
    await expectUnauthorized(await signToken(rsa, { ...claims, client_id: audience, token_use: 'id' }));
  });
  test('without a subject', async () => {
    const { sub: _sub, ...claims } = validClaims();
    await expectUnauthorized(await signToken(rsa, claims));
  });
  test('unsigned (alg: none)', async () => {
    await expectUnauthorized(new UnsecuredJWT(validClaims()).setExpirationTime('1h').encode());
  });
  test('HS256 signed with the public key as secret', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'HS256', kid: rsa.kid, typ: 'JWT' }));
    const payload = base64url.encode(JSON.stringify({ ...validClaims(), exp: now() + 3600 }));
    const secret = await exportSPKI(rsa.publicKey);
    const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
    await expectUnauthorized(`${header}.${payload}.${signature}`);
  });
  test('signed with a key the issuer does not publish (unknown kid)', async () => {
    await expectUnauthorized(await signToken(await signingKey('stranger', 'RS256'), validClaims()));
  });
  test('with a tampered payload', async () => {
    const [header, , signature] = (await signToken(rsa, validClaims())).split('.');
    const forged = base64url.encode(JSON.stringify({ ...validClaims(), sub: 'admin', exp: now() + 3600 }));
    await expectUnauthorized(`${header}.${forged}.${signature}`);
  });
  test('malformed', () => expectUnauthorized('not-a-jwt'));
  test("a Cognito ID token for the API's app client (an ID token is never a credential: 401, not 403)", async () => {
    await expectUnauthorized(await signToken(rsa, { ...validClaims(), aud: audience, token_use: 'id' }));
  });
  test.each(['Bearer', 'Bearerx', ' Bearer', 'Bearer\t'])(
    'with the scheme %j and no space before the token',
    async (scheme) => {
      const token = await signToken(rsa, validClaims());
      await expect(handler(tokenAuthorizerEvent(`${scheme}${token}`), lambdaContext())).rejects.toThrow(
        /^Unauthorized$/,
      );
    },
  );
  test('in another scheme than Bearer', async () => {
    const token = await signToken(rsa, validClaims());
    await expect(handler(tokenAuthorizerEvent(`Basic ${token}`), lambdaContext())).rejects.toThrow(/^Unauthorized$/);
  });
});

describe('tokens a trusted issuer could mint, but API Gateway could not pass on, are Unauthorized (never a 500)', () => {
  test('a numeric subject', async () =>
    expectUnauthorized(await signToken(rsa, { ...validClaims(), sub: 42 as never })));
  test('a subject longer than OpenID Connect allows (255)', async () =>
    expectUnauthorized(await signToken(rsa, { ...validClaims(), sub: 's'.repeat(10 * 1024) })));
  test('scopes that would make the authorizer result larger than 8 KB', async () =>
    expectUnauthorized(await signToken(rsa, { ...validClaims(), scope: `${requiredScope} ${'x'.repeat(9000)}` })));
  test('signed with a 1024-bit RSA key the issuer publishes', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'RS256', kid: weakKey.kid, typ: 'JWT' }));
    const payload = base64url.encode(JSON.stringify({ ...validClaims(), iat: now(), exp: now() + 3600 }));
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), weakRsa.privateKey).toString('base64url');
    await expectUnauthorized(`${header}.${payload}.${signature}`);
  });
  test('issued in the future, beyond the clock tolerance', async () =>
    expectUnauthorized(await signToken(rsa, { ...validClaims(), iat: now() + 120 })));
  test('issued a moment ahead, within the clock tolerance, is allowed', async () => {
    const result = await authorizeToken(await signToken(rsa, { ...validClaims(), iat: now() + 2 }));
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  });
});
