// The runner's data folder (`.local-runner` by default): the database and the issuer's key, kept between runs. Created
// with a `.gitignore` ignoring all of it, as pytest's and ruff's caches are, so that it stays out of the project's
// `git status` without a line in the project's own .gitignore.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Creates `dataDir` (and its parents) when missing, with its `.gitignore`; a folder already there is left as it is. */
export const makeDataDir = (dataDir: string) => {
  if (existsSync(dataDir)) return;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, '.gitignore'), '# Created by cdk-local-runner automatically.\n*\n');
};
