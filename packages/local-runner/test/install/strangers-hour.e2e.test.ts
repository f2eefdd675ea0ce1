// A stranger's hour with the packed tarball: a project shaped as `cdk init app --language typescript` makes it (the
// aws-cdk CLI's lib/init-templates/app/typescript: bin/<name>.ts, lib/<name>-stack.ts, cdk.json whose app runs
// `npx tsc` before the app, tsconfig.json), with NodejsFunctions whose handlers are TypeScript, the runner installed
// from the tarball (helpers/packed-project.ts), on Node.js 24 (install/packed.e2e.test.ts runs the tarball on 22 too).
// Two changes to the template, for an offline install from the repository's lock: the app runs on Node's own
// TypeScript (`node bin/stranger.ts`, its import naming the `.ts` file) instead of tsx, which the lock lacks; and
// tsconfig's `types` names node alone (jest's types are not installed).
// The project is made and installed once (beforeAll); each test leaves its sources as it found them.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { launch } from 'test-support/launched';
import { stopGroups } from 'test-support/process-group';
import { freeRange, hold, portOf, release } from '../helpers/free-ports.ts';
import {
  fileInTarball,
  functionIdOf,
  installProject,
  type PackedProject,
  packedRunner,
  printedSince,
  runInProject,
  runToEnd,
  startInProject,
  stopInProject,
} from '../helpers/packed-project.ts';

const stackSource = (more = '', imports = '') => `import * as cdk from 'aws-cdk-lib/core';
${imports}import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Code, Function, FunctionUrlAuthType, InvokeMode, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';

export class StrangerStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);
    const api = new RestApi(this, 'Api');
    const hello = new NodejsFunction(this, 'Hello', { entry: 'lambda/hello.ts', runtime: Runtime.NODEJS_22_X });
    api.root.addResource('hello').addMethod('GET', new LambdaIntegration(hello));
    const slow = new NodejsFunction(this, 'Slow', {
      entry: 'lambda/slow.ts',
      runtime: Runtime.NODEJS_22_X,
      timeout: cdk.Duration.seconds(1),
    });
    api.root.addResource('slow').addMethod('GET', new LambdaIntegration(slow));
    const hola = new Function(this, 'Hola', {
      code: Code.fromAsset('python'),
      handler: 'index.handler',
      runtime: Runtime.PYTHON_3_9,
    });
    api.root.addResource('hola').addMethod('GET', new LambdaIntegration(hola));
    const stream = new NodejsFunction(this, 'Stream', { entry: 'lambda/stream.ts', runtime: Runtime.NODEJS_22_X });
    stream.addFunctionUrl({ authType: FunctionUrlAuthType.NONE, invokeMode: InvokeMode.RESPONSE_STREAM });
${more}  }
}
`;

const helloSource = (body: string) => `export const handler = async () => {
  ${body}
  return { statusCode: 200, body: JSON.stringify({ version }) };
};
`;
const hello = (version: number) => helloSource(`const version: number = ${version};`);
/** A type error on line 2 of lambda/hello.ts: tsc fails, and the synth with it. */
const typeError = helloSource("const version: number = 'two';");
const typeErrorLine =
  /lambda\/hello\.ts(?:\(2,9\): |:2:9 - )error TS2322: Type 'string' is not assignable to type 'number'\./;
/** `text` without its terminal colours (tsc colours its errors, terminal or not). */
const plain = (text: string) => stripVTControlCharacters(text);

