// The runner as a stranger installs it: `npm pack` (which builds it: package.json's `prepack`), the tarball installed
// into a CDK app of its own outside this repository (helpers/packed-project.ts) (its own package.json: aws-cdk-lib, constructs, the aws-cdk CLI
// the runner's synth runs), then `npx cdk-local-runner start` there, synth included, and its routes called: under
// Node.js 24 and under Node.js 22 (the `node22` devDependency, `npm:node@^22`). A file the runner reads but `files`
// leaves out, a dependency it does not declare, or an API Node 22 lacks fails here.
// The `node22` package declares the bin `node`, as `node` (24, the project's) does: npm links bins in the order of
// their paths, so node_modules/.bin/node stays 24 (an `npm install` that adds or changes `node22` alone may link it
// over; `npm ci` mends it, and the repository's pretest guard says so). Its binary is found by its own path here.
// Offline, as every test: installed from npm's cache (helpers/packed-project.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnInGroup, stopGroups } from 'test-support/process-group';
import { installProject, manifest, offlineEnvironment, packedRunner } from '../helpers/packed-project.ts';

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
  packed = packedRunner().files;
  // No notices, no telemetry: the CLI's synth makes no request (https://docs.aws.amazon.com/cdk/v2/guide/cli.html).
  app = installProject(root, {
    name: 'greetings',
    type: 'module',
    dependencies: [],
    devDependencies: ['aws-cdk-lib', 'constructs', 'aws-cdk'],
    files: {
      'cdk.json': JSON.stringify({ app: 'node app.mjs', notices: false, context: { 'cli-telemetry': false } }),
      'app.mjs': appSource,
      'hello/index.mjs': nodeHandler,
      'hola/index.py': pythonHandler,
    },
  }).dir;
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
    packed.filter((path) => !/^(package\.json|README\.md|CHANGELOG\.md|docs\/[a-z0-9-]+\.md|dist\/.*)$/.test(path)),
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
