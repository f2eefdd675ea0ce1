// `cdk-local-runner start --watch`: each change to the app's sources served without a restart: the database, the
// issuer, the address and the token stay. A change to the files a NodejsFunction's bundle is built from, and to nothing
// else, rebuilds that bundle alone, with the command the last synth built it with (app/bundles.ts); any other change
// synthesizes again. A change that does not build leaves the previous version serving, and its error is printed. Each
// synth goes to the project's cdk.out, as the first start's did. One reload runs at a time: changes made meanwhile are
// picked up by one more after it.
import { existsSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type Event, subscribe } from '@parcel/watcher';
import { type Bundle, bundlesTouched, type Folder, rebuild, recordOf, type SynthRecord } from '../app/bundles.ts';
import { type AppProject, isSource, resynthesize, sourcesOf } from '../app/cloud-assembly.ts';
import { captureSynth, type SynthCapture } from '../app/synth-capture.ts';
import type { Runner } from '../runner.ts';

type Log = (line: string) => void;

/** Editors write a file in several steps: a reload starts once the changes have paused this long. */
const settleMs = 300;

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(2)} s`;

/** The served functions. */
const functionsOf = (api: Runner) => api.apis.flatMap(({ app }) => [...app.functions.values()]);

/** What a synth's record is checked against: the served functions' code folders, and the project's sources. */
const assetsOf = (api: Runner, project: AppProject) => {
  const functions = functionsOf(api);
  const foldersOf = (list: typeof functions) => [...new Set(list.map(({ assetDir }) => assetDir))];
  return {
    nodeAssetDirs: foldersOf(functions.filter(({ code }) => code.language === 'nodejs')),
    assetDirs: foldersOf(functions),
    root: project.root,
    sources: sourcesOf(project).map((path) => join(project.root, path)),
  };
};

/** What the watch loop knows between reloads: the last synth's record, and the folders its rebuilds wrote. */
interface Known {
  record: SynthRecord | undefined;
  rebuilt: string[];
}

/** Learns from `capture` (a synth just served) which functions' code rebuilds alone, and says which. */
const learn = async (api: Runner, project: AppProject, capture: SynthCapture, log: Log) => {
  try {
    const record = await recordOf(capture.read(), join(project.root, 'cdk.out'), assetsOf(api, project));
    const known = new Set([...(record?.bundles ?? []), ...(record?.folders ?? [])].map(({ assetDir }) => assetDir));
    const alone = functionsOf(api)
      .filter(({ assetDir }) => known.has(assetDir))
      .map(({ id }) => id);
    if (record === undefined)
      log('a change to a function synthesizes: the synth ran on a Node.js before 22.15, which cannot say what it read');
    else if (alone.length > 0)
      log(`a change to the code of ${[...new Set(alone)].join(', ')} alone rebuilds its bundle, without a synth`);
    return record;
  } finally {
    capture.close();
  }
};

/**
 * cdk.out was up to date at the start, so no synth said how its bundles are built: one synth in the background, as
 * `cdk watch` synthesizes at its start, whose record is checked against the bundles served (the same sources give the
 * same files); its assembly is not served, the one served being of the same sources.
 */
const learnBySynth = async (api: Runner, project: AppProject, log: Log) => {
  const started = performance.now();
  log(
    "cdk.out was up to date: synthesizing once in the background, as `cdk watch` does at its start, to learn how each function's code is built...",
  );
  const capture = captureSynth();
  try {
    await resynthesize(project, capture.env);
    log(`synthesized in ${seconds(started)}`);
    return await learn(api, project, capture, log);
  } catch (error) {
    log(`that synth failed, so a change synthesizes:\n${(error as Error).message}`);
    return undefined;
  } finally {
    capture.close();
  }
};

/** A synth, served: the record of what it did, or undefined (unknown: the next change synthesizes again). */
const synthReload = async (api: Runner, project: AppProject, why: string, log: Log) => {
  const started = performance.now();
  log(`change seen: synthesizing (${why})...`);
  const capture = captureSynth();
  try {
    const cloudAssemblyDir = await resynthesize(project, capture.env);
    // A reload that cannot serve the new version (its APIs changed) says so itself, and the previous one serves.
    if (!(await api.reload(cloudAssemblyDir))) return undefined;
    log(`serving the new version (synthesized in ${seconds(started)}; the database and its items are kept)`);
    return await learn(api, project, capture, log);
  } catch (error) {
    log(`the change does not synthesize; still serving the previous version:\n${(error as Error).message}`);
    return undefined;
  } finally {
    capture.close();
  }
};

/** The bundles and folders `touched` rebuilt without a synth, served: the record with their new folders. */
const rebuildReload = async (
  api: Runner,
  known: Known & { record: SynthRecord },
  touched: { bundles: Bundle[]; folders: Folder[] },
  cloudAssemblyDir: string,
  log: Log,
) => {
  const started = performance.now();
  log("change seen in functions' code alone: rebuilding it as the synth built it (no synth)...");
  try {
    const built = await rebuild(known.record, touched, cloudAssemblyDir);
    known.rebuilt.push(...built.map(({ assetDir }) => assetDir));
    const before: (Bundle | Folder)[] = [...touched.bundles, ...touched.folders];
    const names = api.replaceCode(new Map(before.map((old, index) => [old.assetDir, built[index]?.assetDir ?? ''])));
    const how = touched.folders.length > 0 ? 'code copied from its folder' : 'bundle rebuilt';
    log(`serving the new version of ${names.join(', ')} (${how} without a synth in ${seconds(started)})`);
    const now = <T extends Bundle | Folder>(item: T) => (built[before.indexOf(item)] as T | undefined) ?? item;
    return { ...known.record, bundles: known.record.bundles.map(now), folders: known.record.folders.map(now) };
  } catch (error) {
    log(
      `the change does not synthesize; still serving the previous version (found rebuilding the bundles alone, as the synth would):\n${(error as Error).message}`,
    );
    return known.record;
  }
};

/**
 * The paths of `events` whose change stands (in the order seen): a file created and removed again since the last
 * reload (an editor's temporary file) changed nothing.
 */
const standing = (firstEvents: Map<string, Event['type']>) =>
  [...firstEvents].filter(([path, type]) => type !== 'create' || existsSync(path)).map(([path]) => path);

/** One reload for a change of `paths`: its bundles rebuilt alone when it touches them alone, else a synth. */
const reloadFor = async (paths: string[], api: Runner, project: AppProject, known: Known, log: Log) => {
  const touched = known.record ? bundlesTouched(known.record, paths) : 'no bundle known to rebuild alone yet';
  if (typeof touched === 'string' || !known.record) return synthReload(api, project, String(touched), log);
  const cloudAssemblyDir = join(project.root, 'cdk.out');
  return rebuildReload(api, { ...known, record: known.record }, touched, cloudAssemblyDir, log);
};

/**
 * One subscription over the project's root, its events filtered by isSource: @parcel/watcher (the watcher of VS Code
 * and Parcel) rather than Node's recursive fs.watch, which on Linux (Node 24) misses every in-place write to a file once
 * the file was replaced by a rename (`sed -i`, an editor's atomic save): test/cli/watch.e2e.test.ts.
 */
const subscribeToSources = (project: AppProject, changed: (events: Event[]) => void, log: Log) =>
  subscribe(
    project.root,
    (error, events) => {
      if (error) log(`watching failed: ${error.message}`);
      else changed(events.filter(({ path }) => isSource(project, relative(project.root, path))));
    },
    { ignore: ['node_modules', 'cdk.out', '.git'] },
  );

/**
 * The start's synth, when it ran one, says which functions' code rebuilds alone (resolved once known); else one synth
 * in the background does, run by `exclusive` as a reload is (resolved at once: changes meanwhile wait for it).
 */
const learnFirst = (
  api: Runner,
  project: AppProject,
  firstSynth: SynthCapture,
  known: Known,
  exclusive: (work: () => Promise<void>) => Promise<void>,
  log: Log,
) => {
  if (firstSynth.read().length > 0)
    return learn(api, project, firstSynth, log).then((record) => {
      known.record ??= record;
    });
  firstSynth.close();
  void exclusive(async () => {
    known.record = await learnBySynth(api, project, log);
  });
  return Promise.resolve();
};

/**
 * Reloads `api` on each change to `project`'s sources until the returned function is called. `firstSynth`: the capture
 * the start's synth ran with (empty when cdk.out was up to date).
 */
export const reloadOnChange = (api: Runner, project: AppProject, log: Log, firstSynth: SynthCapture) => {
  const known: Known = { record: undefined, rebuilt: [] };
  /** Each source changed since the last reload began, with its first event's kind. */
  const changes = new Map<string, Event['type']>();
  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> | undefined;
  let changedMeanwhile = false;

  const reloadOnce = async () => {
    const paths = standing(changes);
    changes.clear();
    if (paths.length > 0) known.record = await reloadFor(paths, api, project, known, log);
  };
  /** Runs `work` unless a reload runs: then one more reload follows it, however many changes came meanwhile. */
  const exclusive = async (work: () => Promise<void>) => {
    if (reloading) {
      changedMeanwhile = true;
      return;
    }
    reloading = work();
    await reloading;
    reloading = undefined;
    if (changedMeanwhile) {
      changedMeanwhile = false;
      void exclusive(reloadOnce);
    }
  };
  const reload = () => exclusive(reloadOnce);
  const changed = (events: Event[]) => {
    if (events.length === 0) return;
    for (const { path, type } of events) if (!changes.has(path)) changes.set(path, type);
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), settleMs);
  };

  const learning = learnFirst(api, project, firstSynth, known, exclusive, log);
  const subscribed = subscribeToSources(project, changed, log);
  // Said once the subscription holds (and the first synth's bundles are known): a change made after this line is seen.
  void Promise.all([subscribed, learning]).then(
    () => log(`watching ${project.include.join(', ')} for changes (cdk.json's watch.include)`),
    (error: Error) => log(`watching failed, changes will not reload: ${error.message}`),
  );
  return () => {
    clearTimeout(timer);
    for (const dir of known.rebuilt) rmSync(dir, { recursive: true, force: true });
    void subscribed.then(
      (subscription) => subscription.unsubscribe(),
      () => undefined, // said when it failed
    );
  };
};
