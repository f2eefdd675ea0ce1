// Removes the run's temporary folder (test/global-setup.ts), whatever the tests left in it.
import { rmSync } from 'node:fs';

export default () => {
  const system = process.env.LOCAL_RUNNER_SYSTEM_TMPDIR;
  if (system === undefined || process.env.TMPDIR === undefined) return;
  rmSync(process.env.TMPDIR, { recursive: true, force: true });
  process.env.TMPDIR = system;
};
