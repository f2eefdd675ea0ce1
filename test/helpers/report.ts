// Suites that `npm run reliability` runs write what they did here (PLANT_STORE_REPORT_DIR), for docs/reliability.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const report = (suite: string, figures: Record<string, unknown>) => {
  const dir = process.env.PLANT_STORE_REPORT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite}.json`), `${JSON.stringify({ suite, ...figures }, null, 2)}\n`);
};

/** fast-check's run settings: a replay of a failure when FC_SEED (and FC_PATH) say so, as its report prints them. */
export const replay = () =>
  process.env.FC_SEED === undefined
    ? {}
    : { seed: Number(process.env.FC_SEED), ...(process.env.FC_PATH && { path: process.env.FC_PATH }) };

/** True under `npm run reliability`: property suites that ask run thousands of cases there, hundreds in `npm test`. */
export const thorough = () => process.env.PLANT_STORE_THOROUGH === '1';
