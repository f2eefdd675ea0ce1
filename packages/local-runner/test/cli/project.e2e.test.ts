// The commands as a stranger runs them in a CDK project of their own (cdk.json as `cdk init app` writes it, a git
// repository), with `start` running: its data folder stays out of `git status`.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { installed } from '../fixtures/handler-styles-app.ts';
import { launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

const fixtures = new URL('../fixtures/', import.meta.url).pathname;
let root = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-project-'));
  cpSync(join(fixtures, 'project'), root, { recursive: true });
  mkdirSync(join(root, 'functions'));
  copyFileSync(join(fixtures, 'shapes/crud.mjs'), join(root, 'functions/crud.mjs'));
  copyFileSync(join(fixtures, 'functions/echo.mjs'), join(root, 'functions/echo.mjs'));
  symlinkSync(installed, join(root, 'node_modules'));
  // The .gitignore `cdk init app --language typescript` writes.
  writeFileSync(join(root, '.gitignore'), '*.js\n!jest.config.js\n*.d.ts\nnode_modules\n\n.cdk.staging\ncdk.out\n');
  spawnSync('git', ['init', '--quiet'], { cwd: root });
  const started = launch(join(root, '.local-runner'), { cwd: root });
  await launchedUntil(started, /is serving at/);
}, 180_000);
afterAll(stopStarted);

test("the runner's data folder is not in the project's git status (its own .gitignore ignores it)", () => {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' });
  expect(status.stdout).toContain('?? app.mts');
  expect(status.stdout).not.toContain('.local-runner');
});
