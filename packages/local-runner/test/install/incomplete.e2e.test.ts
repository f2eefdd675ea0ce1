// A build of the runner without a runtime's file (package.json's `files` leaving `dist/lambda/runtime.mjs` out, as a
// packing mistake did once: every request to a Node.js function then answered 502) is refused at start, naming the
// file, rather than serving an API whose functions cannot run. The built package is copied beside itself without the
// file (its imports still resolve from the workspace's node_modules) and started on an app synthesized elsewhere.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';
import { launch, stopStarted } from '../helpers/runner-process.ts';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const { bin } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
let copy: string;
let cloudAssemblyDir: string;

beforeAll(() => {
  // Inside the package, so that its dependencies resolve as the built package's do; removed after.
  copy = mkdtempSync(join(packageDir, '.incomplete-'));
  cpSync(join(packageDir, 'package.json'), join(copy, 'package.json'));
  cpSync(join(packageDir, 'dist'), join(copy, 'dist'), {
    recursive: true,
    filter: (path) => !path.endsWith('/runtime.mjs'),
  });
  cloudAssemblyDir = synthesizeFixtureApp();
}, 120_000);

afterAll(async () => {
  await stopStarted();
  rmSync(copy, { recursive: true, force: true });
});

test('a build without runtime.mjs refuses to start, naming the file and what to do', async () => {
  const started = launch(undefined, {
    bin: join(copy, Object.values(bin)[0] ?? ''),
    args: ['--app', cloudAssemblyDir],
  });
  const code = await started.exited;
  await started.closed;
  expect(code).not.toBe(0);
  expect(started.output()).toContain(`lacks ${join(copy, 'dist/lambda/runtime.mjs')}`);
  expect(started.output()).toContain('install cdk-local-runner again');
  expect(started.output()).not.toContain('is serving at');
});
