// `start --watch` on a project shaped as `cdk init app --language typescript` makes it (as install/strangers-hour's:
// cdk.json's app runs `npx tsc` before the app; here on Node's own TypeScript), with the runner installed from the packed
// tarball: a save to a NodejsFunction's handler alone rebuilds its bundle, as the synth built it, without a synth; a
// save to the stack synthesizes; a type error is tsc's message, as the synth would print it, and the last good
// version keeps serving.
import { mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { stopGroups } from 'test-support/process-group';
import {
  installProject,
  type PackedProject,
  printedSince,
  startInProject,
  stopInProject,
} from '../helpers/packed-project.ts';

const stackSource = (memorySize: number, sourceMap = false) => `import * as cdk from 'aws-cdk-lib/core';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Code, Function, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';

export class EditStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);
    const api = new RestApi(this, 'Api');
    const bundling = { sourceMap: ${sourceMap} };
    const hello = new NodejsFunction(this, 'Hello', { entry: 'lambda/hello.ts', runtime: Runtime.NODEJS_22_X, bundling });
    api.root.addResource('hello').addMethod('GET', new LambdaIntegration(hello));
    const memory = new NodejsFunction(this, 'Memory', {
      entry: 'lambda/memory.ts',
      runtime: Runtime.NODEJS_22_X,
      memorySize: ${memorySize},
      bundling,
    });
    api.root.addResource('memory').addMethod('GET', new LambdaIntegration(memory));
    const hola = new Function(this, 'Hola', {
      code: Code.fromAsset('python'),
      handler: 'index.handler',
      runtime: Runtime.PYTHON_3_12,
    });
    api.root.addResource('hola').addMethod('GET', new LambdaIntegration(hola));
  }
}
`;

const helloSource = (line: string) => `export const handler = async () => {
  ${line}
  return { statusCode: 200, body: JSON.stringify({ version }) };
};
`;
const hello = (version: number) => helloSource(`const version: number = ${version};`);
/** A type error on line 2 of lambda/hello.ts: tsc fails, and with it the synth the app's cdk.json runs. */
const typeError = helloSource("const version: number = 'two';");
const typeErrorLine =
  /lambda\/hello\.ts(?:\(2,9\): |:2:9 - )error TS2322: Type 'string' is not assignable to type 'number'\./;

const hola = (text: string) => `def handler(event, context):
    return {"statusCode": 200, "body": "${text}"}
`;

const files = {
  'cdk.json': JSON.stringify({
    app: 'npx tsc && node bin/edit.ts',
    watch: {
      include: ['**'],
      exclude: ['README.md', 'cdk*.json', '**/*.d.ts', '**/*.js', 'tsconfig.json', 'package*.json', 'node_modules'],
    },
    // No notices, no telemetry: the CLI's synth makes no request (https://docs.aws.amazon.com/cdk/v2/guide/cli.html).
    notices: false,
    context: { 'cli-telemetry': false },
  }),
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['es2022'],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      isolatedModules: true,
      allowImportingTsExtensions: true,
      types: ['node'],
    },
    exclude: ['node_modules', 'cdk.out'],
  }),
  'bin/edit.ts': `#!/usr/bin/env node
import * as cdk from 'aws-cdk-lib/core';
import { EditStack } from '../lib/edit-stack.ts';

const app = new cdk.App();
new EditStack(app, 'EditStack');
`,
  'lib/edit-stack.ts': stackSource(128),
  'lambda/hello.ts': hello(1),
  'python/index.py': hola('hola'),
  'lambda/memory.ts': `export const handler = async () => ({ statusCode: 200, body: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE });
`,
};

let root: string;
let project: PackedProject;
let runner: Awaited<ReturnType<typeof startInProject>>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-edit-'));
  project = installProject(root, {
    name: 'edit',
    files,
    dependencies: ['aws-cdk-lib', 'constructs'],
    devDependencies: ['aws-cdk', 'typescript', '@types/node', 'esbuild'],
  });
  runner = await startInProject(project, ['--watch'], /watching \*\* for changes/);
}, 300_000);

afterAll(async () => {
  if (runner && runner.child.exitCode === null) await stopInProject(runner);
  stopGroups();
  if (root) rmSync(root, { recursive: true, force: true });
});

const get = async (path: string) => (await fetch(`${runner.url}${path}`)).text();

/** Writes `text` to `path` as an editor saves: a temporary file beside it, then renamed over it. */
const save = (path: string, text: string) => {
  const temporary = join(project.dir, `${path}.${process.pid}.tmp`);
  writeFileSync(temporary, text);
  renameSync(temporary, join(project.dir, path));
};

/** When cdk.out's manifest was last written: by a synth alone. */
const synthesizedAt = () => statSync(join(project.dir, 'cdk.out/manifest.json')).mtimeMs;

test('the start says which functions rebuild alone', () => {
  const said = /a change to the code of (.*) alone rebuilds its bundle, without a synth/.exec(runner.output())?.[1];
  expect(said?.split(', ').sort()).toEqual([
    expect.stringMatching(/^Hello/),
    expect.stringMatching(/^Hola/),
    expect.stringMatching(/^Memory/),
  ]);
});

