// A temporary folder for the whole run: TMPDIR, inherited by the test workers and every process they start, so that
// test/global-teardown.ts removes all they made at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default () => {
  process.env.LOCAL_RUNNER_SYSTEM_TMPDIR = tmpdir();
  process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'local-runner-tests-'));
};
