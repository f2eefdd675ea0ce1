// The runner as a stranger installs it: `npm pack` (which builds it: package.json's `prepare`), the tarball installed
// into a CDK app of its own outside this repository (its own package.json: aws-cdk-lib, constructs, the aws-cdk CLI
// the runner's synth runs), then `npx cdk-local-runner start` there, synth included, and its routes called: under
// Node.js 24 and under Node.js 22 (the `node22` devDependency, `npm:node@^22`). A file the runner reads but `files`
// leaves out, a dependency it does not declare, or an API Node 22 lacks fails here.
// The `node22` package declares the bin `node`, as `node` (24, the project's) does: npm links bins in the order of
// their paths, so node_modules/.bin/node stays 24 (an `npm install` that adds or changes `node22` alone may link it
// over; `npm ci` mends it, and the repository's pretest guard says so). Its binary is found by its own path here.
//
// Offline, as every test: the app is installed with `npm install --offline` from npm's cache, which `npm ci` of the
// repository filled, at the exact versions the repository's package-lock.json holds (a lockfile written for the app
// from it: npm's cache holds the tarballs `npm ci` fetched, not the registry's metadata a resolution would read).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnInGroup, stopGroups } from 'test-support/process-group';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
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
 * The lock entries the app needs: `wanted` (name to the path of the package that needs it, in the repository's lock)
 * and, transitively, what each needs, found as Node finds a package (its own node_modules, then each one above).
 * The runner's own (packages/local-runner/node_modules/...) land under the installed runner's folder.
 */
const appLock = (packages: Record<string, LockEntry>, runnerPath: string, wanted: [string, string][]) => {
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
const offlineEnvironment = (nodeBin: string) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))),
  PATH: `${nodeBin}:${process.env.PATH}`,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
});

const appSource = `
import { App, Stack } from 'aws-cdk-lib';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Code, Function, Runtime } from 'aws-cdk-lib/aws-lambda';

const app = new App();
const stack = new Stack(app, 'Greetings');
const api = new RestApi(stack, 'Api');
const node = new Function(stack, 'Hello', {
  code: Code.fromAsset('hello'),
  handler: 'index.handler',
  runtime: Runtime.NODEJS_22_X,
});
api.root.addResource('hello').addMethod('GET', new LambdaIntegration(node));
const python = new Function(stack, 'Hola', {
  code: Code.fromAsset('hola'),
  handler: 'index.handler',
  runtime: Runtime.PYTHON_3_13,
});
api.root.addResource('hola').addMethod('GET', new LambdaIntegration(python));
`;

const nodeHandler = `export const handler = async (event) => ({
  statusCode: 200,
  body: JSON.stringify({ path: event.path, node: process.version }),
});
`;

const pythonHandler = `import json

def handler(event, context):
    return {"statusCode": 200, "body": json.dumps({"path": event["path"]})}
`;

