// What a running `start` tells the commands run in its project folder: where it serves, the environment variables that
// reach its services (`env`), and, serving in memory (`start --in-memory`), its signing key, so that the tokens `token`
// prints are the ones it accepts (a runner with a data folder keeps its key in the folder, where `token` reads it). It
// goes through a Unix socket in a folder of this user's alone (user-folder.ts), one per runner, named by the project
// folder the runner was started in: no other user, and no web page (it is no TCP port), can ask for it, and nothing of
// the key is written to disk.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer, get, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { text } from 'node:stream/consumers';
import { exportJWK, type JWK } from 'jose';
import { RunnerError } from './errors.ts';
import { privateJwkOf, type SigningKey, signingKeyOf } from './issuer/dev-issuer.ts';
import { userFolder } from './user-folder.ts';

/** What a runner tells: where it serves, its services' variables, and (in memory) its issuer and private key. */
export interface Announcement {
  url: string;
  variables: Record<string, string>;
  key?: { issuer: string; audience: string; privateJwk: JWK };
}

const isText = (value: unknown): value is string => typeof value === 'string';

const keyOf = (value: unknown): Announcement['key'] => {
  const { issuer, audience, privateJwk } = (value ?? {}) as Record<string, unknown>;
  const jwk = privateJwkOf(privateJwk);
  return isText(issuer) && isText(audience) && jwk !== undefined ? { issuer, audience, privateJwk: jwk } : undefined;
};

const announcementOf = (value: unknown): Announcement | undefined => {
  const { url, variables, key } = (value ?? {}) as Record<string, unknown>;
  if (!isText(url) || typeof variables !== 'object' || variables === null) return undefined;
  const entries = Object.entries(variables);
  if (!entries.every(([, text]) => isText(text))) return undefined;
  const lent = keyOf(key);
  return { url, variables: Object.fromEntries(entries) as Record<string, string>, ...(lent && { key: lent }) };
};

/** The folder of the sockets, and the prefix of this project's: a hash of the project folder's real path. */
const socketsOf = (projectDir: string) => {
  const { path, problem } = userFolder('local-runner-sockets');
  if (problem !== undefined)
    throw new RunnerError(`${path}, where runners answer \`token\` and \`env\`, is ${problem}`);
  return { folder: path, prefix: createHash('sha256').update(realpathSync(projectDir)).digest('hex').slice(0, 12) };
};

/** Fires a schedule now (the `fire` command): the key of the one fired; a RangeError when no name or several match. */
export type FireSchedule = (name: string) => Promise<string>;

/** `POST /fire` with `{"name": ...}`: the schedule fired (200), none or several named so (404), or a failure (500). */
const answerFire = (fire: FireSchedule, request: IncomingMessage, response: ServerResponse) => {
  let text = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => {
    text += chunk.slice(0, 10_000);
  });
  request.on('end', () => {
    const { name } = (() => {
      try {
        return JSON.parse(text) as { name?: unknown };
      } catch {
        return {};
      }
    })();
    const answer = (status: number, body: object) =>
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (typeof name !== 'string') return answer(400, { message: 'the body is {"name": "<schedule or rule>"}' });
    fire(name).then(
      (fired) => answer(200, { fired }),
      (error: unknown) =>
        answer(error instanceof RangeError ? 404 : 500, {
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  });
};

/**
 * Tells the `token`, `env` and `fire` commands run in `projectDir` about this runner, until this process ends: a
 * socket answering `GET /` with `url`, `variables` and, when given (in memory), `key`'s issuer and private key, and
 * `POST /fire` by firing the schedule named (`fire`).
 */
export const announceRunner = async (
  {
    url,
    variables,
    key,
    fire,
  }: { url: string; variables: Record<string, string>; key?: SigningKey | undefined; fire?: FireSchedule },
  projectDir = process.cwd(),
) => {
  const { folder, prefix } = socketsOf(projectDir);
  const socket = join(folder, `${prefix}-${process.pid}.sock`);
  const lent = key && {
    issuer: key.issuer,
    audience: key.audience,
    privateJwk: { ...(await exportJWK(key.privateKey)), kid: key.kid },
  };
  const body = JSON.stringify({ url, variables, ...(lent && { key: lent }) } satisfies Announcement);
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/fire' && fire) return answerFire(fire, request, response);
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
  new Promise<Announcement | undefined>((resolve) => {
    const request = get({ socketPath: socket, path: '/', timeout: answerWithinMs }, (response) => {
      text(response).then(
        (body) => {
          try {
            resolve(announcementOf(JSON.parse(body)));
          } catch {
            resolve(undefined);
          }
        },
        () => resolve(undefined),
      );
    });
    request.on('timeout', () => request.destroy());
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') rmSync(socket, { force: true });
      resolve(undefined);
    });
  });

/**
 * The runners serving `projectDir`, or else the nearest folder above it that one serves (a script run in the project's
 * `test/` reaches the runner started at its root), that answer (slow or stopped ones are left out, dead ones'
 * sockets removed), each with its socket.
 */
export const runnersServing = async (projectDir = process.cwd()): Promise<(Announcement & { socket: string })[]> => {
  for (let dir = realpathSync(projectDir); ; dir = dirname(dir)) {
    const { folder, prefix } = socketsOf(dir);
    const sockets = readdirSync(folder)
      .filter((name) => name.startsWith(`${prefix}-`) && name.endsWith('.sock'))
      .map((name) => join(folder, name));
    const told = await Promise.all(sockets.map(async (socket) => ({ socket, announcement: await ask(socket) })));
    const runners = told.flatMap(({ socket, announcement }) => (announcement ? [{ ...announcement, socket }] : []));
    if (runners.length > 0 || dirname(dir) === dir) return runners;
  }
};

/** Asks the runner behind `socket` to fire the schedule `name`: its answer's status and body. */
export const askToFire = (socket: string, name: string) =>
  new Promise<{ status: number; body: { fired?: string; message?: string } }>((resolve, reject) => {
    const request = httpRequest({ socketPath: socket, path: '/fire', method: 'POST' }, (response) => {
      text(response)
        .then((body) =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) as { fired?: string; message?: string } }),
        )
        .catch(reject);
    });
    request.on('error', reject);
    request.end(JSON.stringify({ name }));
  });

/**
 * The signing key of the runner serving `projectDir` in memory, if one does; a RunnerError when several do (each has
 * a key of its own, and a token is good for one of them only).
 */
export const borrowSigningKey = async (projectDir = process.cwd()): Promise<SigningKey | undefined> => {
  const lent = (await runnersServing(projectDir)).filter(({ key }) => key !== undefined);
  if (lent.length > 1)
    throw new RunnerError(
      `${lent.length} runners serve this folder in memory (${lent.map(({ url }) => url).join(', ')}), each with a key of its own: stop all but one, or give --data-dir to sign with a data folder's key`,
    );
  const key = lent[0]?.key;
  return key && signingKeyOf(key.privateJwk, { issuer: key.issuer, audience: key.audience });
};
