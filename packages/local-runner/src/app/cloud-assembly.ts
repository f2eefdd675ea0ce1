// The synthesized app the runner serves: `cdk synth` into cdk.out, skipped when cdk.out is newer than every source.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, globSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { promisify } from 'node:util';
import { RunnerError } from '../errors.ts';

/**
 * A CDK project: its folder (where cdk.json is), and its sources: what a synth reads, as globs relative to `root`. They
 * are cdk.json's `watch` setting, the one `cdk watch` reads (https://docs.aws.amazon.com/cdk/v2/guide/ref-cli-cmd-watch.html).
 */
export interface AppProject {
  root: string;
  include: string[];
  exclude: string[];
  /** Context values given to each synth (`cdk synth -c name=value`), over cdk.json's. */
  context?: Record<string, string>;
}

/**
 * Never sources, whatever cdk.json says, as `cdk watch` treats them: the output, dependencies and dotfiles
 * (aws-cdk-cli's watch excludes node_modules and dotfiles by default).
 */
const neverSources = ['cdk.out', '**/node_modules', '**/.*'];
/** Always sources, though a cdk.json's `watch.exclude` usually names them (a deploy reads them; a synth does too). */
const alwaysSources = ['cdk.json', 'package-lock.json'];

const asList = (value: unknown, name: string): string[] | undefined => {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (Array.isArray(list) && list.every((item) => typeof item === 'string')) return list;
  throw new RunnerError(`cdk.json: watch.${name} must be a string or a list of strings`);
};

/** The CDK project in `root`, its sources read from its cdk.json (every file under `root` when it has no `watch`). */
export const appProjectAt = (root: string): AppProject => {
  const cdkJson = join(root, 'cdk.json');
  if (!existsSync(cdkJson))
    throw new RunnerError(`no cdk.json in ${root}: run this in a CDK project, or give --app DIR`);
  const { watch = {} } = JSON.parse(readFileSync(cdkJson, 'utf8')) as {
    watch?: { include?: unknown; exclude?: unknown };
  };
  return {
    root,
    include: asList(watch.include, 'include') ?? ['**'],
    exclude: asList(watch.exclude, 'exclude') ?? [],
  };
};

/**
 * Whether `path` (relative to the project's root) is one of its sources. A folder is when a file in it could be (`lib`
 * for `lib/**`): its time is its last entry added, removed or renamed, so a deleted source counts as a change of it.
 */
export const isSource = ({ include, exclude }: AppProject, path: string) =>
  alwaysSources.includes(path) ||
  (path !== '.' &&
    include.some((glob) => matchesGlob(path, glob) || matchesGlob(`${path}/`, glob)) &&
    ![...exclude, ...neverSources].some((glob) => matchesGlob(path, glob) || matchesGlob(path, `${glob}/**`)));

/** The project's sources, relative to its root (node_modules unread: with `**`, it would be most of the walk). */
export const sourcesOf = (project: AppProject) =>
  globSync([...project.include, ...alwaysSources], { cwd: project.root, exclude: neverSources }).filter((path) =>
    isSource(project, path),
  );

