// `cdk-local-runner start --watch`: a new synth whenever the app's sources change, served without a restart: the
// database, the issuer, the address and the token stay. A change that does not synthesize leaves the previous version
// serving, and its error is printed. Each synth goes to the project's cdk.out, as the first start's did: no folder of
// the runner's to remove, however it stops.
import { existsSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { type AppProject, alwaysSources, isSource, resynthesize } from '../app/cloud-assembly.ts';
import type { LocalApi } from '../local-api.ts';

/** Editors write a file in several steps: a synth starts once the changes have paused this long. */
const settleMs = 300;

/** What a glob is watched from: itself when it has no wildcard, else its folder before the first (`infra/**`: infra). */
const watchedPath = (glob: string) => {
  const parts = glob.split('/');
  const wild = parts.findIndex((part) => /[*?[{]/.test(part));
  return wild === -1 ? glob : parts.slice(0, wild).join('/') || '.';
};

export const reloadOnChange = (api: LocalApi, project: AppProject, log: (line: string) => void) => {
  let timer: NodeJS.Timeout | undefined;
  let synthesizing = false;
  let changedMeanwhile = false;

  const rebuild = async () => {
    if (synthesizing) {
      changedMeanwhile = true;
      return;
    }
    synthesizing = true;
    try {
      log('change seen: synthesizing...');
      await api.reload(await resynthesize(project));
      log('serving the new version (the database and its items are kept)');
    } catch (error) {
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

  const watchers = [...new Set([...project.include, ...alwaysSources].map(watchedPath))]
    .filter((path) => existsSync(join(project.root, path)))
    .map((path) => {
      const isFolder = statSync(join(project.root, path)).isDirectory();
      return watch(join(project.root, path), { recursive: true }, (_event, file) => {
        const changedPath = isFolder && file ? join(path, String(file)) : path;
        if (isSource(project, changedPath)) changed();
      });
    });
  log(`watching ${project.include.join(', ')} for changes (cdk.json's watch.include)`);
  return () => {
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
  };
};
