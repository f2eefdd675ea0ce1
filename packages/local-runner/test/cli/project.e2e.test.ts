// The commands as a stranger runs them in a CDK project of their own (cdk.json as `cdk init app` writes it, a git
// repository), with `start` running: its data folder stays out of `git status`; `invoke` shares its database instead
// of failing on the folder's lock, and synthesizes nothing when cdk.out is up to date (the event file written since is
// no source); its event comes from a file, `-e FILE`, or standard input (`-`), as `sam local invoke --event` takes it
// (SAM developer guide, "sam local invoke"); `--env-vars` reads SAM's "Parameters" and refuses a key that names no
// function (SAM developer guide, "Invoking functions locally", environment variable file).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { installed } from '../fixtures/handler-styles-app.ts';
import { type Launched, launch, launchedUntil, runnerBin, stopStarted } from '../helpers/runner-process.ts';

const fixtures = new URL('../fixtures/', import.meta.url).pathname;
let root = '';
let url = '';
let started: Launched | undefined;

/**
 * `cdk-local-runner invoke ARGS` in the project, `input` on its standard input: its exit code and output. Its events
 * are the test's own, not API Gateway's: kept out of the event log the run checks against Powertools' schemas
 * (LOCAL_RUNNER_EVENT_LOG, test/global-teardown.ts).
 */
const invoke = (args: string[], input = '') =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const { LOCAL_RUNNER_EVENT_LOG: _checked, ...env } = process.env;
    const child = spawn(process.execPath, [runnerBin, 'invoke', ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });

/**
 * A file in the project's test/, written now (after the start's synth): cdk.json's watch excludes test/, as `cdk init`
 * writes it; a file anywhere else is a source of the synth (the event an invoke reads apart).
 */
const written = (name: string, content: unknown) => {
  const path = join('test', name);
  writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-project-'));
  cpSync(join(fixtures, 'project'), root, { recursive: true });
  mkdirSync(join(root, 'functions'));
  mkdirSync(join(root, 'test'));
  copyFileSync(join(fixtures, 'shapes/crud.mjs'), join(root, 'functions/crud.mjs'));
  copyFileSync(join(fixtures, 'functions/echo.mjs'), join(root, 'functions/echo.mjs'));
  symlinkSync(installed, join(root, 'node_modules'));
  // The .gitignore `cdk init app --language typescript` writes.
  writeFileSync(join(root, '.gitignore'), '*.js\n!jest.config.js\n*.d.ts\nnode_modules\n\n.cdk.staging\ncdk.out\n');
  spawnSync('git', ['init', '--quiet'], { cwd: root });
  started = launch(join(root, '.local-runner'), { cwd: root });
  const serving = /is serving at (http:\/\/127\.0\.0\.1:\d+)/;
  url = serving.exec(await launchedUntil(started, serving))?.[1] ?? '';
}, 180_000);
// Stopped with all it started: its functions' environments hold its output until they are gone (the watchdog ends them).
afterAll(async () => {
  stopStarted();
  await started?.closed;
});

test("the runner's data folder is not in the project's git status (its own .gitignore ignores it)", () => {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' });
  expect(status.stdout).toContain('?? app.mts');
  expect(status.stdout).not.toContain('.local-runner');
});

describe('invoke beside a running start of the same data folder', () => {
  test('shares its database, and synthesizes nothing when cdk.out is up to date', async () => {
    // An event beside cdk.json, where cdk.json's watch (`**`) would make it a source: it is the command's input.
    writeFileSync(join(root, 'create-aloe.json'), JSON.stringify({ body: JSON.stringify({ name: 'Aloe' }) }));
    const invoked = await invoke(['CreatePlant', 'create-aloe.json']);
    rmSync(join(root, 'create-aloe.json'));
    expect(invoked.stderr).toContain('cdk.out is up to date');
    expect(invoked.stderr).not.toContain('Synthesizing');
    expect(invoked.code).toBe(0);
    expect(JSON.parse(invoked.stdout)).toEqual({ statusCode: 201, body: '' });
    // The plant the invocation stored is in the running start's database.
    const listed = await fetch(`${url}/prod/plants`);
    expect(await listed.json()).toEqual([expect.objectContaining({ name: 'Aloe' })]);
  }, 120_000);
});

describe("invoke's event", () => {
  const eventOf = ({ stdout }: { stdout: string }) => JSON.parse(JSON.parse(stdout).body).event;

  test('from standard input, with -', async () => {
    expect(eventOf(await invoke(['Echo', '-'], '{"from": "stdin"}'))).toEqual({ from: 'stdin' });
    expect(eventOf(await invoke(['Echo', '-e', '-'], '{"from": "stdin"}'))).toEqual({ from: 'stdin' });
  }, 120_000);

  test('from a file given with -e (--event), as sam local invoke takes it; none is {}', async () => {
    const event = written('event.json', { from: 'file' });
    expect(eventOf(await invoke(['Echo', '-e', event]))).toEqual({ from: 'file' });
    expect(eventOf(await invoke(['Echo', '--event', event]))).toEqual({ from: 'file' });
    expect(eventOf(await invoke(['Echo']))).toEqual({});
  }, 120_000);

  test.each([
    ['a missing file', ['test/missing.json'], 'event file test/missing.json: no such file'],
    ['a file that is not JSON', ['test/broken.json'], 'event file test/broken.json is not JSON'],
    ['standard input that is not JSON', ['-'], 'the event on standard input is not JSON'],
    ['two events', ['test/event.json', '-e', 'test/event.json'], 'the event is given twice'],
  ])(
    "%s is the user's mistake: its message, no stack trace",
    async (_case, args, message) => {
      written('broken.json', '{"from": ');
      written('event.json', '{}');
      const invoked = await invoke(['Echo', ...args], 'not json');
      expect(invoked.code).toBe(1);
      expect(invoked.stderr).toContain(`cdk-local-runner invoke failed: ${message}`);
      expect(invoked.stderr).not.toMatch(/^\s+at /m);
    },
    120_000,
  );
});

describe('--env-vars, as sam local reads the file', () => {
  const fixtureValue = ({ stdout }: { stdout: string }) => JSON.parse(JSON.parse(stdout).body).env;

  test('"Parameters" gives every function its values; a function\'s own entry wins over them', async () => {
    const everyFunction = written('env-parameters.json', { Parameters: { FIXTURE_VALUE: 'every function' } });
    expect(fixtureValue(await invoke(['Echo', '--env-vars', everyFunction]))).toBe('every function');
    const both = written('env-both.json', {
      Parameters: { FIXTURE_VALUE: 'every function' },
      Echo: { FIXTURE_VALUE: 'own' },
    });
    expect(fixtureValue(await invoke(['Echo', '--env-vars', both]))).toBe('own');
  }, 120_000);

  test('a key that names no function of the app is refused, named', async () => {
    const typo = written('env-typo.json', { Ecko: { FIXTURE_VALUE: 'lost' } });
    const invoked = await invoke(['Echo', '--env-vars', typo]);
    expect(invoked.code).toBe(1);
    expect(invoked.stderr).toContain(
      'cdk-local-runner invoke failed: --env-vars Ecko: no function Ecko in the app; did you mean ',
    );
  }, 120_000);
});
