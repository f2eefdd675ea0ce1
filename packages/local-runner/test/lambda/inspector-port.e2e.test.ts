// `--inspect` when the inspector's port is taken: Node's inspector would say so in the function's output and run
// without one, while the banner named the port asked for. The runner takes the next free port, and the banner names
// the one the inspector really listens on (src/lambda/inspector-port.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { synthesizeNamesApp } from '../fixtures/names-app.ts';
import { launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

afterEach(stopStarted);

let app = '';
let folder = '';
/** A listener on the port the test asks the inspector for. */
let holder: Server;
beforeAll(async () => {
  app = synthesizeNamesApp();
  folder = mkdtempSync(join(tmpdir(), 'local-runner-inspect-'));
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

test('a port in use: the banner names the one the inspector listens on, which answers /json/list', async () => {
  const taken = (holder.address() as AddressInfo).port;
  const launched = launch(undefined, {
    args: ['--app', app, '--inspect=CreatePlantFunction', '--inspect-port', String(taken)],
    cwd: folder,
  });
  const banner = /Debugger: CreatePlantFunction\w+ on 127\.0\.0\.1:(\d+)/;
  const port = Number(banner.exec(await launchedUntil(launched, banner))?.[1]);
  expect(port).not.toBe(taken);
  expect(launched.output()).toContain(`the inspector's port ${taken} is in use; it listens on ${port}`);
  // The function's own line, once its inspector listens (Node's "Debugger listening on ws://...").
  await launchedUntil(launched, new RegExp(`Debugger listening on ws://127\\.0\\.0\\.1:${port}/`));
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string }[];
  expect(targets).toEqual([expect.objectContaining({ type: 'node' })]);
});
