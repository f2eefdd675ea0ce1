// The runner as a stranger installs it: the package packed (`npm pack`, which builds it: package.json's `prepack`) once
// per run, and a project of the stranger's own outside this repository that installs the tarball, offline, from npm's
// cache, which `npm ci` of the repository filled, at the exact versions the repository's package-lock.json holds (a
// lockfile written for the project from it: npm's cache holds the tarballs `npm ci` fetched, not the registry's
// metadata a resolution would read). Then the runner's commands as the stranger runs them there: `npx
// cdk-local-runner ...`, each in a process group of its own (test-support/launched).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Launched, launch, launchedUntil } from 'test-support/launched';
import { signalGroup, spawnInGroup } from 'test-support/process-group';
import { oncePerRun } from './once-per-run.ts';

export type { Launched } from 'test-support/launched';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
export const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};

interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/** The repository's package-lock.json: the nearest above this package. */
const repositoryLock = () => {
  for (let dir = dirname(packageDir); ; dir = dirname(dir)) {
    const file = join(dir, 'package-lock.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { packages: Record<string, LockEntry> };
    if (dir === dirname(dir)) throw new Error(`no package-lock.json above ${packageDir}`);
  }
};

/**
 * The lock entries the project needs: `wanted` (name to the path of the package that needs it, in the repository's
 * lock) and, transitively, what each needs, found as Node finds a package (its own node_modules, then each one above).
 * The runner's own (packages/local-runner/node_modules/...) land under the installed runner's folder.
 */
const projectLock = (packages: Record<string, LockEntry>, runnerPath: string, wanted: [string, string][]) => {
  const found = new Map<string, LockEntry>();
  const resolve = (name: string, from: string): string | undefined => {
    for (let dir = from; ; ) {
      const path = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (packages[path] !== undefined) return path;
      if (dir === '') return undefined;
      const parent = dir.lastIndexOf('/node_modules/');
      dir = parent === -1 ? '' : dir.slice(0, parent);
    }
  };
  const visit = (name: string, from: string, optional: boolean) => {
    const path = resolve(name, from);
    if (path === undefined) {
      if (optional) return;
      throw new Error(`the repository's lock has no ${name} for ${from || 'its root'}`);
    }
    if (found.has(path)) return;
    const entry = packages[path] as LockEntry;
    found.set(path, entry);
    for (const dependency of Object.keys({ ...entry.dependencies })) visit(dependency, path, false);
    for (const dependency of Object.keys({ ...entry.optionalDependencies })) visit(dependency, path, true);
    for (const dependency of Object.keys({ ...entry.peerDependencies }))
      visit(dependency, path, entry.peerDependenciesMeta?.[dependency]?.optional === true);
  };
  for (const [name, from] of wanted) visit(name, from, false);
  const lock: Record<string, LockEntry> = {};
  for (const [path, { dev, devOptional, peer, ...entry }] of found) {
    const installedPath = path.startsWith(`${runnerPath}/`)
      ? `node_modules/${manifest.name}${path.slice(runnerPath.length)}`
      : path;
    lock[installedPath] = entry;
  }
  return lock;
};

/** The environment of the npm and runner processes: no npm settings of this run's own npm, nothing off the machine. */
export const offlineEnvironment = (nodeBin: string = dirname(process.execPath)) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))),
  PATH: `${nodeBin}:${process.env.PATH}`,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
});

/** The packed tarball (a copy of this run's one, in a temporary folder of its own) and the files it holds. */
export interface Packed {
  tarball: string;
  files: string[];
}

/**
 * The package packed once per run (once-per-run.ts). It is packed from a copy of its files (`prepack` builds it there,
 * with the repository's TypeScript): a build beside the tests that run from this package's dist/ would rewrite it
 * under them.
 */
export const packedRunner = (): Packed => {
  const folder = oncePerRun('packed-runner', () => {
    const root = mkdtempSync(join(tmpdir(), 'local-runner-pack-'));
    const copy = join(root, 'package');
    cpSync(packageDir, copy, {
      recursive: true,
      filter: (path) => !/^\/(node_modules|dist|test)$/.test(path.slice(packageDir.length - 1)),
    });
    const repositoryModules = dirname(dirname(fileURLToPath(import.meta.resolve('typescript/package.json'))));
    symlinkSync(repositoryModules, join(copy, 'node_modules'));
    const out = join(root, 'packed');
    mkdirSync(out);
    const [result] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
        cwd: copy,
        env: offlineEnvironment(),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as [{ filename: string; files: { path: string }[] }];
    writeFileSync(join(out, 'files.json'), JSON.stringify(result.files.map(({ path }) => path)));
    return out;
  });
  const tarball = readdirSync(folder).find((name) => name.endsWith('.tgz')) ?? '';
  return {
    tarball: join(folder, tarball),
    files: JSON.parse(readFileSync(join(folder, 'files.json'), 'utf8')) as string[],
  };
};

/** `file` of the tarball (`package/<file>`), as text. */
export const fileInTarball = (tarball: string, file: string) =>
  execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' });

/** A project the stranger made, with the runner installed in it. */
export interface PackedProject {
  /** Its folder (where cdk.json is). */
  dir: string;
  /** The environment its commands run in (offlineEnvironment). */
  env: NodeJS.ProcessEnv;
  /** What `npm install` of the project printed. */
  installOutput: string;
  /** Writes `text` to `path` (relative to the project), its folders made. */
  write: (path: string, text: string) => void;
  read: (path: string) => string;
}

