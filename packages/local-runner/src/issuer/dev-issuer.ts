// The development token issuer: an ES256 key created once in the data folder, its JWKS served on loopback, and
// tokens signed with it. The authorizer's environment points at it, so local tokens pass the real authorizer code.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import type { Api } from '../app/api.ts';
import type { FunctionDefinition } from '../app/functions.ts';
import { resolveValue } from '../app/intrinsics.ts';
import { functionContext } from '../app/served-functions.ts';
import { makeDataDir } from '../data-folder.ts';
import { RunnerError } from '../errors.ts';
import {
  afterBody,
  hostIsServed,
  hostRefusal,
  listenOnLoopback,
  requestHost,
  respondingToEveryRequest,
} from '../http-server.ts';

/** The `iss` and `aud` of the development issuer's tokens (the app's functions are told to trust them). */
export interface IssuerIdentity {
  issuer: string;
  audience: string;
}
const algorithm = 'ES256';

/** Per function id, the values `--env-vars` gives (they win over the template's and the runner's). */
export type EnvVars = Record<string, Record<string, string>>;

/**
 * Whether the development issuer stands in for the issuer `fn` trusts: always, so that the app serves offline with
 * local tokens, unless `--env-vars` names the issuer: then the function keeps it, keys and all, as deployed.
 */
export const trustsDevIssuer = (fn: FunctionDefinition, envVars: EnvVars): boolean => {
  const names = fn.tokenIssuerVariables;
  return names !== undefined && !(names.issuer in (envVars[fn.id] ?? {}));
};

/** Every scope a JSON list of routes (`[{"scopes": [...]}]`) names; none when it is not one. */
const scopesOfRoutes = (text: string): string[] => {
  let routes: unknown;
  try {
    routes = JSON.parse(text);
  } catch {
    return [];
  }
  return Array.isArray(routes)
    ? routes.flatMap((route: { scopes?: unknown }) =>
        Array.isArray(route?.scopes) ? route.scopes.filter((scope) => typeof scope === 'string') : [],
      )
    : [];
};

/**
 * The scopes local tokens carry, space-separated: every scope of the routes of the functions that trust the
 * development issuer (from `--env-vars` or the template), so that a development token reaches every route; undefined
 * when none trusts it, and a development token would be refused.
 */
export const devIssuerScope = (apps: Api | Api[], envVars: EnvVars = {}): string | undefined => {
  // Each function's values resolved in its own stack (functionContext), whichever API reaches it.
  const trusting = [apps]
    .flat()
    .flatMap((app) => [...app.functions.values()].map((fn) => ({ fn, context: functionContext(app, fn.id) })))
    .filter(({ fn }) => trustsDevIssuer(fn, envVars));
  if (trusting.length === 0) return undefined;
  const scopes = trusting.flatMap(({ fn, context }) => {
    const name = fn.tokenIssuerVariables?.routeScopes;
    if (name === undefined) return [];
    const value = envVars[fn.id]?.[name] ?? fn.variables[name];
    return value === undefined ? [] : scopesOfRoutes(resolveValue(value, context));
  });
  return [...new Set(scopes)].join(' ');
};

/** `key` if it is the issuer's private key as this runner makes it (an ES256 private JWK with a `kid`). */
export const privateJwkOf = (key: unknown): JWK | undefined => {
  const { kty, crv, d, kid } = (key ?? {}) as JWK;
  return kty === 'EC' && crv === 'P-256' && typeof d === 'string' && typeof kid === 'string' ? (key as JWK) : undefined;
};

/** The issuer's private key as this runner wrote it, or an error that says what is wrong and what to do. */
const readKeyFile = (file: string): JWK => {
  let key: unknown;
  try {
    key = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    key = error;
  }
  const jwk = privateJwkOf(key);
  if (jwk !== undefined) return jwk;
  throw new RunnerError(
    `${file} is not the development issuer's key (an ES256 private JWK): delete it to create a new key ` +
      '(tokens signed with the old one then stop working)',
  );
};

