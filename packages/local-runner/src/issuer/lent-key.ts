// The signing key of a runner serving in memory (`start --in-memory`), lent to the `token` command, so that the tokens
// it prints are the ones the running server accepts. A runner with a data folder needs none of this: its key is in the
// folder, where `token` reads it. The key goes through a Unix socket in a folder of this user's alone (user-folder.ts),
// one per runner, named by the project folder the runner was started in: no other user, and no web page (it is no TCP
// port), can ask for it, and nothing of the key is written to disk.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { join } from 'node:path';
import { exportJWK, type JWK } from 'jose';
import { RunnerError } from '../errors.ts';
import { userFolder } from '../user-folder.ts';
import { privateJwkOf, type SigningKey, signingKeyOf } from './dev-issuer.ts';

/** What a runner lends: where it serves, who its issuer says it is, and its private key. */
interface LentKey {
  url: string;
  issuer: string;
  audience: string;
  privateJwk: JWK;
}

const lentKeyOf = (value: unknown): LentKey | undefined => {
  const { url, issuer, audience, privateJwk } = (value ?? {}) as Partial<Record<keyof LentKey, unknown>>;
  const jwk = privateJwkOf(privateJwk);
  return typeof url === 'string' && typeof issuer === 'string' && typeof audience === 'string' && jwk !== undefined
    ? { url, issuer, audience, privateJwk: jwk }
    : undefined;
};

/** The folder of the sockets, and the prefix of this project's: a hash of the project folder's real path. */
const socketsOf = (projectDir: string) => {
  const { path, problem } = userFolder('local-runner-keys');
  if (problem !== undefined)
    throw new RunnerError(`${path}, where runners lend their keys to \`token\`, is ${problem}`);
  return { folder: path, prefix: createHash('sha256').update(realpathSync(projectDir)).digest('hex').slice(0, 12) };
};

/**
 * Lends `key` to the `token` commands run in `projectDir`, until this process ends: a socket answering `GET /` with
 * the key, where the runner serves (`url`) and its issuer's identity.
 */
export const lendSigningKey = async (key: SigningKey, url: string, projectDir = process.cwd()) => {
  const { folder, prefix } = socketsOf(projectDir);
  const socket = join(folder, `${prefix}-${process.pid}.sock`);
  const privateJwk = { ...(await exportJWK(key.privateKey)), kid: key.kid };
  const body = JSON.stringify({ url, issuer: key.issuer, audience: key.audience, privateJwk } satisfies LentKey);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  });
  // A socket left by an earlier process of this id (killed before it could remove it).
  rmSync(socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  server.unref();
  process.once('exit', () => rmSync(socket, { force: true }));
};

/** How long a runner has to answer: one stopped (Ctrl-Z) holds its socket open and never does. */
const answerWithinMs = 2_000;

/**
 * What the runner behind `socket` lends; undefined when none answers there. A socket nothing listens on (its runner
 * killed before it could remove it) is removed; one whose runner is slow or stopped is left to it.
 */
const ask = (socket: string) =>
  new Promise<LentKey | undefined>((resolve) => {
    const request = get({ socketPath: socket, path: '/', timeout: answerWithinMs }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        try {
          resolve(lentKeyOf(JSON.parse(text)));
        } catch {
          resolve(undefined);
        }
      });
    });
    request.on('timeout', () => request.destroy());
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') rmSync(socket, { force: true });
      resolve(undefined);
    });
  });

/**
 * The signing key of the runner serving `projectDir` in memory, if one does; a RunnerError when several do (each has
 * a key of its own, and a token is good for one of them only).
 */
export const borrowSigningKey = async (projectDir = process.cwd()): Promise<SigningKey | undefined> => {
  const { folder, prefix } = socketsOf(projectDir);
  const sockets = readdirSync(folder).filter((name) => name.startsWith(`${prefix}-`) && name.endsWith('.sock'));
  const lent = (await Promise.all(sockets.map((name) => ask(join(folder, name))))).filter((key) => key !== undefined);
  if (lent.length > 1)
    throw new RunnerError(
      `${lent.length} runners serve this folder in memory (${lent.map(({ url }) => url).join(', ')}), each with a key of its own: stop all but one, or give --data-dir to sign with a data folder's key`,
    );
  const [one] = lent;
  return one && signingKeyOf(one.privateJwk, { issuer: one.issuer, audience: one.audience });
};
