// The synthesized app the runner serves: `cdk synth` into cdk.out, skipped when cdk.out is newer than every source.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const projectRoot = new URL('../../../', import.meta.url).pathname;
export const defaultCloudAssembly = join(projectRoot, 'cdk.out');

/** What a synth reads: when none of it changed since the last synth, cdk.out is up to date. */
const sources = ['infra', 'functions', 'openapi.yaml', 'cdk.json', 'package-lock.json'];
/** The runner itself is not part of the app. */
const notSource = 'infra/local';

/** Whether `cloudAssemblyDir` was synthesized after the last change to anything a synth of `root` reads. */
export const isUpToDate = (cloudAssemblyDir: string, root = projectRoot) => {
  const newestChange = (path: string): number => {
    if (!existsSync(path) || path === join(root, notSource)) return 0;
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
  };
  const manifest = join(cloudAssemblyDir, 'manifest.json');
  if (!existsSync(manifest)) return false;
  const synthesized = statSync(manifest).mtimeMs;
  return sources.every((source) => newestChange(join(root, source)) <= synthesized);
};

/** Runs `cdk synth` (offline, with cdk-nag) unless cdk.out is up to date; its output goes to stderr. */
export const ensureSynthesized = (log: (line: string) => void) => {
  if (isUpToDate(defaultCloudAssembly)) {
    log('cdk.out is up to date');
    return defaultCloudAssembly;
  }
  log('Synthesizing the app (cdk synth)...');
  const synth = spawnSync(join(projectRoot, 'node_modules/.bin/cdk'), ['synth', '--quiet'], {
    cwd: projectRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (synth.status !== 0) throw new Error(`cdk synth failed (exit ${synth.status ?? synth.signal})`);
  return defaultCloudAssembly;
};

/** `cdk synth` into `outputDir`, without blocking (the runner goes on serving); rejects with cdk's own output. */
export const synthesize = async (outputDir: string) => {
  try {
    await promisify(execFile)(join(projectRoot, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--output', outputDir], {
      cwd: projectRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new Error(`${stderr}${stdout}`.trim() || (error as Error).message);
  }
};
