// The AWS SDK for Python (boto3) that Lambda's Python runtimes give every function ("Building Lambda functions with
// Python", https://docs.aws.amazon.com/lambda/latest/dg/lambda-python.html, "Runtime-included SDK versions"), where
// the machine's python3 lacks it: the runner installs it once into the user's cache and puts that folder on the
// function's PYTHONPATH after its layers. The runner's python3 is the first on its PATH: here a virtual environment
// without boto3 (`python3 -m venv`). The tests never reach an index: pip's is a closed loopback port, or the cache is
// prepared from this machine's installed packages.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { synthesizePythonSdkApp } from '../fixtures/python-sdk-app.ts';
import { hold, portOf, release } from '../helpers/free-ports.ts';
import { cacheBeforeAll } from '../helpers/package-cache.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

/**
 * The cache's folder of boto3 for python3.11: 1.40.0 stands for the version Lambda's later Python runtimes do not name
 * (src/lambda/python-sdk.ts, docs/functions.md).
 */
const boto3Folder = (cache: string) => join(cache, 'boto3-1.40.0');

/** The packages of boto3 and its dependencies (those Lambda's runtime provides), where this machine's python3 has them. */
const machineSdk = () =>
  JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import json, os, boto3, botocore, dateutil, jmespath, s3transfer, urllib3, six\n' +
          'print(json.dumps([os.path.dirname(m.__file__) if m.__file__.endswith("__init__.py") else m.__file__ for m in (boto3, botocore, dateutil, jmespath, s3transfer, urllib3, six)]))',
      ],
      { encoding: 'utf8' },
    ),
  ) as string[];

/** Those packages, asked before any describe puts another python3 first on PATH. */
let machinePackages: string[] = [];
beforeAll(() => {
  machinePackages = machineSdk();
});

/**
 * A python3 without boto3 first on PATH for the tests of a describe (a virtual environment, with pip or not), in a
 * temporary folder of its own; pip's index a closed loopback port and its config files none. Then all as it was.
 */
const pythonWithoutBoto3BeforeAll = ({ withPip }: { withPip: boolean }) => {
  let folder = '';
  const saved = {
    PATH: process.env.PATH,
    PIP_INDEX_URL: process.env.PIP_INDEX_URL,
    PIP_CONFIG_FILE: process.env.PIP_CONFIG_FILE,
  };
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'local-runner-venv-'));
    execFileSync('python3', ['-m', 'venv', ...(withPip ? [] : ['--without-pip']), join(folder, 'venv')]);
    const closed = await hold(0);
    const port = portOf(closed as NonNullable<typeof closed>);
    await release(closed);
    process.env.PATH = `${join(folder, 'venv', 'bin')}:${process.env.PATH}`;
    process.env.PIP_INDEX_URL = `http://127.0.0.1:${port}/`;
    process.env.PIP_CONFIG_FILE = devNull;
  }, 120_000);
  afterAll(() => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    rmSync(folder, { recursive: true, force: true });
  });
};

/** The assembly's temporary folder, removed after the file. */
const assemblies: string[] = [];
const synthesize = () => {
  const outdir = synthesizePythonSdkApp();
  assemblies.push(dirname(outdir));
  return outdir;
};
afterAll(() => {
  for (const folder of assemblies) rmSync(folder, { recursive: true, force: true });
});

describe("no boto3 in the function, the machine's python3 nor the cache, and the index unreachable", () => {
  pythonWithoutBoto3BeforeAll({ withPip: true });
  const cache = cacheBeforeAll('local-runner-boto3-cache-');
  const runner = servedBeforeAll(synthesize, {
    get sdkCache() {
      return cache();
    },
  });

  test('said at start, before and after, naming the function and what to do; the function fails at init as the runtime says', async () => {
    const folder = boto3Folder(cache());
    expect(runner.log.lines.filter((line) => line.includes('boto3'))).toEqual([
      `NoBoto3Function: installing the runtime's AWS SDK for Python (boto3 1.40.0) into ${folder} with pip, once`,
      expect.stringMatching(
        /^NoBoto3Function: the runtime's AWS SDK for Python could not be installed \(pip: .+\): install boto3 for the python3 the runner starts \(python3 -m pip install boto3\), or add it to the function's code or a layer; until then the function fails at init$/,
      ),
    ]);
    // awslambdaric's init error for a module that does not import (bootstrap.py, _get_handler): answered 502 by the API.
    const response = await fetch(`${runner.api.url}/reader`);
    expect(response.status).toBe(502);
    await runner.functionLog.seen(
      /^NoBoto3Function: .*Runtime\.ImportModuleError.*Unable to import module 'reader': No module named 'boto3'/,
    );
  });
});

describe("the user's cache holds boto3 (installed there once before); the machine's python3 has none, nor pip", () => {
  pythonWithoutBoto3BeforeAll({ withPip: false });
  const cache = cacheBeforeAll('local-runner-boto3-cache-', (dir) => {
    const folder = boto3Folder(dir);
    mkdirSync(folder, { recursive: true });
    for (const path of machinePackages) symlinkSync(path, join(folder, basename(path)));
  });
  const runner = servedBeforeAll(synthesize, {
    get sdkCache() {
      return cache();
    },
  });

  test('the function imports boto3 from the cache and writes and reads the local table; nothing is installed', async () => {
    const response = await fetch(`${runner.api.url}/reader?id=fern`);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: { item: { id: 'fern', writtenBy: 'boto3' }, boto3From: boto3Folder(cache()) },
    });
    expect(runner.log.lines.filter((line) => line.includes('installing'))).toEqual([]);
  });
});
