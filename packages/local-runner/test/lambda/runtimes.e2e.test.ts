// Runtimes besides Node.js's, started as Lambda starts them, and what Lambda adds to a function: an OS-only runtime's
// bootstrap speaking the Runtime API ("Building a custom runtime for AWS Lambda", "Using the Lambda runtime API for
// custom runtimes"), one that never asks for its next invocation (the invocation times out, as on Lambda), layers at
// the paths Lambda's Node.js runtimes search ("Layer paths for each Lambda runtime"), and settings no local part
// gives, said at start.
import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import type { Runner } from '../../src/runner.ts';
import { foreignLayerArn, synthesizeForeignLayerApp, synthesizeRuntimesApp } from '../fixtures/runtimes-app.ts';
import { startApp, stopStarted } from '../helpers/runner-process.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';
import { refusalAtStart } from '../helpers/start-refusal.ts';

const greetingLayer = new URL('../fixtures/layers/greeting', import.meta.url).pathname;
/** The node_modules folder this package's dependencies are installed in (the SDK's DynamoDB client among them). */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-dynamodb/package.json'))),
  '../..',
);

/** A runner on the app, with these layer folders and SDK folder. */
const runnerBeforeAll = (layerDirs: Record<string, string> = {}, runtimeSdk?: string) =>
  servedBeforeAll(synthesizeRuntimesApp, { layerDirs, runtimeSdk });

