// `npm run dev`: npm start, plus a new synth whenever the app's sources change, served without a restart: the
// database, the issuer, the address and the token stay. A change that does not synthesize leaves the previous version
// serving, and its error is printed.
import { existsSync, watch } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProject, synthesize } from '../app/cloud-assembly.ts';
import type { LocalApi } from '../local-api.ts';

/** Editors write a file in several steps: a synth starts once the changes have paused this long. */
const settleMs = 300;

export const reloadOnChange = (api: LocalApi, project: AppProject, log: (line: string) => void) => {
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
    const outputDir = await mkdtemp(join(tmpdir(), 'local-runner-dev-'));
    try {
      log('change seen: synthesizing...');
      await synthesize(project, outputDir);
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

  // A change under one of the project's notSources (the runner itself) is not a change of the app: it needs a restart.
  const isAppSource = (path: string) =>
    !project.notSources.some((excluded) => `${path}/`.startsWith(`${join(project.root, excluded)}/`));
  const sources = project.sources.filter((source) => existsSync(join(project.root, source)));
  const watchers = sources.map((source) => {
    const path = join(project.root, source);
    return watch(path, { recursive: true }, (_event, file) => {
      if (isAppSource(file ? join(path, String(file)) : path)) changed();
    });
  });
  log(`watching ${sources.join(', ')} for changes`);
  return () => {
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
  };
};
