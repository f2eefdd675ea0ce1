// The authorizer against a certified OpenID provider (oidc-provider, https on loopback), configured as a user brings
// one: issuer, audience and algorithms only, the keys found by OpenID Connect Discovery
// (https://openid.net/specs/openid-connect-discovery-1_0.html). Its client-credentials access tokens (RFC 9068), signed
// RS256, ES256, PS256 and EdDSA, before and after a key rotation: in process against the synthesized bundle, and
// through `npm start` given the issuer with `--env-vars` (as examples/sam-env.json gives it to `sam local`).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { type Runner, readApi, startRunner } from 'cdk-local-runner';
import { projectRoot } from '../../../infra/project-root.ts';
import { plantStoreOptions, synthesizedCloudAssembly } from '../../helpers/cloud-assembly.ts';
import { lambdaContext, tokenAuthorizerEvent } from '../../helpers/events.ts';
import { start, stopStarted } from '../../helpers/npm-start.ts';
import { type OpenIdProvider, type ProviderAlgorithm, startOpenIdProvider } from '../../helpers/openid-provider.ts';
import { postPlant } from '../../helpers/post-plant.ts';
import { productRouteScopes } from '../../helpers/vendor-tokens.ts';

let provider: OpenIdProvider;
const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-oidc-test-'));
  folders.push(folder);
  return folder;
};

beforeAll(async () => {
  provider = await startOpenIdProvider();
});
afterAll(async () => {
  await provider.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The settings docs/identity-providers.md gives for any OpenID provider: no JWKS_URI. */
const settings = () => ({
  JWT_ISSUER: provider.issuer,
  JWT_AUDIENCE: provider.audience,
  JWT_ALGORITHMS: 'RS256,ES256,PS256,EdDSA',
  ROUTE_SCOPES: productRouteScopes(),
});
const algorithms: ProviderAlgorithm[] = ['RS256', 'ES256', 'PS256', 'EdDSA'];

describe('in process, the synthesized bundle', () => {
  type Handler = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;
  let handler: Handler;

  beforeAll(async () => {
    // The provider's certificate is trusted as a public CA's would be on Lambda.
    setDefaultCACertificates([...getCACertificates('default'), provider.caCertificate]);
    Object.assign(process.env, settings(), { POWERTOOLS_LOG_LEVEL: 'SILENT' });
    const fn = readApi(synthesizedCloudAssembly()).functions.get('BearerAuthorizerFunction');
    if (fn?.code.language !== 'nodejs') throw new Error('no BearerAuthorizerFunction in the template');
    ({ handler } = (await import(fn.code.modulePath)) as { handler: Handler });
  });

  const effectOf = async (token: string) =>
    (await handler(tokenAuthorizerEvent(`Bearer ${token}`), lambdaContext())).policyDocument.Statement[0]?.Effect;

  test.each(algorithms)('a %s access token of the provider is allowed', async (alg) => {
    expect(await effectOf(await provider.token(alg))).toBe('Allow');
  });

  test('a token without the required scope is denied (403)', async () => {
    expect(await effectOf(await provider.token('RS256', 'plants/read'))).toBe('Deny');
  });

  test('after the provider rotates its keys, tokens signed with the new ones are allowed, and the old ones still', async () => {
    const before = await provider.token('ES256');
    provider.rotate();
    for (const alg of algorithms) expect(await effectOf(await provider.token(alg))).toBe('Allow');
    expect(await effectOf(before)).toBe('Allow');
  });

  test('a token of the provider for another audience is refused', async () => {
    const other = await startOpenIdProvider({ audience: 'https://other.example.com' });
    try {
      await expect(
        handler(tokenAuthorizerEvent(`Bearer ${await other.token('RS256')}`), lambdaContext()),
      ).rejects.toThrow(/^Unauthorized$/);
    } finally {
      await other.close();
    }
  });
});

describe('through the local runner', () => {
  afterEach(stopStarted);

  test('npm start given the issuer with --env-vars and no JWKS_URI: the provider tokens create plants', async () => {
    const folder = newFolder();
    const envVarsFile = join(folder, 'env.json');
    // The provider's private CA, in the function's environment, as a function on Lambda is given one.
    const authorizer = { ...settings(), NODE_EXTRA_CA_CERTS: provider.caFile };
    writeFileSync(envVarsFile, JSON.stringify({ BearerAuthorizerFunction: authorizer }));
    const server = await start(join(folder, 'data'), { args: ['--env-vars', envVarsFile] });
    // The development issuer's token would be refused: none is printed, and the curl line takes the user's.
    expect(server.output()).toContain('No development token');
    expect(server.curl).toContain('Bearer $TOKEN');

    const post = async (token: string, id: number) =>
      (await postPlant(server.url, token, { id, name: 'Monstera deliciosa' })).status;
    for (const [index, alg] of algorithms.entries())
      expect(await post(await provider.token(alg), 9_100 + index)).toBe(200);
    expect(await post(await provider.token('RS256', 'plants/read'), 9_110)).toBe(403);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['node_modules/.bin/cdk-local-runner', 'token', '--data-dir', join(folder, 'data')],
      { cwd: projectRoot },
    );
    expect(await post(stdout.trim(), 9_111)).toBe(401);
  }, 90_000);
});

describe('the runner and routes scopes given with --env-vars', () => {
  let api: Runner | undefined;
  afterEach(() => api?.close());

  test('says that the gateway 403 challenge still names the template scope', async () => {
    const lines: string[] = [];
    api = await startRunner(
      plantStoreOptions({
        dataDir: newFolder(),
        envVars: { BearerAuthorizerFunction: { ROUTE_SCOPES: productRouteScopes({ 'plants/write': 'plants/admin' }) } },
        log: (line) => lines.push(line),
      }),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /ROUTE_SCOPES is .*plants\/admin.* from --env-vars, .* follows the template's .*plants\/write/,
      ),
    );
  });
});