const get = async (api: Runner, path: string) => {
  const response = await fetch(`${api.url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('served as the template has it', () => {
  const runner = runnerBeforeAll();

  test("provided.al2023: the asset's bootstrap is the runtime, started in the task root, given each invocation with the Runtime API's headers", async () => {
    const before = Date.now();
    const { status, body } = await get(runner.api, '/custom');
    expect(status).toBe(200);
    const received = body as Record<string, string>;
    expect(received).toMatchObject({
      handler: 'function.handler',
      path: '/custom',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName('Runtimes', 'CustomFunction')}`,
    });
    expect(received.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(received.traceId).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0$/);
    // The deadline is the invocation's start plus the function's timeout (3 s, CDK's default).
    expect(Number(received.deadlineMs)).toBeGreaterThan(before + 2_000);
    expect(Number(received.deadlineMs)).toBeLessThanOrEqual(Date.now() + 3_000);
    expect(received.cwd).toBe(received.taskRoot);
    expect(received.taskRoot).toMatch(/\/cdk\.out\/asset\.[0-9a-f]{64}$/);
    // Its output is its log (a fact the runner reads from a pipe: waited for, not assumed to have arrived).
    await runner.functionLog.seen(/^CustomFunction: custom runtime started for function\.handler$/);
  });

  test('a runtime that never asks for its next invocation: that invocation times out (502), and the next one gets a new environment', async () => {
    expect((await get(runner.api, '/answers-once')).status).toBe(200);
    expect(await get(runner.api, '/answers-once')).toEqual({
      status: 502,
      body: { message: 'Internal server error' },
    });
    expect(runner.log.lines.some((line) => /AnswersOnceFunction.*timed out after 1 s/.test(line))).toBe(true);
    const second = runner.functionLog.next(/^AnswersOnceFunction: custom runtime started/);
    expect((await get(runner.api, '/answers-once')).status).toBe(200);
    await second;
  });

  test.each([
    ['/layer-cjs', 'hello CommonJS, from the layer'],
    ['/layer-esm', 'hello ESM, from the layer'],
  ])("%s: a package the bundle lacks comes from the function's layer (nodejs/node_modules)", async (path, greeting) => {
    const { status, body } = await get(runner.api, path);
    expect(status).toBe(200);
    expect(body).toEqual({ greeting });
  });

  // Lambda extracts the layers into /opt and the bundle into /var/task ("Layer paths for each Lambda runtime",
  // https://docs.aws.amazon.com/lambda/latest/dg/packaging-layers.html#packaging-layers-paths): a path that leaves
  // /opt names none of their files, whatever `..` it takes, so it fails as a missing module does.
  const opened = async (how: 'require' | 'import', specifier: string) =>
    (await get(runner.api, `/confined-${how}?specifier=${encodeURIComponent(specifier)}`)).body;

  test.each([
    ['require', '/opt/nodejs/node_modules/greeting/index.js'],
    ['require', '/opt/nodejs/../nodejs/node_modules/greeting'],
    ['import', '/opt/nodejs/node_modules/greeting/index.js'],
    ['import', 'file:///opt/nodejs/node_modules/greeting/index.js'],
    ['import', '/opt/nodejs/./node_modules/../node_modules/greeting/index.js'],
  ] as const)("%s('%s'): a layer's file, by its path under /opt", async (how, specifier) => {
    expect((await opened(how, specifier)).loaded).toContain('greet');
  });

  test.each([
    ['require', '/opt/../manifest.json', 'MODULE_NOT_FOUND'],
    ['require', '/opt/../../../../../../../../etc/passwd', 'MODULE_NOT_FOUND'],
    ['require', '/opt/nodejs/../../manifest.json', 'MODULE_NOT_FOUND'],
    ['require', '/opt/nodejs/node_modules/../../../manifest.json', 'MODULE_NOT_FOUND'],
    ['require', '/opt/..', 'MODULE_NOT_FOUND'],
    ['import', '/opt/../manifest.json', 'ERR_MODULE_NOT_FOUND'],
    ['import', '/opt/../../../../../../../../etc/passwd', 'ERR_MODULE_NOT_FOUND'],
    ['import', '/opt/nodejs/../../manifest.json', 'ERR_MODULE_NOT_FOUND'],
    ['import', 'file:///opt/../manifest.json', 'ERR_MODULE_NOT_FOUND'],
    ['import', 'file:///opt/%2e%2e/manifest.json', 'ERR_MODULE_NOT_FOUND'],
  ] as const)("%s('%s'): outside the bundle and the layers, not found, as on Lambda", async (how, specifier, code) => {
    const { code: thrown, message } = (await opened(how, specifier)) as { code: string; message: string };
    expect(thrown).toBe(code);
    expect(message).toMatch(/^Cannot find module '/);
  });

  test("python3.12: the function's handler gets the proxy event and its context, and imports its layer's module (python/)", async () => {
    const { status, body } = await get(runner.api, '/python');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      greeting: 'hello Python, from the layer',
      path: '/python',
      functionName: generatedFunctionName('Runtimes', 'PythonFunction'),
    });
    expect(body.remainingMs).toBeGreaterThan(0);
    expect(body.remainingMs).toBeLessThanOrEqual(3_000);
  });

  test("the machine's Python, when it is not the runtime's version, is said at start", async () => {
    // Asked asynchronously: a synchronous command stops this worker's event loop, where the runner serves, and the
    // next request may then take a socket its server closed meanwhile (ECONNRESET, seen on busy cores).
    const { stdout } = await promisify(execFile)('python3', ['--version'], { encoding: 'utf8' });
    const machine = /Python (\d+\.\d+)/.exec(stdout)?.[1];
    const notice = `python3.12 functions run on this machine's Python ${machine}, not 3.12: `;
    const said = runner.log.lines.filter((line) => line.startsWith(notice));
    if (machine === '3.12') expect(said).toEqual([]);
    else expect(said).toEqual([expect.stringMatching(/\bPythonFunction\b/)]);
  });

  test("the runtime's SDK, where the app has no node_modules and no registry answers: the init fails naming the package and both ways to provide it", async () => {
    expect((await get(runner.api, '/sdk')).status).toBe(502);
    await runner.functionLog.seen(
      /^SdkFunction: .*Cannot find package '@aws-sdk\/client-dynamodb'.*part of the AWS SDK that Lambda's nodejs24\.x runtime provides; locally it comes from the app's own node_modules, its sources' folders, or the runner's cache \(installed at start, said in the runner's log\): install it there \(npm install --save-dev @aws-sdk\/client-dynamodb\), or name a node_modules folder that has it with --runtime-sdk DIR/,
    );
  });

  test('a VPC, an EFS mount, reserved concurrency, services its role may call: each said once at start, naming the function; the function is served', async () => {
    // Its runtime's version here: one line for the runtime's functions.
    expect(
      runner.log.lines.filter((line) =>
        line.startsWith(
          "nodejs22.x functions run on the runner's Node.js 24, not 22 (with nodejs22.x's handler styles): ",
        ),
      ),
    ).toEqual([expect.stringMatching(/\bNetworkedFunction\b/)]);
    const notices = runner.log.lines.filter((line) => line.startsWith('NetworkedFunction: '));
    expect(notices).toEqual([
      'NetworkedFunction: it runs in a VPC (VpcConfig) on AWS: locally it reaches what this machine reaches, not the VPC',
      'NetworkedFunction: it mounts an EFS file system at /mnt/data on AWS: nothing is mounted there locally, so what it reads or writes there fails',
      'NetworkedFunction: its ReservedConcurrentExecutions (2) caps its concurrent invocations on AWS and throttles the rest (0: every one): locally it is not enforced, --max-workers limits its environments',
      // SSM, SQS and S3 are served (docs/services.md): its role's ssm:GetParameter, sqs:SendMessage and s3:GetObject are not said.
      'NetworkedFunction: its role lets it call kms, which the runner does not serve: locally those calls fail at once (NotServedLocally), unless --env-vars points AWS_ENDPOINT_URL elsewhere',
    ]);
    expect((await get(runner.api, '/networked')).status).toBe(200);
  });
});