const files = {
  'cdk.json': JSON.stringify({
    app: 'npx tsc && node bin/stranger.ts',
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
      noImplicitReturns: true,
      skipLibCheck: true,
      noEmit: true,
      isolatedModules: true,
      allowImportingTsExtensions: true,
      types: ['node'],
    },
    exclude: ['node_modules', 'cdk.out'],
  }),
  'bin/stranger.ts': `#!/usr/bin/env node
import * as cdk from 'aws-cdk-lib/core';
import { StrangerStack } from '../lib/stranger-stack.ts';

const app = new cdk.App();
new StrangerStack(app, 'StrangerStack');
`,
  'lib/stranger-stack.ts': stackSource(),
  'lambda/hello.ts': hello(1),
  'lambda/slow.ts': `export const handler = async () => {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return { statusCode: 200, body: 'slow' };
};
`,
  'lambda/stream.ts': `interface Writable {
  write(chunk: string): void;
  end(chunk?: string): void;
}
declare const awslambda: {
  streamifyResponse(handler: (event: unknown, stream: Writable) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: Writable, prelude: { statusCode: number; headers: Record<string, string> }): Writable };
};

export const handler = awslambda.streamifyResponse(async (_event, stream) => {
  const body = awslambda.HttpResponseStream.from(stream, {
    statusCode: 201,
    headers: { 'content-type': 'text/plain', 'x-stranger': 'yes' },
  });
  body.write('streamed ');
  body.end('body');
});
`,
  'python/index.py': `def handler(event, context):
    return {"statusCode": 200, "body": "hola"}
`,
};

let root: string;
let project: PackedProject;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-stranger-'));
  project = installProject(root, {
    name: 'stranger',
    files,
    dependencies: ['aws-cdk-lib', 'constructs'],
    devDependencies: ['aws-cdk', 'typescript', '@types/node', 'esbuild'],
  });
}, 300_000);

