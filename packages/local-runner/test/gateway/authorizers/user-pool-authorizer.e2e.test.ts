// Cognito user pool authorizers (COGNITO_USER_POOLS) as API Gateway applies them ("Control access to REST APIs using
// Amazon Cognito user pools as an authorizer"): a method without scopes takes an ID token, a method with scopes an
// access token carrying one of them (re:Post, "need access token as header in cognito"; AWS::ApiGateway::Method's
// AuthorizationScopes), anything else is 401 without the function; the function gets the token's claims. Locally the
// development issuer signs each pool's tokens, under the pool's issuer URL; `cdk-local-runner token --pool` mints them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { decodeJwt, SignJWT } from 'jose';
import { poolIssuer } from '../../../src/app/user-pools.ts';
import { signPoolToken } from '../../../src/issuer/dev-issuer.ts';
import { functionVariables } from '../../../src/lambda/variables.ts';
import { synthesizeUserPoolApp } from '../../fixtures/user-pool-app.ts';
import { launch, launchedUntil, runnerBin, startApp, stopStarted } from '../../helpers/runner-process.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const poolId = 'us-east-1_Users';

describe('served in process', () => {
  const served = servedBeforeAll(synthesizeUserPoolApp);

  const token = (tokenUse: 'id' | 'access', scope = '') =>
    signPoolToken(served.api.signingKey, {
      issuer: poolIssuer(poolId),
      clientId: 'WebClient',
      tokenUse,
      sub: 'ana',
      scope,
      expiresIn: 3600,
    });
  const get = async (path: string, authorization?: string) => {
    const response = await fetch(`${served.api.url}/v1${path}`, {
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const eventOf = (body: Record<string, unknown>) =>
    body.event as { requestContext: { authorizer: { claims: Record<string, string> } } };

  test('a method without scopes takes an ID token, alone or as a bearer token; the function gets its claims as text', async () => {
    const idToken = await token('id');
    for (const authorization of [idToken, `Bearer ${idToken}`]) {
      const { status, body } = await get('/profile', authorization);
      expect(status).toBe(200);
      const { claims } = eventOf(body).requestContext.authorizer;
      expect(claims).toMatchObject({
        sub: 'ana',
        'cognito:username': 'ana',
        token_use: 'id',
        aud: 'WebClient',
        iss: `https://cognito-idp.us-east-1.amazonaws.com/${poolId}`,
      });
      expect(claims.exp).toMatch(/^\d+$/);
    }
  });

  test('a method with scopes takes an access token carrying one of them', async () => {
    const { status, body } = await get('/plants', await token('access', 'plants/read plants/write'));
    expect(status).toBe(200);
    expect(eventOf(body).requestContext.authorizer.claims).toMatchObject({
      token_use: 'access',
      client_id: 'WebClient',
      scope: 'plants/read plants/write',
    });
  });

  /**
   * An ID token as the pool's, signed by the pool's key but with `kid` as given: the key of the pool's JWKS that signs
   * must be the one its `kid` names (Cognito's "Verifying JSON web tokens",
   * https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html).
   */
  const withKid = async (kid: string | undefined) =>
    new SignJWT(decodeJwt(await token('id')))
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(served.api.signingKey.privateKey);

  /** An ID token as the pool's, signed by the pool's key, with no `exp`. */
  const withoutExp = async () => {
    const { exp: _exp, ...claims } = decodeJwt(await token('id'));
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: served.api.signingKey.kid })
      .sign(served.api.signingKey.privateKey);
  };

  test.each([
    ['an ID token without a kid', '/profile', () => withKid(undefined)],
    ['an ID token whose kid no key of the pool has', '/profile', () => withKid('another-key')],
    ['no token', '/profile', undefined],
    ['an access token where an ID token is wanted', '/profile', () => token('access', 'plants/read')],
    ['an ID token where an access token is wanted', '/plants', () => token('id')],
    ['an access token without the scope', '/plants', () => token('access', 'plants/write')],
    ['a token that is not a JWT', '/profile', () => Promise.resolve('not-a-jwt')],
    // Cognito's tokens always carry `exp`, which "Verifying JSON web tokens" has checked; one without never expires.
    ['an ID token without exp', '/profile', () => withoutExp()],
  ])('%s: 401, and the function is not invoked', async (_case, path, make) => {
    const before = served.api.invocations('EchoFunction');
    expect(await get(path, make && (await make()))).toEqual({ status: 401, body: { message: 'Unauthorized' } });
    expect(served.api.invocations('EchoFunction')).toBe(before);
  });

  test("the pool's id, issuer URL and client id reach the function's variables as the runner stands in for them", () => {
    const fn = served.api.app.functions.get('EchoFunction');
    if (!fn) throw new Error('no EchoFunction');
    expect(functionVariables(fn, served.api.app, {})).toMatchObject({
      POOL_ID: poolId,
      POOL_ISSUER: `https://cognito-idp.us-east-1.amazonaws.com/${poolId}`,
      CLIENT_ID: 'WebClient',
    });
  });
});

/**
 * The runner's command, run without blocking this process: a synchronous run stops the event loop for its seconds, and
 * fetch's keep-alive timers with it, so that the next request may take a socket the server closed (ECONNRESET).
 */
const run = (args: string[], cwd?: string) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });

