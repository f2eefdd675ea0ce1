// A fixture app synthesized once per test run, however many files serve it: the first call synthesizes it and keeps
// the result in the run's temporary folder (TMPDIR, which the run's global setup makes and its teardown removes);
// every call answers a copy of its own, in a new temporary folder, so that a test may change or remove what it got.
// Two workers that synthesize the same app at once both finish; the first to rename its result into the store wins
// (a rename onto a folder that is not empty fails), the other's stays in the run's folder.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** `synthesize`'s folder (a new one each call, named as it names it), synthesized at most once per run under `key`. */
export const oncePerRun = (key: string, synthesize: () => string): string => {
  const store = join(tmpdir(), 'synthesized-once');
  const kept = join(store, key);
  if (!existsSync(kept)) {
    const made = synthesize();
    // The folder's name, kept beside it: a caller may look for its app by that name (`cdk.out`).
    const staging = mkdtempSync(join(tmpdir(), `${key}-`));
    renameSync(made, join(staging, basename(made)));
    mkdirSync(store, { recursive: true });
    try {
      renameSync(staging, kept);
    } catch (error) {
      if (!existsSync(kept)) throw error;
    }
  }
  const [name = ''] = readdirSync(kept);
  const copy = join(mkdtempSync(join(tmpdir(), `${key}-`)), name);
  cpSync(join(kept, name), copy, { recursive: true });
  return copy;
};
