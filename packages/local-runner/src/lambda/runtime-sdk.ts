// The AWS SDK that Lambda's Node.js runtimes give every function ("Building Lambda functions with Node.js",
// https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html, "Runtime-included SDK versions"): v3 (`@aws-sdk/*`)
// from nodejs18.x, v2 (`aws-sdk`) up to nodejs16.x. Locally a function finds it where it finds its other packages (its
// bundle, then the project), then in the folders its sources came from (its source map's `sources`), then in the
// user's cache, where the runner installs the packages missing everywhere else once, at start (runtime.mjs resolves
// them in that order).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FunctionDefinition } from '../app/functions.ts';
import { packageCacheName, userFolder } from '../user-folder.ts';

/**
 * The SDK a Node.js runtime provides, and the version installed locally when the app has none. Lambda documents no
 * single v3 version ("a specific minor version ... depends on the runtime version and your AWS Region"): the newest
 * release of each package up to 3.895.0 stands for it. v2's is the guide's table for nodejs10.x to nodejs14.x
 * (2.1001.0; awsdocs/aws-lambda-developer-guide, doc_source/lambda-nodejs.md), taken for nodejs16.x too.
 */
const runtimeSdkOf = (runtime: string) => {
  const major = Number(/^nodejs(\d+)/.exec(runtime)?.[1] ?? 0);
  return major >= 18
    ? {
        name: 'v3',
        range: '<=3.895.0',
        imports: /(?:require\s*\(\s*|\bfrom\s*|\bimport\s*\(?\s*)["'](@aws-sdk\/[\w.-]+)/g,
      }
    : { name: 'v2', range: '2.1001.0', imports: /(?:require\s*\(\s*|\bfrom\s*|\bimport\s*\(?\s*)["'](aws-sdk)["'/]/g };
};

/** The code files of a folder, its node_modules left out, up to a bound (a bundle has one; a copied folder, some). */
const codeFiles = (dir: string, found: string[] = []): string[] => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (found.length >= 500) break;
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') codeFiles(path, found);
    else if (entry.isFile() && /\.[cm]?js$/.test(entry.name) && statSync(path).size < 50_000_000) found.push(path);
  }
  return found;
};

/** The packages `fn`'s code imports (by `require`, `import` or `from`) whose names `imports` captures. */
const importsOf = (fn: FunctionDefinition, imports: RegExp): string[] => {
  const names = new Set<string>();
  for (const file of codeFiles(fn.assetDir))
    for (const [, name] of readFileSync(file, 'utf8').matchAll(imports)) if (name) names.add(name);
  return [...names].sort();
};

/** The SDK's packages `fn`'s code imports: those it needs the runtime to provide. */
const sdkImports = (fn: FunctionDefinition) => importsOf(fn, runtimeSdkOf(fn.runtime).imports);

/**
 * The folders `fn`'s sources came from: the `sources` of the source map beside its module (`<module>.map`, esbuild's
 * and tsc's name for it), resolved from the map's folder and its `sourceRoot`; those that exist, outside node_modules.
 */
export const sourceFolders = (fn: FunctionDefinition): string[] => {
  if (fn.code.language !== 'nodejs') return [];
  const mapFile = `${fn.code.modulePath}.map`;
  if (!existsSync(mapFile)) return [];
  let map: { sources?: unknown; sourceRoot?: unknown };
  try {
    map = JSON.parse(readFileSync(mapFile, 'utf8')) as typeof map;
  } catch {
    return [];
  }
  const root = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
  const sources = Array.isArray(map.sources) ? map.sources.filter((source) => typeof source === 'string') : [];
  const folders = sources
    .map((source: string) => (source.startsWith('file:') ? fileURLToPath(source) : join(root, source)))
    .map((source) => dirname(isAbsolute(source) ? source : resolve(dirname(mapFile), source)))
    .filter((folder) => !folder.includes('/node_modules/') && existsSync(folder));
  return [...new Set(folders)];
};

/** Whether package `name` is found from `dir` as Node finds it: in a node_modules folder of `dir` or above it. */
const foundFrom = (dir: string, name: string) => {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = at.endsWith('/node_modules') ? join(at, name) : join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return true;
    if (dirname(at) === at) return false;
  }
};

/** The folder of the user's cache where `sdk` is installed: `<tmp>/cdk-local-runner-sdk-<uid>/aws-sdk-<v>`. */
export const sdkCacheOf = (cacheRoot: string, runtime: string) => {
  const { name, range } = runtimeSdkOf(runtime);
  return join(cacheRoot, `aws-sdk-${name}-${range.replace(/[^\w.]/g, '')}`);
};

/**
 * The cache's default root, this user's alone (user-folder.ts), made only when `create` (an install needs it); with
 * `problem` when nothing may be put in it or loaded from it.
 */
export const defaultSdkCache = (create: boolean) => userFolder(packageCacheName, { create });

/** A time limit on an install: the registry unreachable, npm's retries end well before it. */
const installLimitMs = 180_000;

/** Installs `packages` (`name@range`) into `dir`; resolves with npm's error output when it fails. */
const npmInstall = async (dir: string, packages: string[]): Promise<string | undefined> => {
  const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'];
  // Offline: one retry, quickly, rather than npm's default backoff of up to a minute.
  args.push('--fetch-retries=1', '--fetch-retry-mintimeout=1000', '--fetch-retry-maxtimeout=2000');
  try {
    // This process's environment, npm's settings in it (npm_config_registry) among them.
    const env = process.env;
    await promisify(execFile)('npm', [...args, ...packages], { env, timeout: installLimitMs, killSignal: 'SIGKILL' });
    return undefined;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    const lines = `${stderr ?? ''}`.split('\n').filter((line) => /\S/.test(line));
    return lines.find((line) => /\b(E[A-Z]+|code)\b/.test(line)) ?? lines[0] ?? message;
  }
};

/** An install into the user's cache: its folder, `name@version`s, and what is said before, after, or on failure. */
interface Install {
  folder: string;
  specs: string[];
  before: string;
  after: string;
  failed: (npm: string) => string;
}

/** Each install in turn, said before and after (or why it failed: npm's error); never throws. */
const installEach = async (installs: Install[], log: (line: string) => void) => {
  for (const { folder, specs, before, after, failed } of installs) {
    log(before);
    const error = await npmInstall(folder, specs);
    log(error === undefined ? after : failed(error));
  }
};

/**
 * The SDK packages `functions` import that none of their folders has (the bundle and the project, the source
 * folders, `given`: `--runtime-sdk`), installed once into the cache at the runtime's version, said before and after;
 * when that fails (no registry), said naming the functions and what to install. Never throws: a function whose SDK is
 * missing fails at init, as the runtime's error says.
 */
export const provideRuntimeSdks = async (
  functions: { name: string; fn: FunctionDefinition }[],
  {
    cacheRoot,
    given,
    log,
    ready,
  }: {
    cacheRoot: string;
    given: string | undefined;
    log: (line: string) => void;
    /** Makes the cache's root, this user's alone, when something is to be installed; false (said): install nothing. */
    ready: () => boolean;
  },
) => {
  const missing = new Map<string, { names: Set<string>; packages: Set<string>; range: string }>();
  for (const { name, fn } of functions) {
    if (fn.code.language !== 'nodejs') continue;
    const cache = sdkCacheOf(cacheRoot, fn.runtime);
    const folders = [fn.assetDir, ...sourceFolders(fn), ...(given ? [given] : []), join(cache, 'node_modules')];
    for (const sdkPackage of sdkImports(fn)) {
      if (folders.some((folder) => foundFrom(folder, sdkPackage))) continue;
      const entry = missing.get(cache) ?? {
        names: new Set(),
        packages: new Set(),
        range: runtimeSdkOf(fn.runtime).range,
      };
      entry.names.add(name);
      entry.packages.add(sdkPackage);
      missing.set(cache, entry);
    }
  }
  if (missing.size > 0 && !ready()) return;
  await installEach(
    [...missing].map(([cache, { names, packages, range }]) => {
      const listed = [...packages].join(' ');
      const functionNames = [...names].join(', ');
      return {
        folder: cache,
        specs: [...packages].map((name) => `${name}@${range}`),
        before: `${functionNames}: installing the runtime's AWS SDK (${listed}, version ${range}) into ${cache}, once`,
        after: `installed ${listed} into ${cache}`,
        failed: (npm: string) =>
          `${functionNames}: the runtime's AWS SDK could not be installed (npm: ${npm}): install ${listed} in the app (npm install --save-dev ${listed}), or name a node_modules folder that has it with --runtime-sdk DIR; until then the function fails at init`,
      };
    }),
    log,
  );
};

/** Powertools' packages `fn`'s code imports (`@aws-lambda-powertools/logger`, from `.../logger/middleware` too). */
const powertoolsImports = (fn: FunctionDefinition) =>
  importsOf(fn, /(?:require\s*\(\s*|\bfrom\s*|\bimport\s*\(?\s*)["'](@aws-lambda-powertools\/[\w.-]+)/g);

/**
 * Powertools' public layers the functions name by ARN (app/powertools-layers.ts), each installed once into its folder
 * of the cache (`<cache>/powertools-ts-<version>/nodejs/node_modules`, as Lambda extracts the layer into /opt): the
 * packages of that release the layer holds and a function imports, missing there, at the layer's version; said
 * before and after, as the SDK's install is. When that fails (no registry), said naming the functions and the layer.
 * Never throws: the function then fails at init, its module not found.
 */
export const providePowertoolsLayers = async (
  functions: { name: string; fn: FunctionDefinition }[],
  { log, ready }: { log: (line: string) => void; ready: () => boolean },
) => {
  const missing = new Map<string, { arn: string; version: string; names: Set<string>; packages: Set<string> }>();
  for (const { name, fn } of functions)
    for (const layer of fn.powertoolsLayers) {
      const folder = join(layer.dir, 'nodejs');
      const imported = powertoolsImports(fn);
      for (const needed of layer.packages.filter((pkg) => imported.includes(pkg))) {
        if (existsSync(join(folder, 'node_modules', needed, 'package.json'))) continue;
        const entry = missing.get(folder) ?? { ...layer, names: new Set(), packages: new Set() };
        entry.names.add(name);
        entry.packages.add(needed);
        missing.set(folder, entry);
      }
    }
  if (missing.size > 0 && !ready()) return;
  await installEach(
    [...missing].map(([folder, { arn, version, names, packages }]) => {
      const listed = [...packages].join(' ');
      const functionNames = [...names].join(', ');
      return {
        folder,
        specs: [...packages].map((pkg) => `${pkg}@${version}`),
        before: `${functionNames}: installing Powertools' layer ${arn} (${listed}, version ${version}) into ${folder}, once`,
        after: `installed ${listed} into ${folder}`,
        failed: (npm: string) =>
          `${functionNames}: Powertools' layer ${arn} could not be installed (npm: ${npm}): give its contents with --layer ${arn}=DIR (DIR holding nodejs/node_modules/${[...packages][0]} at version ${version}), or start again once the registry is reachable; until then the function fails at init`,
      };
    }),
    log,
  );
};
