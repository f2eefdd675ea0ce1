// Valid tokens, mutated (test/helpers/token-mutations.ts), sent over HTTP through the local runner serving the
// synthesized stack (API Gateway's header check, the real authorizer bundle): every one is refused with 401, none
// is a 5xx, and createPlant is never invoked. Tokens are signed with RS256 and ES256 keys generated here, published by
// a JWKS on loopback that the authorizer is pointed at.
// Replay a failure with FC_SEED=<seed> FC_PATH=<path> npm run jest -- test/local/token-mutations.property.e2e.test.ts
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Runner, startRunner } from 'cdk-local-runner';
import fc from 'fast-check';
import { plantStoreOptions } from '../helpers/cloud-assembly.ts';
import { postPlant } from '../helpers/post-plant.ts';
import { replay, report, thorough } from '../helpers/report.ts';
import { type SigningKey, signingKey, signToken, startIssuer, type TestIssuer } from '../helpers/token-issuer.ts';
import { derSignature, ecdsaScalars, highSTwin, mutatedToken, withSignature } from '../helpers/token-mutations.ts';

/** A few hundred in `npm test`; thousands in `npm run reliability`. */
const runs = thorough() ? 5_000 : 300;
let api: Runner;
let issuer: TestIssuer;
const audience = 'plant-store-mutations';
let tokens: string[];
let ecTokens: string[];

beforeAll(async () => {
  const keys: SigningKey[] = await Promise.all([signingKey('rsa-1', 'RS256'), signingKey('ec-1', 'ES256')]);
  issuer = await startIssuer(keys);
  api = await startRunner(
    plantStoreOptions({
      maxWorkers: 2,
      envVars: {
        BearerAuthorizerFunction: { JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: audience, JWKS_URI: issuer.jwksUri },
      },
    }),
  );
  const claims = (sub: string) => ({ iss: issuer.issuer, aud: audience, sub, scope: 'plants/write' });
  const signed = await Promise.all(
    keys.flatMap((key) =>
      ['mutant-1', 'mutant-2'].map(async (sub) => ({ key, token: await signToken(key, claims(sub)) })),
    ),
  );
  tokens = signed.map(({ token }) => token);
  ecTokens = signed.filter(({ key }) => key.alg === 'ES256').map(({ token }) => token);
}, 30_000);

afterAll(async () => {
  await api.close();
  await issuer.close();
});

let nextId = 7_000_000;
/** POST /plants with `token` as the bearer token and a valid plant: status and body. */
const post = async (token: string) => {
  const response = await postPlant(api.url, token, { id: nextId++, name: 'mutant' });
  return { status: response.status, body: (await response.json()) as unknown };
};
const refused = { status: 401, body: { error: 401, message: 'Unauthorized' } };

describe('the shapes that answered 500 before', () => {
  test('a valid token with its last character removed: 401', async () => {
    for (const token of tokens) expect(await post(token.slice(0, -1))).toEqual(refused);
  });

  test('a valid ES256 token with its signature re-encoded in DER form: 401', async () => {
    for (const token of ecTokens) {
      const { r, s } = ecdsaScalars(token);
      expect(await post(withSignature(token, derSignature(r, s)))).toEqual(refused);
    }
  });

  test('an ES256 signature of r = s = 0 in DER form: 401', async () => {
    const [token = ''] = ecTokens;
    expect(await post(withSignature(token, derSignature(0n, 0n)))).toEqual(refused);
  });
});

test('the controls: the unmutated tokens are allowed', async () => {
  for (const token of tokens) expect((await post(token)).status).toBe(200);
});

test('the high-S twin of an ES256 signature is the same signature: allowed as the original is', async () => {
  // ECDSA signatures are malleable: (r, n - s) verifies wherever (r, s) does, and neither RFC 7518 nor the issuers
  // ask for a low S (WebCrypto and OpenSSL sign high S about half the time), so it is not refused: it is the issuer's
  // own signature of the same header and claims, not a forgery. The mutation suite below leaves it out.
  for (const token of ecTokens) expect((await post(highSTwin(token))).status).toBe(200);
});

test(`${runs} mutated tokens over HTTP: each refused with 401, never a 5xx, createPlant never invoked`, async () => {
  const invokedBefore = api.invocations('CreatePlantFunction');
  const statuses: Record<number, number> = {};
  const twins = new Set(ecTokens.map(highSTwin));

  await fc.assert(
    fc.asyncProperty(
      mutatedToken(tokens, ecTokens).filter((token) => !twins.has(token)),
      async (token) => {
        const answer = await post(token);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        expect(answer).toEqual(refused);
      },
    ),
    { numRuns: runs, ...replay() },
  );

  const reachedCreatePlant = api.invocations('CreatePlantFunction') - invokedBefore;
  const serverErrors = Object.entries(statuses)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, count]) => sum + count, 0);
  report('token-mutations', { cases: runs, statuses, serverErrors, reachedCreatePlant });
  expect(reachedCreatePlant).toBe(0);
  expect(serverErrors).toBe(0);
}, 600_000);