test('five saves of the handler, each answered with its new text, and no synth runs', async () => {
  expect(JSON.parse(await get('/hello'))).toEqual({ version: 1 });
  expect(await get('/memory')).toBe('128');
  const from = runner.output().length;
  const synthesized = synthesizedAt();
  for (const version of [2, 3, 4, 5, 6]) {
    const before = runner.output().length;
    save('lambda/hello.ts', hello(version));
    await printedSince(
      runner,
      before,
      /serving the new version of Hello\w+ \(bundle rebuilt without a synth in [\d.]+ s\)/,
    );
    expect(JSON.parse(await get('/hello'))).toEqual({ version });
  }
  expect(runner.output().slice(from)).not.toMatch(/synthesiz/);
  expect(synthesizedAt()).toBe(synthesized);
  // The other function's environment was left serving: its second request (its log line waited for) started none.
  expect(await get('/memory')).toBe('128');
  await runner.printed(/GET \/memory 200[\s\S]*GET \/memory 200/);
  expect(runner.output().match(/cold start Memory/g)).toHaveLength(1);
}, 120_000);

test("a Python function's save copies its folder again, and no synth runs", async () => {
  expect(await get('/hola')).toBe('hola');
  const from = runner.output().length;
  const synthesized = synthesizedAt();
  save('python/index.py', hola('hola again'));
  await printedSince(runner, from, /serving the new version of Hola\w+ \(code copied from its folder without a synth/);
  expect(await get('/hola')).toBe('hola again');
  expect(runner.output().slice(from)).not.toMatch(/synthesiz/);
  expect(synthesizedAt()).toBe(synthesized);
}, 120_000);

test("a type error is tsc's message, as the synth prints it, and the last good version keeps answering", async () => {
  const from = runner.output().length;
  save('lambda/hello.ts', typeError);
  await printedSince(runner, from, /still serving the previous version/);
  expect(stripVTControlCharacters(runner.output().slice(from))).toMatch(typeErrorLine);
  expect(JSON.parse(await get('/hello'))).toEqual({ version: 6 });

  const fixed = runner.output().length;
  save('lambda/hello.ts', hello(7));
  await printedSince(runner, fixed, /serving the new version of Hello/);
  expect(JSON.parse(await get('/hello'))).toEqual({ version: 7 });
}, 120_000);

test('a save of the stack synthesizes, and its change is served', async () => {
  const from = runner.output().length;
  const synthesized = synthesizedAt();
  save('lib/edit-stack.ts', stackSource(256));
  await printedSince(runner, from, /serving the new version \(synthesized in [\d.]+ s/);
  expect(runner.output().slice(from)).toMatch(/change seen: synthesizing \(.*lib\/edit-stack\.ts is read by the app\)/);
  expect(synthesizedAt()).toBeGreaterThan(synthesized);
  expect(await get('/memory')).toBe('256');
  // The handler's last text is the one served after the synth too.
  expect(JSON.parse(await get('/hello'))).toEqual({ version: 7 });
}, 180_000);

// Debugging asks the synth for a build for the debugger (docs/debugging.md: the context value local-runner:inspect);
// bundles that carry source maps already serve a debugger as they are.
describe('start --inspect on an assembly synthesized without it', () => {
  beforeAll(async () => {
    await stopInProject(runner);
  }, 60_000);

  /** `start <args>` until it serves, then stopped: what it printed. */
  const started = async (args: string[]) => {
    const once = await startInProject(project, args);
    await stopInProject(once);
    return once.output();
  };

  test('its bundles without source maps: it says once why it synthesizes', async () => {
    expect(await started([])).toMatch(/cdk\.out is up to date/);
    const output = await started(['--inspect', '--inspect-port', '0']);
    expect(output.match(/--inspect synthesizes/g)).toHaveLength(1);
    expect(output).toMatch(
      /--inspect synthesizes \(with local-runner:inspect=true\): Hello\w+, Memory\w+ carry no source map/,
    );
    expect(output).toMatch(/Synthesizing the app/);
  }, 180_000);

  test('its bundles with source maps: no synth', async () => {
    project.write('lib/edit-stack.ts', stackSource(256, true));
    expect(await started([])).toMatch(/Synthesizing the app/);
    const output = await started(['--inspect', '--inspect-port', '0']);
    expect(output).toMatch(/cdk\.out is up to date, and its bundles carry source maps: --inspect needs no synth/);
    expect(output).not.toMatch(/Synthesizing the app/);
    expect(output).toMatch(/Debugger: Hello\w+ on 127\.0\.0\.1:\d+/);
  }, 180_000);
});

// `cdk watch` synthesizes at its start; the runner serves an up-to-date cdk.out at once, and synthesizes once in the
// background to learn how each function's code is built.
describe('start --watch on a cdk.out up to date', () => {
  test('one synth in the background learns the bundles; a save of the handler then rebuilds it alone', async () => {
    const watching = await startInProject(project, ['--watch'], /alone rebuilds its bundle, without a synth/);
    try {
      expect(watching.output()).toMatch(/cdk\.out is up to date[\s\S]*synthesizing once in the background/);
      const from = watching.output().length;
      save('lambda/hello.ts', hello(8));
      await printedSince(watching, from, /serving the new version of Hello\w+ \(bundle rebuilt without a synth/);
      expect(JSON.parse(await (await fetch(`${watching.url}/hello`)).text())).toEqual({ version: 8 });
      expect(watching.output().slice(from)).not.toMatch(/synthesiz/);
    } finally {
      await stopInProject(watching);
    }
  }, 180_000);
});
