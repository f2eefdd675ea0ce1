// How `token` (and `env`) ask a runner serving this folder (src/runner-socket.ts), when the runner cannot answer:
// a socket whose runner is stopped (Ctrl-Z: it accepts, never answers) must not hang `token`, nor lose the runner its
// socket; a socket nothing listens on any more (its runner killed) is removed.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { loadSigningKey } from '../src/issuer/dev-issuer.ts';
import { announceRunner, borrowSigningKey } from '../src/runner-socket.ts';

let project: string;
let silent: Server | undefined;
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'lent-key-project-'));
});
afterAll(async () => {
  await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
  rmSync(project, { recursive: true, force: true });
});

/** The socket path a runner of `project` with process id `pid` would lend its key on. */
const socketOf = async (pid: number) => {
  // Lent once by this process, then its name read back with the prefix and changed to `pid`.
  const key = await loadSigningKey(undefined, { issuer: 'urn:test', audience: 'test' });
  await announceRunner({ url: 'http://127.0.0.1:1', variables: {}, key }, project);
  const folder = join(tmpdir(), `local-runner-sockets-${process.getuid?.() ?? 'user'}`);
  const own = readdirSync(folder).find((name) => name.endsWith(`-${process.pid}.sock`)) ?? '';
  return { folder, own: join(folder, own), other: join(folder, own.replace(`-${process.pid}.`, `-${pid}.`)) };
};

test('a runner that accepts but never answers: no key, in bounded time, and its socket kept', async () => {
  const { own, other } = await socketOf(999_991);
  rmSync(own, { force: true });
  silent = createServer((connection) => connection.resume());
  await new Promise<void>((resolve) => silent?.listen(other, resolve));
  await expect(borrowSigningKey(project)).resolves.toBeUndefined();
  expect(existsSync(other)).toBe(true);
});

test('a socket nothing listens on (its runner killed): no key, and the socket removed', async () => {
  const { own, other } = await socketOf(999_992);
  rmSync(own, { force: true });
  writeFileSync(other, '');
  await expect(borrowSigningKey(project)).resolves.toBeUndefined();
  expect(existsSync(other)).toBe(false);
});
