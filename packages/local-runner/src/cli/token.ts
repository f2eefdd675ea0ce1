// `cdk-local-runner token`: prints a bearer token from the development issuer, and nothing else, on stdout: one its
// TOKEN authorizers' functions trust, or (--pool) a Cognito user pool's, which its user pool authorizers take. Signed
// with the key of the runner serving this folder in memory (runner-socket.ts), else with the data folder's.
import { type Assembly, readAssembly, userPoolsOf } from '../app/assembly.ts';
import { poolIssuer } from '../app/user-pools.ts';
import { RunnerError } from '../errors.ts';
import { devIssuerScope, loadSigningKey, signDevToken, signPoolToken } from '../issuer/dev-issuer.ts';
import { borrowSigningKey } from '../runner-socket.ts';
import { readConfig } from './config.ts';
import { cloudAssemblyOf, commandFailed, dataDirOf, parseCommandLine } from './options.ts';

const { values } = parseCommandLine('cdk-local-runner token [options]', [
  'data-dir',
  'app',
  'context',
  'stack',
  'api',
  'pool',
  'token-use',
  'issuer',
  'audience',
  'sub',
  'scope',
  'expires-in',
]);
/** A user pool's token for `app`: the pool by logical id, its first app client, and (access) the scopes its methods ask. */
const poolToken = (assembly: Assembly, name: string) => {
  const userPools = userPoolsOf(assembly.apis);
  const pool = userPools.find(({ logicalId }) => logicalId === name);
  if (!pool)
    throw new RunnerError(
      `--pool ${name}: no such user pool; the app's are ${userPools.map(({ logicalId }) => logicalId).join(', ') || 'none'}`,
    );
  const tokenUse = values['token-use'];
  if (tokenUse !== 'id' && tokenUse !== 'access') throw new RunnerError(`--token-use ${tokenUse}: id or access`);
  // The scopes of the methods whose authorizer, in their own API, takes the pool's tokens.
  const methodScopes = assembly.apis.flatMap((api) =>
    api.kind === 'websocket' || api.kind === 'url'
      ? []
      : api.routes.flatMap((route) => {
          const authorizer = route.authorizerId === undefined ? undefined : api.authorizers.get(route.authorizerId);
          return authorizer?.type === 'COGNITO_USER_POOLS' && authorizer.poolIds.includes(pool.poolId)
            ? route.authorizationScopes
            : [];
        }),
  );
  return {
    issuer: poolIssuer(pool.poolId),
    clientId: pool.clientIds[0] ?? 'local-client',
    tokenUse,
    scope: values.scope ?? [...new Set(methodScopes)].join(' '),
  } as const;
};

try {
  const config = readConfig(process.cwd());
  const dataDir = dataDirOf(values, config);
  const assembly = () =>
    readAssembly(
      cloudAssemblyOf(values, () => undefined),
      { stackName: values.stack, apiName: values.api },
    );
  const expiresIn = /^\d+$/.test(values['expires-in']) ? Number(values['expires-in']) : values['expires-in'];
  // Checked before the key is read: a wrong pool creates no key.
  const pool = values.pool === undefined ? undefined : poolToken(assembly(), values.pool);
  // The key of the runner serving this folder in memory, if one does (it is nowhere else); else the data folder's,
  // created there if need be (the runners started on that folder then use it). --data-dir names the folder's.
  const lent = values['data-dir'] === undefined ? await borrowSigningKey() : undefined;
  const key = lent ?? (await loadSigningKey(dataDir, config.tokenIssuer));
  if (pool !== undefined) {
    console.log(await signPoolToken(key, { sub: values.sub, expiresIn, ...pool }));
  } else if (values.issuer !== undefined) {
    // Another issuer's token, for an HTTP API's JWT authorizer that names it: the development issuer's key signs it.
    const issuer = { ...key, issuer: values.issuer, audience: values.audience ?? '' };
    console.log(await signDevToken(issuer, { sub: values.sub, scope: values.scope ?? '', expiresIn }));
  } else {
    const scope = values.scope ?? devIssuerScope(assembly().apis) ?? '';
    console.log(await signDevToken(key, { sub: values.sub, scope, expiresIn }));
  }
} catch (error) {
  commandFailed('cdk-local-runner token', error);
}