const cloudAssemblyOf = ({ root }: AppProject) => join(root, 'cdk.out');
const cdkOf = ({ root }: AppProject) => join(root, 'node_modules/.bin/cdk');
const synthArgs = ({ context = {} }: AppProject) => [
  'synth',
  '--quiet',
  ...Object.entries(context).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/**
 * The context values the runner gave the synth of `cloudAssemblyDir`, noted beside its manifest; none when another
 * synth (a user's `cdk synth`) wrote the manifest after the note.
 */
const contextFile = (cloudAssemblyDir: string) => join(cloudAssemblyDir, 'local-runner-context.json');
const noteContext = (cloudAssemblyDir: string, { context = {} }: AppProject) =>
  writeFileSync(contextFile(cloudAssemblyDir), JSON.stringify(context));
const synthesizedContext = (cloudAssemblyDir: string): string => {
  const file = contextFile(cloudAssemblyDir);
  const manifest = join(cloudAssemblyDir, 'manifest.json');
  if (!existsSync(file) || statSync(manifest).mtimeMs > statSync(file).mtimeMs) return '{}';
  return readFileSync(file, 'utf8');
};

/**
 * Whether `cloudAssemblyDir` was synthesized, with the project's context values, after the last change to anything a
 * synth of `project` reads.
 */
export const isUpToDate = (cloudAssemblyDir: string, project: AppProject) => {
  const { root, context = {} } = project;
  const manifest = join(cloudAssemblyDir, 'manifest.json');
  if (!existsSync(manifest)) return false;
  const synthesized = statSync(manifest).mtimeMs;
  if (synthesizedContext(cloudAssemblyDir) !== JSON.stringify(context)) return false;
  return sourcesOf(project).every((source) => statSync(join(root, source)).mtimeMs <= synthesized);
};

/**
 * Runs `cdk synth` (offline, with cdk-nag) unless cdk.out is up to date. Its output, both streams (an app's `npx tsc`
 * writes its errors to stdout), goes to stderr as it comes: a command's stdout is its own (invoke's result). `env`: the
 * synth's environment (a capture's, synth-capture.ts, for `start --watch`).
 */
export const ensureSynthesized = (
  project: AppProject,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
) => {
  const cloudAssemblyDir = cloudAssemblyOf(project);
  if (isUpToDate(cloudAssemblyDir, project)) {
    log('cdk.out is up to date');
    return cloudAssemblyDir;
  }
  log('Synthesizing the app (cdk synth)...');
  const synth = spawnSync(cdkOf(project), synthArgs(project), {
    cwd: project.root,
    env,
    stdio: ['ignore', process.stderr.fd, 'inherit'],
  });
  if (synth.status !== 0)
    throw new RunnerError(`cdk synth failed (exit ${synth.status ?? synth.signal}): its output is above`);
  noteContext(cloudAssemblyDir, project);
  return cloudAssemblyDir;
};

/**
 * How much of a failed synth's output a reload prints: its last lines, where cdk and tsc end with what failed, each cut
 * short past `shownWidth` (a stack trace through minified code shows a whole bundle's line).
 */
const shownLines = 40;
const shownWidth = 300;

/** `output`'s last `shownLines` lines, each at most `shownWidth` long, and how many came before them. */
const lastLines = (output: string) => {
  const lines = output
    .split('\n')
    .map((line) => (line.length > shownWidth ? `${line.slice(0, shownWidth)}... (${line.length} characters)` : line));
  const before = lines.length - shownLines;
  return (before > 0 ? [`(${before} lines before these)`, ...lines.slice(before)] : lines).join('\n');
};

/**
 * `cdk synth` into `outputDir`, without blocking (the runner goes on serving); rejects with cdk's own output, both
 * streams (stdout first: an app's `npx tsc` writes its errors there), trimmed to their last lines.
 */
export const synthesize = async (project: AppProject, outputDir: string, env: NodeJS.ProcessEnv = process.env) => {
  try {
    await promisify(execFile)(cdkOf(project), [...synthArgs(project), '--output', outputDir], {
      cwd: project.root,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    throw new RunnerError(commandOutput(error));
  }
};

/**
 * What a command that failed (execFile's error) wrote: both streams (stdout first: an app's `npx tsc` writes its
 * errors there), trimmed to their last lines; its error's message when it wrote nothing.
 */
export const commandOutput = (error: unknown) => {
  const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
  const output = [stdout.trimEnd(), stderr.trimEnd()].filter((text) => text !== '').join('\n');
  return output === '' ? (error as Error).message : lastLines(output);
};

/**
 * `cdk synth` into the project's cdk.out, as `cdk watch` does (`start --watch`), without blocking; resolves with the
 * folder. The bundles stay where the first start found them, beside the project's node_modules, so a function resolves
 * what it leaves out of its bundle (the runtime's SDK) as it did then; the CDK removes no asset folder of an earlier
 * synth (aws/aws-cdk issue 2869), so the bundles a reload replaces stay in place while they finish.
 */
export const resynthesize = async (project: AppProject, env: NodeJS.ProcessEnv = process.env) => {
  const cloudAssemblyDir = cloudAssemblyOf(project);
  await synthesize(project, cloudAssemblyDir, env);
  noteContext(cloudAssemblyDir, project);
  return cloudAssemblyDir;
};
