// The synthesized app the runner serves: `cdk synth` into cdk.out, skipped when cdk.out is newer than every source.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RunnerError } from '../errors.ts';

/** A CDK project: its folder (where cdk.json is), what a synth reads, and what under those it does not. */
export interface AppProject {
  root: string;
  /** Files and folders, relative to `root`. */
  sources: string[];
  notSources: string[];
  /** Context values given to each synth (`cdk synth -c name=value`), over cdk.json's. */
  context?: Record<string, string>;
}

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
  const { root, sources, notSources, context = {} } = project;
  const excluded = new Set(notSources.map((path) => join(root, path)));
  const newestChange = (path: string): number => {
    if (!existsSync(path) || excluded.has(path)) return 0;
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
  };
  const manifest = join(cloudAssemblyDir, 'manifest.json');
  if (!existsSync(manifest)) return false;
  const synthesized = statSync(manifest).mtimeMs;
  if (synthesizedContext(cloudAssemblyDir) !== JSON.stringify(context)) return false;
  return sources.every((source) => newestChange(join(root, source)) <= synthesized);
};

/** Runs `cdk synth` (offline, with cdk-nag) unless cdk.out is up to date; its output goes to stderr. */
export const ensureSynthesized = (project: AppProject, log: (line: string) => void) => {
  const cloudAssemblyDir = cloudAssemblyOf(project);
  if (isUpToDate(cloudAssemblyDir, project)) {
    log('cdk.out is up to date');
    return cloudAssemblyDir;
  }
  log('Synthesizing the app (cdk synth)...');
  const synth = spawnSync(cdkOf(project), synthArgs(project), {
    cwd: project.root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (synth.status !== 0) throw new RunnerError(`cdk synth failed (exit ${synth.status ?? synth.signal})`);
  writeFileSync(contextFile(cloudAssemblyDir), JSON.stringify(project.context ?? {}));
  return cloudAssemblyDir;
};

/** `cdk synth` into `outputDir`, without blocking (the runner goes on serving); rejects with cdk's own output. */
export const synthesize = async (project: AppProject, outputDir: string) => {
  try {
    await promisify(execFile)(cdkOf(project), [...synthArgs(project), '--output', outputDir], {
      cwd: project.root,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new RunnerError(`${stderr}${stdout}`.trim() || (error as Error).message);
  }
};
