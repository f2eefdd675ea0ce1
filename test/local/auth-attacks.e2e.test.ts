// Attacks on the bearer authorization over HTTP, through the local runner serving the synthesized stack (API
// Gateway's header check, the real authorizer bundle, its JWKS from the development issuer). From RFC 8725 (JWT
// best current practices) and OWASP API2 (broken authentication). None may reach createPlant; a key the attacker
// names (jku, x5u) is never fetched; an issuer whose keys are down fails closed.
import {
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  type KeyObject as KeyObjectType,
  sign,
} from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { listenOnLoopback, type Runner, serveJwks, signDevToken, startRunner } from 'cdk-local-runner';
import { parseRaw, rawExchange } from 'test-support/raw-http';
import { plantStoreOptions } from '../helpers/cloud-assembly.ts';
import { refusedEndpoint } from '../helpers/dynalite.ts';
import { contractViolations, createPlantRequest } from '../helpers/independent-contract.ts';
import { report } from '../helpers/report.ts';
import { paddedRsaKey } from '../helpers/token-issuer.ts';

const options = (authorizerEnvironment: Record<string, string> = {}) =>
  plantStoreOptions({ maxWorkers: 2, envVars: { BearerAuthorizerFunction: authorizerEnvironment } });

let api: Runner;
let devKey: KeyObjectType;
let devKid: string;
/** The attacker's own server: a JWKS of the attacker's key, and a count of every request it gets. */
let attackerRequests = 0;
const attacker = createServer((request, response) => {
  attackerRequests += 1;
  response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [attackerJwk] }));
  request.resume();
});
const attackerKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const attackerJwk = { ...attackerKeys.publicKey.export({ format: 'jwk' }), kid: 'attacker', alg: 'ES256', use: 'sig' };
const attackerRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
let attackerUrl: string;

beforeAll(async () => {
  api = await startRunner(options());
  devKey = KeyObject.from(api.signingKey.privateKey);
  devKid = api.signingKey.kid;
  attackerUrl = await listenOnLoopback(attacker);
}, 30_000);

afterAll(async () => {
  await api.close();
  attacker.closeAllConnections();
  await new Promise((resolve) => attacker.close(resolve));
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  iss: api.signingKey.issuer,
  aud: api.signingKey.audience,
  sub: 'attacker',
  scope: 'plants/write',
  iat: now(),
  exp: now() + 3600,
  ...overrides,
});

type Signer = (signingInput: string) => Buffer;
const es256 =
  (key: KeyObjectType): Signer =>
  (input) =>
    sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
const hmac =
  (bits: 256 | 384 | 512, secret: string | Buffer): Signer =>
  (input) =>
    createHmac(`sha${bits}`, secret).update(input).digest();