let root: string;
let app: string;
let packed: string[];
const nodeBins: Record<string, string> = {};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-packed-'));
  // The package as its files stand, packed from a copy (its `prepare` builds it there, with the repository's
  // TypeScript): a build beside the tests that run from this package's dist/ would rewrite it under them.
  const copy = join(root, 'package');
  cpSync(packageDir, copy, {
    recursive: true,
    filter: (path) => !/^\/(node_modules|dist|test)$/.test(path.slice(packageDir.length - 1)),
  });
  const repositoryModules = dirname(dirname(fileURLToPath(import.meta.resolve('typescript/package.json'))));
  symlinkSync(repositoryModules, join(copy, 'node_modules'));
  const [result] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', root], {
      cwd: copy,
      env: offlineEnvironment(dirname(process.execPath)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as [{ filename: string; files: { path: string }[] }];
  packed = result.files.map(({ path }) => path);

  const { packages } = repositoryLock();
  const direct = ['aws-cdk-lib', 'constructs', 'aws-cdk'];
  const versionOf = (name: string) => packages[`node_modules/${name}`]?.version ?? '';
  const tarball = `file:../${result.filename}`;
  const appManifest = {
    name: 'greetings',
    private: true,
    type: 'module',
    // swagger-ui-dist's @scarf/scarf would report the install over the network.
    scarfSettings: { enabled: false },
    devDependencies: { ...Object.fromEntries(direct.map((name) => [name, versionOf(name)])), [manifest.name]: tarball },
  };
  const runnerLockPath = Object.entries(packages).find(([, entry]) => entry.name === manifest.name)?.[0] ?? '';
  const lock = {
    name: 'greetings',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'greetings', devDependencies: appManifest.devDependencies },
      ...appLock(packages, runnerLockPath, [
        ...direct.map((name): [string, string] => [name, '']),
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
  app = join(root, 'app');
  mkdirSync(join(app, 'hello'), { recursive: true });
  mkdirSync(join(app, 'hola'));
  writeFileSync(join(app, 'package.json'), JSON.stringify(appManifest, null, 2));
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(lock, null, 2));
  // No notices, no telemetry: the CLI's synth makes no request (https://docs.aws.amazon.com/cdk/v2/guide/cli.html).
  writeFileSync(
    join(app, 'cdk.json'),
    JSON.stringify({ app: 'node app.mjs', notices: false, context: { 'cli-telemetry': false } }),
  );
  writeFileSync(join(app, 'app.mjs'), appSource);
  writeFileSync(join(app, 'hello/index.mjs'), nodeHandler);
  writeFileSync(join(app, 'hola/index.py'), pythonHandler);
  execFileSync('npm', ['install'], {
    cwd: app,
    env: offlineEnvironment(dirname(process.execPath)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  nodeBins['24'] = dirname(process.execPath);
  nodeBins['22'] = join(dirname(fileURLToPath(import.meta.resolve('node22/package.json'))), 'bin');
}, 300_000);

afterAll(() => {
  stopGroups();
  rmSync(root, { recursive: true, force: true });
});

test('the tarball holds the built package alone: its manifest, README, CHANGELOG, docs/ and dist/ (no sources, no tests)', () => {
  expect(packed).toEqual(
    expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']),
  );
  expect(
    packed.filter((path) => !/^(package\.json|README\.md|CHANGELOG\.md|docs\/[a-z-]+\.md|dist\/.*)$/.test(path)),
  ).toEqual([]);
  expect(packed.filter((path) => /\.test\.|\.ts$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
});

/** `npx cdk-local-runner start` in the app, on the Node.js of `nodeBin`; resolves once it serves, with its URL. */
const start = async (nodeBin: string) => {
  const child = spawnInGroup('npx', ['cdk-local-runner', 'start', '--port', '0', '--in-memory'], {
    cwd: app,
    env: offlineEnvironment(nodeBin),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const serving = /is serving at (http:\/\/127\.0\.0\.1:\d+)/;
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = serving.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`the runner exited (${code}) before serving:\n${output}`)));
  });
  return { child, url, output: () => output };
};

describe.each(['24', '22'])('on Node.js %s', (major) => {
  test('`cdk-local-runner --version` prints the package version, run by that Node.js', () => {
    const nodeBin = nodeBins[major] ?? '';
    const env = offlineEnvironment(nodeBin);
    expect(execFileSync('npx', ['cdk-local-runner', '--version'], { cwd: app, env, encoding: 'utf8' }).trim()).toBe(
      manifest.version,
    );
    expect(execFileSync('node', ['--version'], { env, encoding: 'utf8' })).toMatch(new RegExp(`^v${major}\\.`));
  });

  test('its library entry point loads: what package.json exports', () => {
    const run = spawnSync(
      'node',
      ['--input-type=module', '-e', `const m = await import('${manifest.name}'); console.log(typeof m.startRunner)`],
      { cwd: app, env: offlineEnvironment(nodeBins[major] ?? ''), encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });

  // The first start synthesizes the app (the runner runs the app's `cdk synth` when cdk.out is missing or stale); the
  // second serves what it synthesized.
  test('`npx cdk-local-runner start` serves the app: a Node.js and a Python function answer', async () => {
    const served = await start(nodeBins[major] ?? '');
    const hello = await fetch(`${served.url}/hello`);
    expect(hello.status).toBe(200);
    // The function runs on the Node.js that runs the runner.
    expect(await hello.json()).toEqual({ path: '/hello', node: expect.stringMatching(new RegExp(`^v${major}\\.`)) });
    const hola = await fetch(`${served.url}/hola`);
    expect(hola.status).toBe(200);
    expect(await hola.json()).toEqual({ path: '/hola' });
    expect(served.output()).not.toMatch(/ExperimentalWarning|Error/);
    stopGroups();
  }, 120_000);
});