/** The development issuer: who it says it is, and its key. */
export interface SigningKey extends IssuerIdentity {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** The issuer's key: read from `dataDir`, or created there (only in memory without a data folder). */
export const loadSigningKey = async (dataDir: string | undefined, identity: IssuerIdentity): Promise<SigningKey> => {
  const file = dataDir === undefined ? undefined : join(dataDir, 'dev-issuer-key.json');
  let privateJwk: JWK;
  if (file && existsSync(file)) {
    privateJwk = readKeyFile(file);
  } else {
    const { privateKey } = await generateKeyPair(algorithm, { extractable: true });
    privateJwk = { ...(await exportJWK(privateKey)), alg: algorithm, kid: `dev-${Date.now().toString(36)}` };
    if (file && dataDir) {
      makeDataDir(dataDir);
      writeFileSync(file, JSON.stringify(privateJwk), { mode: 0o600 });
    }
  }
  return signingKeyOf(privateJwk, identity);
};

/** The issuer of `identity` signing with `privateJwk` (its private key extractable: a runner lends it to `token`). */
export const signingKeyOf = async (privateJwk: JWK, identity: IssuerIdentity): Promise<SigningKey> => {
  const { d: _private, ...publicJwk } = privateJwk;
  return {
    ...identity,
    kid: String(privateJwk.kid),
    privateKey: (await importJWK(privateJwk, algorithm, { extractable: true })) as CryptoKey,
    publicJwk: { ...publicJwk, use: 'sig' },
  };
};

interface TokenOptions {
  sub: string;
  scope: string;
  /** Seconds, or a jose time span such as `2h`. */
  expiresIn: string | number;
}

/**
 * A Cognito user pool's token, as Cognito shapes it ("Understanding user pool JSON web tokens" in the Cognito guide):
 * an ID token (`token_use` id, the client as `aud`, `cognito:username`) or an access token (`token_use` access,
 * `client_id`, `scope`, `username`), issued by the pool's issuer URL and signed by the development issuer's key, which
 * the runner's user pool authorizers trust in Cognito's place.
 */
export const signPoolToken = (
  key: SigningKey,
  {
    issuer,
    clientId,
    tokenUse,
    sub,
    scope,
    expiresIn,
  }: TokenOptions & { issuer: string; clientId: string; tokenUse: 'id' | 'access' },
) => {
  const now = Math.floor(Date.now() / 1000);
  const claims =
    tokenUse === 'id'
      ? { 'cognito:username': sub, token_use: 'id', auth_time: now }
      : { client_id: clientId, username: sub, token_use: 'access', scope, auth_time: now };
  const jwt = new SignJWT({ ...claims, origin_jti: randomUUID(), event_id: randomUUID() })
    .setProtectedHeader({ alg: algorithm, kid: key.kid })
    .setIssuer(issuer)
    .setSubject(sub)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(typeof expiresIn === 'number' ? now + expiresIn : expiresIn);
  return (tokenUse === 'id' ? jwt.setAudience(clientId) : jwt).sign(key.privateKey);
};

export const signDevToken = (key: SigningKey, { sub, scope, expiresIn }: TokenOptions) =>
  new SignJWT({ scope, client_id: 'local-client' })
    .setProtectedHeader({ alg: algorithm, kid: key.kid, typ: 'JWT' })
    .setIssuer(key.issuer)
    .setAudience(key.audience)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(typeof expiresIn === 'number' ? Math.floor(Date.now() / 1000) + expiresIn : expiresIn)
    .sign(key.privateKey);

/**
 * A JWKS endpoint on loopback, `<base>/.well-known/jwks.json`, publishing what `keys()` answers at each request
 * (the development issuer's key; tests publish and rotate theirs). It counts its fetches.
 */
export const serveJwks = async (keys: () => JWK[] | Promise<JWK[]>) => {
  let fetches = 0;
  const server = createServer(async (request, response) => {
    // Loopback hosts alone, as every server of the runner (http-server.ts): a page on a rebound name gets nothing.
    const host = requestHost(request);
    if (!hostIsServed(host)) {
      const body = JSON.stringify({ error: 403, message: hostRefusal(host ?? '', { optionServesIt: false }) });
      afterBody(request, response, () => response.writeHead(403, { 'Content-Type': 'application/json' }).end(body));
      return;
    }
    if (request.url !== '/.well-known/jwks.json') {
      afterBody(request, response, () =>
        response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":404,"message":"Not found"}'),
      );
      return;
    }
    fetches += 1;
    const body = JSON.stringify({ keys: await keys() });
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  });
  const url = await listenOnLoopback(respondingToEveryRequest(server));
  return {
    url,
    jwksUri: `${url}/.well-known/jwks.json`,
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