describe('`cdk-local-runner token --pool` (the command line)', () => {
  afterAll(stopStarted);

  test("mints the pool's tokens with the data folder's key: an ID token by default, an access token with the methods' scopes", async () => {
    const app = synthesizeUserPoolApp();
    const dataDir = mkdtempSync(join(tmpdir(), 'local-runner-user-pool-data-'));
    const started = launch(dataDir, { args: ['--app', app] });
    const output = await launchedUntil(started, /is serving at (http:\/\/127\.0\.0\.1:\d+)/);
    const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const mint = async (...args: string[]) => {
      const minted = await run([runnerBin, 'token', '--app', app, '--data-dir', dataDir, '--pool', 'Users', ...args]);
      expect(minted.stderr).toBe('');
      return minted.stdout.trim();
    };
    const call = async (path: string, token: string) =>
      (await fetch(`${url}/v1${path}`, { headers: { Authorization: token } })).status;
    expect(await call('/profile', await mint())).toBe(200);
    expect(await call('/plants', await mint('--token-use', 'access'))).toBe(200);
    expect(await call('/plants', await mint())).toBe(401);
    const refused = await run([runnerBin, 'token', '--app', app, '--data-dir', dataDir, '--pool', 'Admins']);
    expect(refused.stderr).toBe(
      "cdk-local-runner token failed: --pool Admins: no such user pool; the app's are Users\n",
    );
  }, 60_000);
});

describe('`start --in-memory`, then `token --pool` in the same folder', () => {
  afterAll(stopStarted);

  // The server's key is in its memory alone: the token command asks it for the key (runner-socket.ts), so that the
  // tokens it prints are the ones this server accepts, and it creates no key in the project that no server uses.
  test('the tokens it prints are accepted (200); several runners in memory: refused, naming them', async () => {
    const app = synthesizeUserPoolApp();
    const project = mkdtempSync(join(tmpdir(), 'local-runner-in-memory-project-'));
    const { url } = await startApp(app, { cwd: project });
    const mint = (...args: string[]) => run([runnerBin, 'token', '--app', app, '--pool', 'Users', ...args], project);
    const call = async (path: string, token: string) =>
      (await fetch(`${url}/v1${path}`, { headers: { Authorization: token } })).status;
    const idToken = await mint();
    expect(idToken.stderr).toBe('');
    expect(await call('/profile', idToken.stdout.trim())).toBe(200);
    expect(await call('/plants', (await mint('--token-use', 'access')).stdout.trim())).toBe(200);
    expect(readdirSync(project)).toEqual([]);
    expect(existsSync(join(project, '.local-runner'))).toBe(false);

    const second = await startApp(app, { cwd: project });
    const refused = await mint();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('cdk-local-runner token failed: 2 runners serve this folder in memory');
    expect(refused.stderr).toContain(url);
    expect(refused.stderr).toContain(second.url);
  }, 90_000);
});
