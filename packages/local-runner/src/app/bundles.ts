// A NodejsFunction's bundle rebuilt without a synth (`start --watch`), with the very command the synth built it with.
// aws-cdk-lib's local bundling (aws-lambda-nodejs/lib/bundling.ts) runs esbuild as `npx --no-install esbuild --bundle
// ENTRY ...` (esbuild installed in the project) with arguments made from the function's props, in the project's folder,
// writing to a folder of cdk.out it then renames `asset.<hash>`. The synth's capture (synth-capture.ts) notes that npx
// process: its arguments, folder and environment. Running it again, into another folder of cdk.out (the same depth, so
// that the source map's relative `sources` are the same), gives the bundle CDK would give, which is checked once after
// each synth: the command run again must give the asset's files byte for byte, or its function is left to the synth.
// esbuild's metafile names the files a bundle was built from: a save that touches those alone rebuilds it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { RunnerError } from '../errors.ts';
import { commandOutput } from './cloud-assembly.ts';
import type { SynthProcess } from './synth-capture.ts';

/** A command a synth ran, to run again as it ran it. */
export interface Replay {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface Bundle {
  /** The folder its functions' code is in now (an asset of the synth's, or a rebuild's). */
  assetDir: string;
  /** esbuild as the synth started it. */
  build: Replay;
  /** The folder the synth's esbuild wrote to (its `--outfile`'s): a rebuild writes to a new one instead. */
  outDir: string;
  /** The files it is built from (esbuild's metafile), absolute. */
  inputs: Set<string>;
}

/**
 * A function's code copied from a folder of the project as it is (`Code.fromAsset(folder)`, a Python function's): the
 * asset holds that folder's files, byte for byte.
 */
export interface Folder {
  /** The folder its functions' code is in now (an asset of the synth's, or a copy's). */
  assetDir: string;
  /** The project's folder it is a copy of. */
  source: string;
  /** The files of `source`, absolute: a save of one of them copies the folder again; one added or removed synthesizes. */
  inputs: Set<string>;
}

/** What the last synth did, as far as a rebuild needs it. */
export interface SynthRecord {
  /** The bundles known to rebuild as the synth built them. */
  bundles: Bundle[];
  /** The folders copied as they are. */
  folders: Folder[];
  /** The type checks the synth ran (tsc), run again before a rebuild: a synth fails on their errors. */
  checks: Replay[];
  /** The files the app loaded as modules: a change to one may change the template, and needs a synth. */
  appFiles: Set<string>;
}

const replayOf = ({ execPath, execArgv, argv, cwd, env }: SynthProcess): Replay => ({
  command: execPath,
  args: [...execArgv, ...argv.slice(1)],
  cwd,
  env,
});

const outfileOf = (args: string[]) => args.find((arg) => arg.startsWith('--outfile='))?.slice('--outfile='.length);

/** CDK's local bundling: `npx --no-install esbuild --bundle ENTRY ... --outfile=DIR/index.js`. */
const isEsbuild = ({ argv }: SynthProcess) => {
  const at = argv.findIndex((arg, index) => index > 1 && basename(arg) === 'esbuild');
  return at > 0 && argv.slice(at).includes('--bundle') && outfileOf(argv) !== undefined;
};

/** TypeScript's compiler (`npx tsc`, `tsc -p ...`): node running its `tsc` (node_modules/.bin/tsc, typescript/bin/tsc). */
const isTsc = ({ argv }: SynthProcess) => /(^|[/\\])tsc(\.js)?$/.test(argv[1] ?? '');

/** Runs `replay`; rejects with its output (RunnerError). */
const run = async ({ command, args, cwd, env }: Replay) => {
  try {
    await promisify(execFile)(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    throw new RunnerError(commandOutput(error));
  }
};

/** A new folder name in `cloudAssemblyDir` for a rebuild (`kind`: rebuild, or check). */
const freshDir = (cloudAssemblyDir: string, kind: string) =>
  join(cloudAssemblyDir, `local-runner-${kind}.${randomBytes(6).toString('hex')}`);

/** A metafile's inputs, absolute (files alone: esbuild names others `namespace:path`). */
const inputsOf = (metafile: string, cwd: string) => {
  const { inputs } = JSON.parse(readFileSync(metafile, 'utf8')) as { inputs: Record<string, unknown> };
  return new Set(
    Object.keys(inputs)
      .filter((key) => !/^[\w-]+:/.test(key))
      .map((key) => resolve(cwd, key)),
  );
};

/** `bundle`'s esbuild, run into `dir`: the files it read. */
const buildInto = async ({ build, outDir }: Pick<Bundle, 'build' | 'outDir'>, dir: string) => {
  const args = build.args.map((arg) => arg.split(outDir).join(dir));
  const given = args.find((arg) => arg.startsWith('--metafile='))?.slice('--metafile='.length);
  const metafile = given ?? `${dir}.meta.json`;
  try {
    await run({ ...build, args: given ? args : [...args, `--metafile=${metafile}`] });
    return inputsOf(resolve(build.cwd, metafile), build.cwd);
  } finally {
    if (!given) rmSync(metafile, { force: true });
  }
};

/** The files under `dir`, relative to it, sorted. */
const filesOf = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();

/**
 * Whether `built` holds the files of `assetDir`, byte for byte (a metafile CDK was asked for names the folder it was
 * written to, so it differs by that name alone: not compared).
 */
const sameFiles = (built: string, assetDir: string, metafileToo = false) => {
  const files = filesOf(built);
  if (files.join('\n') !== filesOf(assetDir).join('\n')) return false;
  return files
    .filter((file) => metafileToo || file !== 'index.meta.json')
    .every((file) => readFileSync(join(built, file)).equals(readFileSync(join(assetDir, file))));
};

/** A bundle the synth built with `process`, when running it again gives one of `assetDirs` exactly. */
const checkedBundle = async (process: SynthProcess, cloudAssemblyDir: string, assetDirs: string[]) => {
  const build = replayOf(process);
  const outDir = dirname(outfileOf(build.args) ?? '');
  if (dirname(resolve(build.cwd, outDir)) !== cloudAssemblyDir) return undefined;
  const dir = freshDir(cloudAssemblyDir, 'check');
  try {
    const inputs = await buildInto({ build, outDir }, dir);
    const assetDir = assetDirs.find((candidate) => existsSync(candidate) && sameFiles(dir, candidate));
    return assetDir === undefined ? undefined : { assetDir, build, outDir, inputs };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/**
 * The assets among `assetDirs` that are a copy of one of the folders holding `sources` (absolute files of the project),
 * file for file and byte for byte.
 */
const foldersOf = (assetDirs: string[], root: string, sources: string[]): Folder[] => {
  // A folder holding a source (the project's own root aside: its cdk.out is never a function's code).
  const candidates = [...new Set(sources.map((file) => dirname(file)))].filter((dir) => dir !== root);
  return assetDirs.flatMap((assetDir) => {
    if (!existsSync(assetDir)) return [];
    const count = filesOf(assetDir).length;
    const source = candidates.find((dir) => filesOf(dir).length === count && sameFiles(dir, assetDir, true));
    return source === undefined
      ? []
      : [{ assetDir, source, inputs: new Set(filesOf(source).map((file) => join(source, file))) }];
  });
};

/**
 * What the synth of `cloudAssemblyDir` noted (`processes`), checked against the Node.js functions' assets
 * (`nodeAssetDirs`), and every function's asset (`assetDirs`) against the folders of the project's (`root`) `sources`
 * (absolute); undefined when its processes could not note the modules they loaded (a Node.js before 22.15 ran them).
 */
export const recordOf = async (
  processes: SynthProcess[],
  cloudAssemblyDir: string,
  {
    nodeAssetDirs,
    assetDirs,
    root,
    sources,
  }: { nodeAssetDirs: string[]; assetDirs: string[]; root: string; sources: string[] },
): Promise<SynthRecord | undefined> => {
  if (processes.length === 0 || !processes.every(({ hooked }) => hooked)) return undefined;
  const bundles: Bundle[] = [];
  for (const process of processes.filter(isEsbuild)) {
    const bundle = await checkedBundle(process, cloudAssemblyDir, nodeAssetDirs);
    if (bundle) bundles.push(bundle);
  }
  const bundled = new Set(bundles.map(({ assetDir }) => assetDir));
  return {
    bundles,
    folders: foldersOf(
      assetDirs.filter((dir) => !bundled.has(dir)),
      root,
      sources,
    ),
    checks: processes.filter(isTsc).map(replayOf),
    appFiles: new Set(processes.flatMap(({ loaded }) => loaded)),
  };
};

/**
 * The bundles a change of `paths` (absolute) touches, when it touches bundles alone; else why it needs a synth. A
 * file the app loads, one no bundle is built from, or one removed, needs a synth.
 */
export const bundlesTouched = (
  record: SynthRecord,
  paths: string[],
): { bundles: Bundle[]; folders: Folder[] } | string => {
  const all = [...record.bundles, ...record.folders];
  for (const path of paths) {
    if (record.appFiles.has(path)) return `${path} is read by the app`;
    if (!existsSync(path)) return `${path} was removed`;
    if (!all.some(({ inputs }) => inputs.has(path))) return `no bundle known to be built from ${path}`;
  }
  const touched = <T extends { inputs: Set<string> }>(list: T[]) =>
    list.filter(({ inputs }) => paths.some((path) => inputs.has(path)));
  return { bundles: touched(record.bundles), folders: touched(record.folders) };
};

/**
 * Runs the synth's checks, then rebuilds `bundles` and copies `folders`, each into a new folder of `cloudAssemblyDir`:
 * the bundles and folders rebuilt, in that order (their new folders and inputs). Rejects with a check's or esbuild's output (RunnerError), nothing rebuilt.
 */
export const rebuild = async (
  record: SynthRecord,
  { bundles, folders }: { bundles: Bundle[]; folders: Folder[] },
  cloudAssemblyDir: string,
) => {
  for (const check of record.checks) await run(check);
  const dirs = [...bundles, ...folders].map(() => freshDir(cloudAssemblyDir, 'rebuild'));
  try {
    const built: (Bundle | Folder)[] = [];
    for (const [index, bundle] of bundles.entries()) {
      const dir = dirs[index] as string;
      built.push({ ...bundle, assetDir: dir, inputs: await buildInto(bundle, dir) });
    }
    // A folder is copied as the CDK stages it: every file of it, as it is.
    for (const [index, folder] of folders.entries()) {
      const dir = dirs[bundles.length + index] as string;
      cpSync(folder.source, dir, { recursive: true });
      built.push({ ...folder, assetDir: dir });
    }
    return built;
  } catch (error) {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
};
