// `cdk-local-runner start --watch`: a new synth whenever the app's sources change, served without a restart: the
// database, the issuer, the address and the token stay. A change that does not synthesize leaves the previous version
// serving, and its error is printed. Each synth goes to the project's cdk.out, as the first start's did: no folder of
// the runner's to remove, however it stops.
import { relative } from 'node:path';
import { subscribe } from '@parcel/watcher';
import { type AppProject, isSource, resynthesize } from '../app/cloud-assembly.ts';
import type { Runner } from '../runner.ts';

/** Editors write a file in several steps: a synth starts once the changes have paused this long. */
const settleMs = 300;

export const reloadOnChange = (api: Runner, project: AppProject, log: (line: string) => void) => {
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
      // A reload that cannot serve the new version (its APIs changed) says so itself, and the previous one serves.
      if (await api.reload(await resynthesize(project)))
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

  // One subscription over the project's root, filtered by isSource: @parcel/watcher (the watcher of VS Code and
  // Parcel) rather than Node's recursive fs.watch, which on Linux (Node 24) misses every in-place write to a file once
  // the file was replaced by a rename (`sed -i`, an editor's atomic save): test/cli/watch.e2e.test.ts.
  const subscribed = subscribe(
    project.root,
    (error, events) => {
      if (error) log(`watching failed: ${error.message}`);
      else if (events.some(({ path }) => isSource(project, relative(project.root, path)))) changed();
    },
    { ignore: ['node_modules', 'cdk.out', '.git'] },
  );
  // Said once the subscription holds: a change made after this line is seen.
  void subscribed.then(
    () => log(`watching ${project.include.join(', ')} for changes (cdk.json's watch.include)`),
    (error: Error) => log(`watching failed, changes will not reload: ${error.message}`),
  );
  return () => {
    clearTimeout(timer);
    void subscribed.then(
      (subscription) => subscription.unsubscribe(),
      () => undefined, // said when it failed
    );
  };
};
