// Addresses that do not move: a start with a data folder and a port remembers which API and function URL had which
// port, and the next start gives each the same one while its logical id stays, though an API added since comes first
// in the template (src/api-ports.ts). A port in use is refused naming what wanted it.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { signalGroup } from 'test-support/process-group';
import { synthesizeNamesApp, synthesizeNamesAppWithAdminApi } from './fixtures/names-app.ts';
import { freeRange, hold, release } from './helpers/free-ports.ts';
import { launch, launchedUntil, stopStarted } from './helpers/runner-process.ts';

afterEach(stopStarted);

let v1 = '';
let v2 = '';
let dataDir = '';
let base = 0;
beforeAll(async () => {
  v1 = synthesizeNamesApp();
  v2 = synthesizeNamesAppWithAdminApi();
  dataDir = mkdtempSync(join(tmpdir(), 'local-runner-ports-'));
  base = await freeRange(4);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts `app` on `base` with the data folder; the address of each API and URL the banner names, by logical id. */
const addresses = async (app: string) => {
  const launched = launch(dataDir, { args: ['--app', app, '--port', String(base)] });
  const output = await launchedUntil(launched, /^Data: /m);
  // Stopped as a user stops it, so that the data folder is free for the next start.
  signalGroup(launched.child, 'SIGINT');
  await launched.closed;
  const found = [...output.matchAll(/^(?:REST API|HTTP API|Function URL|WebSocket API) (\S+) at (http:\S+):$/gm)];
  return Object.fromEntries(found.map(([, id, url]) => [id, url]));
};

test('an API added before the others moves no address; a port in use names what wanted it', async () => {
  const before = await addresses(v1);
  expect(Object.keys(before).sort()).toEqual(['PlantApiE0200C5F', 'WebhookFunctionUrl0EF34D45']);
  const after = await addresses(v2);
  expect(after).toMatchObject(before);
  expect(Object.keys(after)).toContain('AdminApi059A0912');
  expect(new Set(Object.values(after)).size).toBe(3);

  // The URL's port, held by another listener: the start is refused, naming the URL and the port.
  const port = Number(new URL(before.WebhookFunctionUrl0EF34D45 ?? '').port);
  const holder = (await hold(port)) as Server;
  const refused = launch(dataDir, { args: ['--app', v1, '--port', String(base)] });
  expect(await refused.exited).toBe(1);
  await release(holder);
  expect(refused.output()).toContain(
    `cdk-local-runner start failed: port ${port} is in use: the runner wanted it for the function URL WebhookFunctionUrl0EF34D45 of stack PlantStore (its port since an earlier start, kept in ${join(dataDir, 'ports.json')}); stop what holds it, or choose another --port (0: any free ones)`,
  );
  // Three starts of the runner, each with its database: on a busy machine they take longer than jest's 30 s.
}, 120_000);
