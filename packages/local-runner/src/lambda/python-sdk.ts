// The AWS SDK for Python (boto3) that Lambda's Python runtimes give every function ("Building Lambda functions with
// Python", https://docs.aws.amazon.com/lambda/latest/dg/lambda-python.html, "Runtime-included SDK versions"). Locally
// a function finds it in its own code or its layers, else in the machine's python3 (the one the runner starts), else
// in the user's cache (`<tmp>/cdk-local-runner-sdk-<uid>/boto3-<version>`), where the runner installs it once, at
// start, with `python3 -m pip install --target`; bootstrap.ts puts that folder on PYTHONPATH after the layers, as
// Lambda puts the runtime's SDK after the code and the layers.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FunctionDefinition } from '../app/functions.ts';
import { pythonLayerFolders } from './bootstrap.ts';

/**
 * The boto3 version installed for `runtime` when neither the function nor the machine has one. The guide's last table
 * naming it gave boto3 1.20.32 (botocore 1.23.32) for python3.7 to python3.9 (awsdocs/aws-lambda-developer-guide,
 * doc_source/lambda-python.md); for later runtimes Lambda names none ("depends on the runtime version and your AWS
 * Region"), and 1.40.0 stands for it (docs/functions.md).
 */
const boto3VersionOf = (runtime: string) => {
  const minor = Number(/^python3\.(\d+)/.exec(runtime)?.[1] ?? 0);
  return minor <= 9 ? '1.20.32' : '1.40.0';
};

/** The cache's folder of boto3 for `runtime`: `<cacheRoot>/boto3-<version>`. */
const boto3CacheOf = (cacheRoot: string, runtime: string) => join(cacheRoot, `boto3-${boto3VersionOf(runtime)}`);

const hasBoto3 = (folder: string) => existsSync(join(folder, 'boto3', '__init__.py'));

/** Whether the python3 the runner starts (this PATH's) imports boto3, asked once per PATH. */
const machineAnswers = new Map<string, boolean>();
const machineHasBoto3 = () => {
  const path = process.env.PATH ?? '';
  let answer = machineAnswers.get(path);
  if (answer === undefined) {
    // As the function's runtime would: its environment holds PATH, no PYTHONPATH; not run in the project's folder.
    const asked = spawnSync('python3', ['-c', 'import boto3'], { cwd: tmpdir(), env: { PATH: path }, stdio: 'ignore' });
    answer = asked.status === 0;
    machineAnswers.set(path, answer);
  }
  return answer;
};

/** The cache's folder of boto3 when `fn` (Python) has none in its code or layers and the machine's python3 none. */
export const boto3FolderOf = (fn: FunctionDefinition, cacheRoot: string | undefined) => {
  if (fn.code.language !== 'python' || cacheRoot === undefined) return undefined;
  if ([fn.assetDir, ...pythonLayerFolders(fn)].some(hasBoto3) || machineHasBoto3()) return undefined;
  return boto3CacheOf(cacheRoot, fn.runtime);
};

/** A time limit on an install: the index unreachable, pip's one retry ends well before it. */
const installLimitMs = 180_000;

/** `python3 -m pip install --target folder boto3==version`; resolves with pip's error when it fails. */
const pipInstall = async (folder: string, version: string): Promise<string | undefined> => {
  const args = ['-m', 'pip', 'install', '--target', folder, `boto3==${version}`];
  args.push('--disable-pip-version-check', '--no-input', '--quiet', '--retries', '1', '--timeout', '15');
  try {
    // This process's environment: pip's settings in it (PIP_INDEX_URL) among them.
    await promisify(execFile)('python3', args, { timeout: installLimitMs, killSignal: 'SIGKILL' });
    return undefined;
  } catch (error) {
    const { stderr, message, killed } = error as { stderr?: string; message: string; killed?: boolean };
    if (killed) return `no answer within ${installLimitMs / 1000} s`;
    const lines = `${stderr ?? ''}`.split('\n').filter((line) => /\S/.test(line));
    return lines.findLast((line) => line.startsWith('ERROR:')) ?? lines.at(-1) ?? message;
  }
};

/**
 * boto3 for the Python `functions` that have none (boto3FolderOf), installed once into the cache at the runtime's
 * version, said before and after; when that fails (pip missing, the index unreachable), said naming the functions and
 * what to do. Never throws: such a function fails at init, its runtime saying boto3 is missing.
 */
export const provideBoto3 = async (
  functions: { name: string; fn: FunctionDefinition }[],
  { cacheRoot, log, ready }: { cacheRoot: string; log: (line: string) => void; ready: () => boolean },
) => {
  const missing = new Map<string, { version: string; names: string[] }>();
  for (const { name, fn } of functions) {
    const folder = boto3FolderOf(fn, cacheRoot);
    if (folder === undefined || hasBoto3(folder)) continue;
    const entry = missing.get(folder) ?? { version: boto3VersionOf(fn.runtime), names: [] };
    entry.names.push(name);
    missing.set(folder, entry);
  }
  if (missing.size === 0 || !ready()) return;
  for (const [folder, { version, names }] of missing) {
    const named = names.join(', ');
    log(`${named}: installing the runtime's AWS SDK for Python (boto3 ${version}) into ${folder} with pip, once`);
    const error = await pipInstall(folder, version);
    log(
      error === undefined
        ? `installed boto3 ${version} into ${folder}`
        : `${named}: the runtime's AWS SDK for Python could not be installed (pip: ${error}): install boto3 for the python3 the runner starts (python3 -m pip install boto3), or add it to the function's code or a layer; until then the function fails at init`,
    );
  }
};