/** A compact JWS of `header` and `payload`, signed by `signer` (or with the empty signature). */
const forge = (header: Record<string, unknown>, payload: unknown, signer?: Signer) => {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${signer ? signer(input).toString('base64url') : ''}`;
};
const devSigned = (payload: unknown, header: Record<string, unknown> = {}) =>
  forge({ alg: 'ES256', kid: devKid, typ: 'JWT', ...header }, payload, es256(devKey));
/** The issuer's public key as PEM: what an algorithm-confusion attacker keys an HMAC with. */
const publicPem = () => createPublicKey(devKey).export({ format: 'pem', type: 'spki' }).toString();

/** How the attack is sent: the Authorization header values (each its own line), and the path. */
interface Attack {
  authorization: string[];
  path?: string;
}
const bearer = (token: string): Attack => ({ authorization: [`Bearer ${token}`] });

let nextId = 9_000_000;
const send = async ({ authorization, path = '/plants' }: Attack, baseUrl = api.url) => {
  const body = JSON.stringify({ id: nextId++, name: 'stolen' });
  const raw = await rawExchange(
    baseUrl,
    [
      `POST ${path} HTTP/1.1`,
      'Host: localhost',
      ...authorization.map((value) => `Authorization: ${value}`),
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  return parseRaw(raw);
};

const attacks: [string, () => Attack, number[]][] = [
  ['alg none, no signature', () => bearer(forge({ alg: 'none', typ: 'JWT' }, claims())), [401]],
  ['alg NONE in capitals', () => bearer(forge({ alg: 'NONE', typ: 'JWT' }, claims())), [401]],
  [
    'HS256 keyed with the public key (PEM)',
    () => bearer(forge({ alg: 'HS256', kid: devKid }, claims(), hmac(256, publicPem()))),
    [401],
  ],
  [
    'HS384 keyed with the public key (PEM)',
    () => bearer(forge({ alg: 'HS384', kid: devKid }, claims(), hmac(384, publicPem()))),
    [401],
  ],
  [
    'HS512 keyed with the public key (PEM)',
    () => bearer(forge({ alg: 'HS512', kid: devKid }, claims(), hmac(512, publicPem()))),
    [401],
  ],
  [
    'HS256 keyed with the public JWK',
    () => bearer(forge({ alg: 'HS256', kid: devKid }, claims(), hmac(256, JSON.stringify(api.signingKey.publicJwk)))),
    [401],
  ],
  [
    'an embedded jwk header with the attacker key',
    () => bearer(forge({ alg: 'ES256', jwk: attackerJwk }, claims(), es256(attackerKeys.privateKey))),
    [401],
  ],
  [
    'jku pointing at the attacker JWKS',
    () =>
      bearer(
        forge(
          { alg: 'ES256', kid: 'attacker', jku: `${attackerUrl}/jwks.json` },
          claims(),
          es256(attackerKeys.privateKey),
        ),
      ),
    [401],
  ],
  [
    'x5u pointing at the attacker',
    () =>
      bearer(
        forge(
          { alg: 'ES256', kid: 'attacker', x5u: `${attackerUrl}/cert.pem` },
          claims(),
          es256(attackerKeys.privateKey),
        ),
      ),
    [401],
  ],
  [
    'x5c carrying the attacker key',
    () =>
      bearer(
        forge(
          { alg: 'ES256', x5c: [attackerKeys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64')] },
          claims(),
          es256(attackerKeys.privateKey),
        ),
      ),
    [401],
  ],
  [
    'an unknown kid',
    () => bearer(forge({ alg: 'ES256', kid: 'nope' }, claims(), es256(attackerKeys.privateKey))),
    [401],
  ],
  [
    'a path-traversal kid',
    () => bearer(forge({ alg: 'ES256', kid: '../../../../dev/null' }, claims(), es256(attackerKeys.privateKey))),
    [401],
  ],
  [
    'an injection kid',
    () => bearer(forge({ alg: 'ES256', kid: "' OR '1'='1" }, claims(), es256(attackerKeys.privateKey))),
    [401],
  ],
  ['a crit extension the verifier does not know', () => bearer(devSigned(claims(), { crit: ['exp'], exp: 1 })), [401]],
  ['expired', () => bearer(devSigned(claims({ exp: now() - 600 }))), [401]],
  ['not yet valid', () => bearer(devSigned(claims({ nbf: now() + 600 }))), [401]],
  ['issued in the future', () => bearer(devSigned(claims({ iat: now() + 600 }))), [401]],
  ['another issuer', () => bearer(devSigned(claims({ iss: 'https://evil.example' }))), [401]],
  ['another audience', () => bearer(devSigned(claims({ aud: 'other-api' }))), [401]],
  ['no exp', () => bearer(devSigned({ ...claims(), exp: undefined })), [401]],
  ['a numeric sub', () => bearer(devSigned(claims({ sub: 42 }))), [401]],
  [
    'without the required scope (valid otherwise: 403)',
    () => bearer(devSigned(claims({ scope: 'plants/read' }))),
    [403],
  ],
  [
    'a tampered payload',
    () => {
      const [header, , signature] = devSigned(claims({ sub: 'user' })).split('.');
      return bearer(`${header}.${b64(claims({ sub: 'admin' }))}.${signature}`);
    },
    [401],
  ],
  [
    "the attacker's key under the issuer's kid",
    () => bearer(forge({ alg: 'ES256', kid: devKid }, claims(), es256(attackerKeys.privateKey))),
    [401],
  ],
  [
    "RS256 under the issuer's (EC) kid, signed with the attacker's RSA key",
    () =>
      bearer(
        forge({ alg: 'RS256', kid: devKid }, claims(), (input) =>
          sign('sha256', Buffer.from(input), attackerRsa.privateKey),
        ),
      ),
    [401],
  ],
  [
    'an ECDSA signature r = s = 0 (CVE-2022-21449)',
    () => bearer(`${b64({ alg: 'ES256', kid: devKid })}.${b64(claims())}.${Buffer.alloc(64).toString('base64url')}`),
    [401],
  ],
  ['a 10 KB token', () => bearer(devSigned(claims({ padding: 'x'.repeat(10 * 1024) }))), [401, 431]],
  ['a malformed token', () => bearer('not.a.jwt'), [401]],
  [
    'an ID token of the issuer, lower-case bearer (Cognito token_use id)',
    () => ({ authorization: [`bearer ${devSigned(claims({ token_use: 'id' }))}`] }),
    [401],
  ],
  ['an ID token of the issuer (Keycloak typ ID)', () => bearer(devSigned(claims({ typ: 'ID' }))), [401]],
  ['a logout token of the issuer (typ logout+jwt)', () => bearer(devSigned(claims(), { typ: 'logout+jwt' })), [401]],
  ['a refresh token of the issuer (Keycloak typ Refresh)', () => bearer(devSigned(claims({ typ: 'Refresh' }))), [401]],
  ['Bearer twice', () => ({ authorization: [`Bearer Bearer ${devSigned(claims())}`] }), [401]],
  ['Basic credentials', () => ({ authorization: ['Basic YWRtaW46YWRtaW4='] }), [401]],
  [
    'the token only in the query string',
    () => ({ authorization: [], path: `/plants?access_token=${devSigned(claims())}` }),
    [401],
  ],
  [
    'two Authorization headers, the valid one last',
    () => ({ authorization: ['Bearer not-a-token', `Bearer ${devSigned(claims())}`] }),
    [401],
  ],
  [
    'two Authorization headers, the valid one first',
    () => ({ authorization: [`Bearer ${devSigned(claims())}`, 'Bearer not-a-token'] }),
    [401],
  ],
];

describe('no attack reaches createPlant', () => {
  /** Each attack's answer: every attack is sent here, once, so that each test below stands alone (-t). */
  const answers = new Map<string, Awaited<ReturnType<typeof send>>>();
  let reachedCreatePlant: number;
  let attackerFetches: number;
  beforeAll(async () => {
    const [invokedBefore, fetchesBefore] = [api.invocations('CreatePlantFunction'), attackerRequests];
    for (const [name, attack] of attacks) answers.set(name, await send(attack()));
    reachedCreatePlant = api.invocations('CreatePlantFunction') - invokedBefore;
    attackerFetches = attackerRequests - fetchesBefore;
  }, 30_000);

  test.each(attacks)('%s', (name, _attack, statuses) => {
    const answer = answers.get(name);
    if (!answer) throw new Error(`${name} was not sent`);

    expect(statuses).toContain(answer.status);
    expect(answer.contentType).toBe('application/json');
    expect(
      contractViolations(
        {
          statusCode: answer.status,
          headers: { 'content-type': answer.contentType },
          body: JSON.stringify(answer.json),
        },
        createPlantRequest,
      ),
    ).toEqual([]);
  });

  test('(after every attack) createPlant was never invoked, and the attacker server never asked', () => {
    report('auth-attacks', { attacks: answers.size, reachedCreatePlant, attackerFetches });
    expect(answers.size).toBe(attacks.length);
    expect(reachedCreatePlant).toBe(0);
    expect(attackerFetches).toBe(0);
  });
});

test('the control: a token the issuer signed is allowed, and createPlant stores the plant', async () => {
  const token = await signDevToken(api.signingKey, { sub: 'control', scope: 'plants/write', expiresIn: '1h' });
  const before = api.invocations('CreatePlantFunction');

  expect((await send(bearer(token))).status).toBe(200);
  expect(api.invocations('CreatePlantFunction')).toBe(before + 1);
});

test('the control, the scheme in lower case: the same credential (RFC 9110 section 11.1), through the gateway too', async () => {
  const token = await signDevToken(api.signingKey, { sub: 'control', scope: 'plants/write', expiresIn: '1h' });

  expect((await send({ authorization: [`bearer ${token}`] })).status).toBe(200);
});

test('an issuer whose keys cannot be fetched fails closed: 500, never a pass', async () => {
  const keysDown = await startRunner(options({ JWKS_URI: `${await refusedEndpoint()}/jwks.json` }));
  try {
    const token = await signDevToken(keysDown.signingKey, { sub: 'control', scope: 'plants/write', expiresIn: '1h' });
    const answer = await send(bearer(token), keysDown.url);

    expect(answer).toEqual({
      status: 500,
      contentType: 'application/json',
      json: { error: 500, message: 'Internal server error' },
    });
    expect(keysDown.invocations('CreatePlantFunction')).toBe(0);
  } finally {
    await keysDown.close();
  }
}, 30_000);

test('a 1024-bit key the issuer publishes with n zero-padded to 256 octets is refused: 401; 2048 bits in 257 pass', async () => {
  const [weak, strong] = [paddedRsaKey('weak-padded', 1024, 256), paddedRsaKey('strong-padded', 2048, 257)];
  const jwks = await serveJwks(() => [weak.jwk, strong.jwk]);
  const padded = await startRunner(options({ JWKS_URI: jwks.jwksUri }));
  try {
    const payload = claims({ iss: padded.signingKey.issuer, aud: padded.signingKey.audience });

    expect((await send(bearer(weak.sign(payload)), padded.url)).status).toBe(401);
    expect(padded.invocations('CreatePlantFunction')).toBe(0);
    expect((await send(bearer(strong.sign(payload)), padded.url)).status).toBe(200);
  } finally {
    await padded.close();
    await jwks.close();
  }
}, 30_000);