/**
 * A project in `root` (a temporary folder the caller removes) named `name`, of `files` (path to text), whose
 * package.json has `dependencies` and `devDependencies` (names, at the repository lock's versions) and the runner's
 * tarball, installed offline. `type`: the package.json's, when given.
 */
export const installProject = (
  root: string,
  {
    name,
    files,
    dependencies,
    devDependencies,
    type,
  }: { name: string; files: Record<string, string>; dependencies: string[]; devDependencies: string[]; type?: string },
): PackedProject => {
  const packed = packedRunner();
  const { packages } = repositoryLock();
  const versionsOf = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, packages[`node_modules/${name}`]?.version ?? '']));
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const tarballName = packed.tarball.split('/').pop() ?? '';
  cpSync(packed.tarball, join(root, tarballName));
  const tarball = `file:../${tarballName}`;
  const projectManifest = {
    name,
    version: '0.1.0',
    ...(type && { type }),
    // swagger-ui-dist's @scarf/scarf would report the install over the network.
    scarfSettings: { enabled: false },
    dependencies: versionsOf(dependencies),
    devDependencies: { ...versionsOf(devDependencies), [manifest.name]: tarball },
  };
  const runnerLockPath = Object.entries(packages).find(([, entry]) => entry.name === manifest.name)?.[0] ?? '';
  const lock = {
    name,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': {
        name,
        dependencies: projectManifest.dependencies,
        devDependencies: projectManifest.devDependencies,
      },
      ...projectLock(packages, runnerLockPath, [
        ...[...dependencies, ...devDependencies].map((name): [string, string] => [name, '']),
        ...Object.keys(manifest.dependencies).map((name): [string, string] => [name, runnerLockPath]),
      ]),
      [`node_modules/${manifest.name}`]: {
        version: manifest.version,
        resolved: tarball,
        dependencies: manifest.dependencies,
        bin: manifest.bin,
      },
    },
  };
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', JSON.stringify(projectManifest, null, 2));
  write('package-lock.json', JSON.stringify(lock, null, 2));
  for (const [path, text] of Object.entries(files)) write(path, text);
  const env = offlineEnvironment();
  const install = spawnSync('npm', ['install'], { cwd: dir, env, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`npm install failed:\n${install.stdout}${install.stderr}`);
  return {
    dir,
    env,
    installOutput: `${install.stdout}${install.stderr}`,
    write,
    read: (path) => readFileSync(join(dir, path), 'utf8'),
  };
};

/** `npx cdk-local-runner <args>` in the project, in a process group of its own: read its output as it comes. */
export const runInProject = (project: PackedProject, args: string[]): Launched =>
  launch(['npx', 'cdk-local-runner', ...args], { cwd: project.dir, env: project.env });

/** What `start` prints once it serves: its first API's address. */
const serving = /is serving at (http:\/\/127\.0\.0\.1:\d+)/;

/**
 * `npx cdk-local-runner start --port 0 --in-memory <args>` in the project; resolves once it prints `until` (by default
 * its address), with its first API's URL.
 */
export const startInProject = async (
  project: PackedProject,
  args: string[] = [],
  until: RegExp = serving,
): Promise<Launched & { url: string }> => {
  const launched = runInProject(project, ['start', '--port', '0', '--in-memory', ...args]);
  const output = await launchedUntil(launched, until);
  return { ...launched, url: serving.exec(output)?.[1] ?? '' };
};

/** Resolves once what `launched` printed after `from` (an offset in its output) matches `pattern`. */
export const printedSince = (launched: Launched, from: number, pattern: RegExp) =>
  launched.printed({ test: (output: string) => pattern.test(output.slice(from)) });

/**
 * `npx cdk-local-runner <args>` in the project (`env`: its environment), run to its end, in a
 * process group of its own: its exit code, and
 * what it wrote to stdout and to stderr.
 */
export const runToEnd = async (project: PackedProject, env: NodeJS.ProcessEnv, args: string[]) => {
  const child = spawnInGroup('npx', ['cdk-local-runner', ...args], {
    cwd: project.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const read = (stream: Readable | null) =>
    new Promise<string>((resolve) => {
      let text = '';
      stream?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      stream?.once('close', () => resolve(text));
    });
  const [code, stdout, stderr] = await Promise.all([
    new Promise<number | null>((resolve) => child.once('exit', resolve)),
    read(child.stdout),
    read(child.stderr),
  ]);
  return { code, stdout, stderr };
};

/**
 * Stops what `launched` started as Ctrl-C would (SIGINT to its process group: the runner stops its functions), and
 * waits until every process of it has let go. stopGroups() (test-support/process-group) kills what remains.
 */
export const stopInProject = async (launched: Launched) => {
  try {
    signalGroup(launched.child, 'SIGINT');
  } catch {
    // ESRCH: the group has no process left.
  }
  await launched.closed;
};

/** The logical id of the function of `stack` (in the project's cdk.out) whose id begins with `construct`'s id. */
export const functionIdOf = (project: PackedProject, stack: string, construct: string) => {
  const { Resources = {} } = JSON.parse(project.read(`cdk.out/${stack}.template.json`)) as {
    Resources?: Record<string, { Type: string }>;
  };
  const ids = Object.entries(Resources)
    .filter(([id, { Type }]) => Type === 'AWS::Lambda::Function' && id.startsWith(construct))
    .map(([id]) => id);
  if (ids.length !== 1)
    throw new Error(`${stack} has ${ids.length} functions named ${construct}...: ${ids.join(', ')}`);
  return ids[0] as string;
};