afterAll(() => {
  stopGroups();
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * The project's environment for `invoke`, without the run's event log: the events an invoke sends are the caller's
 * (here `{}`), not an API's, which the run checks against Powertools' schemas (test-support/test-run.ts).
 */
const invokeEnv = () => {
  const { LOCAL_RUNNER_EVENT_LOG, ...env } = project.env;
  return env;
};

/** `npx cdk-local-runner <args>` run to its end: its exit code and its output (stdout and stderr, as they came). */
const runToEndMerged = async (args: string[]) => {
  const run = runInProject(project, args);
  const [code] = await Promise.all([run.exited, run.closed]);
  return { code, output: run.output() };
};

// "Life Cycle Scripts" (https://docs.npmjs.com/cli/v11/using-npm/scripts): `prepare` runs on a local `npm install`
// and for a package installed from git; `prepack` before a tarball is packed (npm pack, npm publish) alone. A packed
// package is built: it needs no script at install.
test('item 13: the packed package.json has no install script (prepare, preinstall, install, postinstall)', () => {
  const { scripts = {} } = JSON.parse(fileInTarball(packedRunner().tarball, 'package.json')) as {
    scripts?: Record<string, string>;
  };
  expect(Object.keys(scripts).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([]);
  // npm lists the packages whose install scripts it holds back: the runner is not one.
  expect(project.installOutput).not.toContain('cdk-local-runner');
});

describe('item 8: the synth shows its own errors', () => {
  test("`start` on a handler with a type error prints tsc's error (file, line, message) and exits 1", async () => {
    project.write('lambda/hello.ts', typeError);
    try {
      const { code, output } = await runToEndMerged(['start', '--port', '0', '--in-memory']);
      expect(code).toBe(1);
      expect(plain(output)).toMatch(typeErrorLine);
      expect(output).toMatch(/cdk synth failed/);
    } finally {
      project.write('lambda/hello.ts', hello(1));
    }
  }, 120_000);

  test("`invoke` on a handler with a type error prints tsc's error too", async () => {
    project.write('lambda/hello.ts', typeError);
    try {
      const { code, output } = await runToEndMerged(['invoke', 'x', '--in-memory']);
      expect(code).toBe(1);
      expect(plain(output)).toMatch(typeErrorLine);
    } finally {
      project.write('lambda/hello.ts', hello(1));
    }
  }, 120_000);
});

describe('invoke', () => {
  /** Each function's logical id, by its construct's id. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // The project synthesized as a stranger would, with the CDK CLI.
    const synth = launch(['npx', 'cdk', 'synth', '--quiet'], { cwd: project.dir, env: project.env });
    const [code] = await Promise.all([synth.exited, synth.closed]);
    if (code !== 0) throw new Error(`cdk synth failed:\n${synth.output()}`);
    for (const construct of ['Hello', 'Slow', 'Stream'])
      ids[construct] = functionIdOf(project, 'StrangerStack', construct);
  }, 120_000);

  test('item 13: `invoke` of a Node.js function says nothing of another function (the Python one)', async () => {
    const { code, stdout, stderr } = await runToEnd(project, invokeEnv(), ['invoke', ids.Hello ?? '', '--in-memory']);
    expect({ code, result: JSON.parse(stdout) }).toEqual({
      code: 0,
      result: { statusCode: 200, body: '{"version":1}' },
    });
    expect(stderr).not.toMatch(/Python|Hola/);
  }, 120_000);

  // "Response streaming for Lambda functions" (https://docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html):
  // HttpResponseStream.from writes the status and headers before the body; a function URL sends them as HTTP's.
  test('item 13: `invoke` of a streaming function prints its status, its headers, then its body', async () => {
    const { code, stdout } = await runToEnd(project, invokeEnv(), ['invoke', ids.Stream ?? '', '--in-memory']);
    expect(code).toBe(0);
    expect(stdout).toBe('201 Created\ncontent-type: text/plain\nx-stranger: yes\n\nstreamed body');
  }, 120_000);
});

describe('names, addresses and the inspector', () => {
  test('item 9: `invoke` takes the construct path as cdk prints it and a unique construct id; a typo gets the closest', async () => {
    for (const name of ['StrangerStack/Hello/Resource', 'Hello']) {
      const { code, stdout } = await runToEnd(project, invokeEnv(), ['invoke', name, '--in-memory']);
      expect([name, code, JSON.parse(stdout || '{}')]).toEqual([name, 0, { statusCode: 200, body: '{"version":1}' }]);
    }
    const { code, stderr } = await runToEnd(project, invokeEnv(), ['invoke', 'StrangerStack/Helo', '--in-memory']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/no function StrangerStack\/Helo in the app; did you mean StrangerStack\/Hello\b/);
  }, 180_000);

  test('item 11: `--inspect=<construct path>` with its port taken: the banner prints the port the inspector is on', async () => {
    const held = (await hold(0)) as Server;
    const taken = portOf(held);
    const runner = await startInProject(project, ['--inspect=StrangerStack/Hello', '--inspect-port', String(taken)]);
    try {
      const [, port] = /^Debugger: \w+ on 127\.0\.0\.1:(\d+)/m.exec(runner.output()) ?? [];
      expect(Number(port)).not.toBe(taken);
      // The function starts at its first request; its inspector then answers on the port printed.
      expect(await (await fetch(`${runner.url}/hello`)).text()).toBe('{"version":1}');
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as unknown[];
      expect(targets.length).toBeGreaterThan(0);
    } finally {
      await stopInProject(runner);
      await release(held);
    }
  }, 180_000);

  test("item 13: debugged past its timeout, a function's line has the time and the function's name", async () => {
    // After item 11's start: the assembly it synthesized for the debugger (local-runner:inspect) is up to date.
    const runner = await startInProject(project, ['--inspect', '--inspect-port', '0']);
    const slow = functionIdOf(project, 'StrangerStack', 'Slow');
    try {
      const response = fetch(`${runner.url}/slow`);
      await runner.printed(
        new RegExp(
          `^\\d{2}:\\d{2}:\\d{2}\\.\\d{3} ${slow}: timed out after 1 s on AWS; debugged \\(--inspect\\), it goes on$`,
          'm',
        ),
      );
      expect(await (await response).text()).toBe('slow');
    } finally {
      await stopInProject(runner);
    }
  }, 120_000);

  test('item 10: stop, add an API before the others, start: the old addresses are unchanged', async () => {
    const base = await freeRange(4);
    const addresses = async () => {
      const runner = runInProject(project, ['start', '--port', String(base)]);
      await printedSince(runner, 0, /^Data: /m);
      const output = runner.output();
      await stopInProject(runner);
      const found = [...output.matchAll(/^(?:REST API|HTTP API|Function URL|WebSocket API) (\S+) at (http:\S+):$/gm)];
      return Object.fromEntries(found.map(([, id, url]) => [id, url]));
    };
    try {
      const before = await addresses();
      expect(Object.keys(before)).toHaveLength(2);
      project.write(
        'lib/stranger-stack.ts',
        stackSource()
          .replace(
            "    const api = new RestApi(this, 'Api');",
            "    new HttpApi(this, 'Admin');\n    const api = new RestApi(this, 'Api');",
          )
          .replace(
            "import { Construct } from 'constructs';",
            "import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';\nimport { Construct } from 'constructs';",
          ),
      );
      const after = await addresses();
      expect(Object.keys(after)).toHaveLength(3);
      expect(after).toMatchObject(before);
      expect(existsSync(join(project.dir, '.local-runner', 'ports.json'))).toBe(true);
    } finally {
      project.write('lib/stranger-stack.ts', stackSource());
      rmSync(join(project.dir, '.local-runner'), { recursive: true, force: true });
    }
  }, 300_000);
});

describe('start --watch', () => {
  let runner: Awaited<ReturnType<typeof startInProject>>;
  const get = async (path: string) => (await fetch(`${runner.url}${path}`)).text();

  beforeAll(async () => {
    runner = await startInProject(project, ['--watch'], /watching \*\* for changes/);
  }, 180_000);

  afterAll(async () => {
    if (runner) await stopInProject(runner);
    project.write('lambda/hello.ts', hello(1));
    project.write('lib/stranger-stack.ts', stackSource());
  });

  test('item 13: the functions running on another Node.js than their runtime is said once, not per function', () => {
    const said = runner.output().match(/nodejs22\.x functions run on the runner's Node\.js 24.*/g) ?? [];
    expect(said).toEqual([expect.stringMatching(/: Hello\w+, Slow\w+, Stream\w+$/)]);
    // The machine's python3 is not 3.9 (past Lambda's support): said once too.
    expect(runner.output().match(/python3\.9 functions run on this machine's Python .*: Hola\w+$/gm)).toHaveLength(1);
  });

  test("item 8: a save with a type error prints tsc's error, and the last good version keeps answering", async () => {
    expect(JSON.parse(await get('/hello'))).toEqual({ version: 1 });
    const from = runner.output().length;
    project.write('lambda/hello.ts', typeError);
    await printedSince(runner, from, /still serving the previous version/);
    expect(plain(runner.output().slice(from))).toMatch(typeErrorLine);
    expect(JSON.parse(await get('/hello'))).toEqual({ version: 1 });
  }, 120_000);

  test('item 13: a reload does not say the Node.js line again', async () => {
    const from = runner.output().length;
    project.write('lambda/hello.ts', hello(2));
    await printedSince(runner, from, /serving the new version/);
    expect(JSON.parse(await get('/hello'))).toEqual({ version: 2 });
    expect(runner.output().slice(from)).not.toMatch(/Node\.js/);
  }, 120_000);

  test('item 12: a WebSocket API added: one line, that a restart serves it; the previous version keeps answering', async () => {
    const previous = await get('/hello');
    const from = runner.output().length;
    project.write(
      'lib/stranger-stack.ts',
      stackSource(
        `    const chat = new WebSocketApi(this, 'Chat', {
      connectRouteOptions: { integration: new WebSocketLambdaIntegration('ChatConnect', hello) },
    });
    new WebSocketStage(this, 'ChatStage', { webSocketApi: chat, stageName: 'dev', autoDeploy: true });
`,
        `import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
`,
      ),
    );
    project.write('lambda/hello.ts', hello(3));
    await printedSince(runner, from, /restart the runner to serve|does not synthesize/);
    expect(await get('/hello')).toBe(previous);
    // The API removed again: the next synth is served, the one "serving the new version" since the first change.
    project.write('lib/stranger-stack.ts', stackSource());
    await printedSince(runner, from, /restart the runner[\s\S]*(serving the new version|does not synthesize)/);
    const said = runner.output().slice(from);
    expect(said.match(/restart the runner to serve them; still serving the previous version/g)).toHaveLength(1);
    expect(said.match(/serving the new version/g)).toHaveLength(1);
    expect(JSON.parse(await get('/hello'))).toEqual({ version: 3 });
  }, 120_000);
});
