// The development issuer through an app that names its issuer's variables in Metadata (`local-runner:token-issuer`):
// the runner points them at itself, and its tokens pass the app's own verification (an ES256 JWT checked against the
// JWKS the variable names), carrying every scope the routes list; the key, and so the tokens, outlive a restart.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { devIssuerScope, signDevToken } from '../../src/issuer/dev-issuer.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { synthesizeIssuerApp } from '../fixtures/issuer-app.ts';
import { runnerBin } from '../helpers/runner-process.ts';

const tokenIssuer = { issuer: 'urn:test:local-issuer', audience: 'test-local' };
let cloudAssemblyDir: string;
let dataDir: string;
let api: Runner | undefined;

const serve = () =>
  startRunner({ cloudAssemblyDir, port: 0, dataDir, maxWorkers: 1, tokenIssuer, log: () => undefined });

const post = async (served: Runner, authorization: string) =>
  (await fetch(`${served.url}/items`, { method: 'POST', headers: { Authorization: authorization }, body: '{}' }))
    .status;

beforeAll(async () => {
  cloudAssemblyDir = synthesizeIssuerApp();
  dataDir = mkdtempSync(join(tmpdir(), 'local-runner-issuer-'));
  api = await serve();
}, 60_000);

afterAll(async () => {
  await api?.close();
});

test("the development token carries every scope the routes list, and passes the app's own verification", async () => {
  const served = api as Runner;
  const scope = devIssuerScope(served.app);
  expect(scope?.split(' ').sort()).toEqual(['items/read', 'items/write']);
  const token = await signDevToken(served.signingKey, { sub: 'me', scope: scope ?? '', expiresIn: '5m' });
  expect(await post(served, `Bearer ${token}`)).toBe(200);
});

test("a token without the routes' scopes is denied (403); one the issuer did not sign is refused (401)", async () => {
  const served = api as Runner;
  const narrow = await signDevToken(served.signingKey, { sub: 'me', scope: 'items/delete', expiresIn: '5m' });
  expect(await post(served, `Bearer ${narrow}`)).toBe(403);
  const [header, payload] = narrow.split('.');
  expect(await post(served, `Bearer ${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`)).toBe(401);
});

test("the token command signs with the data folder's key, as the project's local-runner.json names the issuer", async () => {
  // Asynchronously: the runner serves in this process, and a command run synchronously would stop its event loop (its
  // keep-alive timers then fire late, closing the socket the next request takes: ECONNRESET on a busy machine).
  const token = async (project: string) =>
    (
      await promisify(execFile)(
        process.execPath,
        [runnerBin, 'token', '--app', cloudAssemblyDir, '--data-dir', dataDir],
        { cwd: project, encoding: 'utf8' },
      )
    ).stdout.trim();
  const configured = mkdtempSync(join(tmpdir(), 'local-runner-project-'));
  writeFileSync(join(configured, 'local-runner.json'), JSON.stringify({ tokenIssuer }));
  expect(await post(api as Runner, `Bearer ${await token(configured)}`)).toBe(200);
  // Without the file, the default issuer: not the one this runner serves, so its token is refused.
  expect(await post(api as Runner, `Bearer ${await token(mkdtempSync(join(tmpdir(), 'local-runner-project-')))}`)).toBe(
    401,
  );
});

test('the key outlives a restart on the same data folder, and so do its tokens', async () => {
  const before = await signDevToken((api as Runner).signingKey, { sub: 'me', scope: 'items/write', expiresIn: '5m' });
  await api?.close();
  api = await serve();
  expect(await post(api, `Bearer ${before}`)).toBe(200);
}, 60_000);