describe('a layer named only by ARN (not a layer of the app): nothing of it can be fetched locally', () => {
  let foreignLayerApp = '';
  beforeAll(() => {
    foreignLayerApp = synthesizeForeignLayerApp();
  }, 120_000);

  test('refused at start, naming the function, the layer and what to pass', async () => {
    const refusal = await refusalAtStart(foreignLayerApp);
    expect(refusal).toBe(
      `ForeignLayerFunction: its layer ${foreignLayerArn} is named by ARN, not a layer of this app, and cannot be fetched locally: give its contents with --layer ${foreignLayerArn}=DIR (DIR holding what Lambda extracts into /opt)`,
    );
  });

  describe('--layer ARN=DIR', () => {
    const runner = servedBeforeAll(() => foreignLayerApp, { layerDirs: { [foreignLayerArn]: greetingLayer } });

    test('the folder given stands for the layer the template names by ARN', async () => {
      const { status, body } = await get(runner.api, '/foreign-layer');
      expect(status).toBe(200);
      expect(body).toEqual({ greeting: 'hello CommonJS, from the layer' });
    });
  });
});

describe('--runtime-sdk DIR', () => {
  const runner = runnerBeforeAll({}, installedPackages);

  test.each(['/sdk', '/sdk-cjs'])("%s: the folder named for the runtime's SDK provides it", async (path) => {
    expect(await get(runner.api, path)).toEqual({ status: 200, body: { sdk: 'function' } });
  });
});

describe('an assembly reached through a symbolic link (`--app /link/cdk.out`)', () => {
  // As on macOS, where /tmp and /var/folders are links to /private/...: each module the function loads has its real
  // path, and the bundle's folder is the same folder by either name.
  let url = '';
  beforeAll(async () => {
    const synthesized = dirname(synthesizeRuntimesApp());
    const link = join(mkdtempSync(join(tmpdir(), 'local-runner-link-')), 'linked');
    symlinkSync(synthesized, link);
    ({ url } = await startApp(join(link, 'cdk.out'), { args: ['--max-workers', '1'] }));
  }, 90_000);
  afterAll(stopStarted);

  test.each([
    ['/layer-cjs', { greeting: 'hello CommonJS, from the layer' }],
    ['/layer-esm', { greeting: 'hello ESM, from the layer' }],
    [`/confined-require?specifier=${encodeURIComponent('/opt/nodejs/node_modules/greeting')}`, { loaded: ['greet'] }],
  ])("%s: the function loads its bundle and its layer's package", async (path, expected) => {
    const response = await fetch(`${url}${path}`);
    expect([response.status, await response.json()]).toEqual([200, expected]);
  });

  test("python3.12: the function imports its layer's module", async () => {
    const response = await fetch(`${url}/python`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ greeting: 'hello Python, from the layer' });
  });

  test.each(['/opt/../manifest.json', '../manifest.json'])(
    "import('%s'): the assembly, above the bundle and the layer, is not found",
    async (specifier) => {
      const response = await fetch(`${url}/confined-import?specifier=${encodeURIComponent(specifier)}`);
      expect(await response.json()).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
    },
  );
});
