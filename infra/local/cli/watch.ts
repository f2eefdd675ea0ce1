// `npm run dev`: npm start, plus a new synth whenever the app's sources change (functions/, infra/ but the runner
// itself, openapi.yaml), served without a restart: the database, the issuer, the address and the token stay. A
// change that does not synthesize leaves the previous version serving, and its error is printed.
import { watch } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot, synthesize } from '../app/cloud-assembly.ts';
import type { LocalApi } from '../local-api.ts';

/** Editors write a file in several steps: a synth starts once the changes have paused this long. */
const settleMs = 300;

export const reloadOnChange = (api: LocalApi, log: (line: string) => void) => {
  let timer: NodeJS.Timeout | undefined;
  let synthesizing = false;
  let changedMeanwhile = false;
  let served: string | undefined;

  const rebuild = async () => {
    if (synthesizing) {
      changedMeanwhile = true;
      return;
    }
    synthesizing = true;
    const outputDir = await mkdtemp(join(tmpdir(), 'plant-store-dev-'));
    try {
      log('change seen: synthesizing...');
      await synthesize(outputDir);
      await api.reload(outputDir);
      log('serving the new version (the database and its plants are kept)');
      // The previous synth's bundles are loaded: its folder can go (the first one, cdk.out, stays).
      if (served) await rm(served, { recursive: true, force: true });
      served = outputDir;
    } catch (error) {
      await rm(outputDir, { recursive: true, force: true });
      log(`the change does not synthesize; still serving the previous version:\n${(error as Error).message}`);
    } finally {
      synthesizing = false;
      if (changedMeanwhile) {
        changedMeanwhile = false;
        void rebuild();
      }
    }
  };
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), settleMs);
  };

  const watchers = [
    watch(join(projectRoot, 'functions'), { recursive: true }, changed),
    watch(join(projectRoot, 'infra'), { recursive: true }, (_event, file) => {
      // The runner is not part of the app: a change to it needs a restart.
      if (!String(file).startsWith('local')) changed();
    }),
    watch(join(projectRoot, 'openapi.yaml'), changed),
  ];
  log('watching functions/, infra/ and openapi.yaml for changes');
  return () => {
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
  };
};
