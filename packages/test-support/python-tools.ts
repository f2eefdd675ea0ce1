// What Python tools this machine has, found once per run by its global setup (test-run.ts, startTestRun) and passed to
// the test workers in the environment: a test file then chooses, as it loads and without starting a process, to run
// the tests that need boto3 or the AWS CLI, or to skip them saying why.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const boto3Fact = 'TEST_RUN_PYTHON_BOTO3';

/** Asks python3 (this PATH's) whether it imports boto3; from a global setup, before the workers start. */
export const probePythonTools = () => {
  const asked = spawnSync('python3', ['-c', 'import boto3'], { stdio: 'ignore' });
  process.env[boto3Fact] = asked.status === 0 ? 'yes' : 'no';
};

/**
 * Where boto3 is for a Python program the tests start: `machine` (python3 imports it), else a folder of the runner's
 * user cache holding it (`<system tmp>/cdk-local-runner-sdk-<uid>/boto3-<version>`, put on PYTHONPATH), else
 * undefined.
 */
export const boto3Source = (): 'machine' | { folder: string } | undefined => {
  if (process.env[boto3Fact] === 'yes') return 'machine';
  const system = process.env.TEST_RUN_SYSTEM_TMPDIR ?? '/tmp';
  const cache = join(system, `cdk-local-runner-sdk-${process.getuid?.() ?? 'user'}`);
  const folder = (existsSync(cache) ? readdirSync(cache) : [])
    .filter((name) => name.startsWith('boto3-'))
    .map((name) => join(cache, name))
    .find((path) => existsSync(join(path, 'boto3', '__init__.py')));
  return folder === undefined ? undefined : { folder };
};

/** The AWS CLI's `aws` on this PATH, if there is one. */
export const awsCliPath = () =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .map((folder) => join(folder, 'aws'))
    .find((path) => existsSync(path));
