// What `npm ci` runs: swagger-ui-dist (the local API reference) depends on @scarf/scarf, whose install script reports
// each install to scarf.sh unless the project opts out. package.json's `scarfSettings` does; checked by running that
// very script, pointed at a loopback server that stands in for scarf.sh (its SCARF_LOCAL_PORT), with none of the
// environment variables that would opt out for it.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
import { projectRoot } from '../infra/project-root.ts';

const scarfScript = createRequire(import.meta.url).resolve('@scarf/scarf');
let reports = 0;
const scarf = createServer((request, response) => {
  reports += 1;
  request.resume();
  response.end();
});
let port: string;

beforeAll(async () => {
  port = new URL(await listenOnLoopback(scarf)).port;
});
afterAll(() => new Promise((resolve) => scarf.close(resolve)));

/** Runs scarf's install script as npm would for a project in `root`; resolves with what it logged. */
const runScarf = async (root: string) => {
  const { SCARF_ANALYTICS: _a, SCARF_NO_ANALYTICS: _b, DO_NOT_TRACK: _c, ...environment } = process.env;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [scarfScript], {
    env: { ...environment, INIT_CWD: root, SCARF_LOCAL_PORT: port, SCARF_VERBOSE: 'true' },
  });
  return stdout + stderr;
};

test("npm ci sends nothing to scarf: the project's package.json opts out", async () => {
  const before = reports;

  const logged = await runScarf(projectRoot);

  expect(logged).toMatch(/User has opted out/);
  expect(reports).toBe(before);
});

test('the control: a project without the setting would report its install', async () => {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-scarf-'));
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'control', version: '1.0.0', scarfSettings: { skipTraversal: true } }),
  );
  const before = reports;

  await runScarf(root);

  expect(reports).toBe(before + 1);
}, 30_000);
