import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The mark of one jest run, in the environment of every process the run starts (see test/global-teardown.ts).
const name = 'PLANT_STORE_TEST_RUN';

/** Puts a new mark in this process's environment: processes started from now on inherit it. */
export const markTestRun = (id: string) => {
  process.env[name] = id;
};

/** The mark as it stands in /proc/<pid>/environ, or undefined outside a marked run. */
export const testRunMark = () => (process.env[name] === undefined ? undefined : `${name}=${process.env[name]}`);

/** The run's temporary folder, and the system's as it was (TMPDIR before the run), with what it held then. */
const runFolder = 'PLANT_STORE_RUN_TMPDIR';
const systemFolder = 'PLANT_STORE_SYSTEM_TMPDIR';
const heldBefore = 'held-before.json';

/** Makes the run's temporary folder and points TMPDIR at it: processes started from now on inherit it. */
export const startTemporaryFolder = () => {
  const system = tmpdir();
  const run = mkdtempSync(join(system, 'plant-store-run-'));
  writeFileSync(join(run, heldBefore), JSON.stringify(readdirSync(system)));
  Object.assign(process.env, { [systemFolder]: system, [runFolder]: run, TMPDIR: run });
};

/** Removes the run's temporary folder; answers what the run left in the system's one besides (undefined: no run). */
export const endTemporaryFolder = (): string[] | undefined => {
  const [run, system] = [process.env[runFolder], process.env[systemFolder]];
  if (run === undefined || system === undefined) return undefined;
  const before = new Set(JSON.parse(readFileSync(join(run, heldBefore), 'utf8')) as string[]);
  rmSync(run, { recursive: true, force: true });
  process.env.TMPDIR = system;
  // The project's names only (another run's own folder aside): the system's folder is shared with everything else.
  const ours = (name: string) => /^(plant-store|local-runner)-/.test(name) && !name.startsWith('plant-store-run-');
  return readdirSync(system).filter((name) => ours(name) && !before.has(name));
};
