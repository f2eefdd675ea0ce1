// `start --inspect` from the command line, refused before it serves: these read a synthesized app (the runtimes
// fixture, synthesized once per run), so they sit in the e2e tier, beside the other files serving it; the rest of the
// options' tests (options.test.ts) stay in the quick unit tier.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { synthesizeRuntimesApp } from '../fixtures/runtimes-app.ts';
import { runnerBin } from '../helpers/runner-process.ts';

/** A folder with no project and no configuration: the command's options alone decide. */
const anywhere = () => mkdtempSync(join(tmpdir(), 'local-runner-cli-'));

describe('--inspect[=FUNCTION] and --inspect-port N', () => {
  const start = (...args: string[]) =>
    spawnSync(process.execPath, [runnerBin, 'start', '--in-memory', '--port', '0', ...args], {
      cwd: anywhere(),
      encoding: 'utf8',
    });
  let runtimesApp = '';
  beforeAll(() => {
    runtimesApp = synthesizeRuntimesApp();
  });

  test('a function the app does not serve, or one on another runtime, is refused by name', () => {
    const python = start('--app', runtimesApp, '--inspect=PythonFunction');
    expect(python.stderr).toBe(
      "cdk-local-runner start failed: --inspect=PythonFunction: it runs python3.12; the runner debugs Node.js functions alone (Node's inspector)\n",
    );
    const missing = start('--app', runtimesApp, '--inspect=Nope');
    expect(missing.stderr).toMatch(
      /^cdk-local-runner start failed: --inspect=Nope: no function Nope in the app; did you mean Runtimes\/\w+Function, or Runtimes\/\w+Function, or Runtimes\/\w+Function\?\n/,
    );
  });
});
