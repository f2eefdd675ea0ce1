// Cold starts take a spare runtime process started before the request (lambda/spares.ts), and idle environments are
// stopped (pool.ts). A spare is a process started with nothing of a function loaded: the function must still see its
// own variables alone and its own folder, and load its code once per environment, as Lambda's init does ("Understanding
// the Lambda execution environment lifecycle", https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html:
// Init runs once per environment, before its first invoke), in Node.js and Python. NODE_OPTIONS, which Node reads only as it starts, is still
// honoured. AWS publishes no idle time after which an environment is stopped (the same page: it is kept "for some
// time"); the runner's is an option, set small here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { type Runner, startRunner } from '../../src/runner.ts';

/** What each function answers: how often its module loaded, its process's start, its variables and folder. */
const handler = `globalThis.loads = (globalThis.loads ?? 0) + 1;
const loads = globalThis.loads;
export const handler = async () => ({
  statusCode: 200,
  body: JSON.stringify({
    loads,
    pid: process.pid,
    startedAt: performance.timeOrigin,
    env: { ...process.env },
    cwd: process.cwd(),
    sourceMaps: process.sourceMapsEnabled,
    stackTraceLimit: Error.stackTraceLimit,
  }),
});
`;

/**
 * The same in Python: its process's start from its age (Linux's /proc: its start in clock ticks since boot, against
 * the time since boot now).
 */
const pythonHandler = `import builtins, os, time

builtins.loads = getattr(builtins, "loads", 0) + 1
LOADS = builtins.loads


def handler(event, context):
    with open("/proc/self/stat") as stat:
        ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    started = (time.time() - age) * 1000
    answer = {"loads": LOADS, "pid": os.getpid(), "startedAt": started, "env": dict(os.environ), "cwd": os.getcwd()}
    return {"statusCode": 200, "body": __import__("json").dumps(answer)}
`;

interface Answer {
  loads: number;
  pid: number;
  startedAt: number;
  env: Record<string, string>;
  cwd: string;
  sourceMaps: boolean;
  stackTraceLimit: number;
}

let root: string;
let api: Runner;
const said: string[] = [];
const waiters: { pattern: RegExp; resolve: () => void }[] = [];
/** Resolves once the runner's log says a line matching `pattern` (already said, or later). */
const saying = (pattern: RegExp) =>
  new Promise<void>((resolve) => {
    if (said.some((line) => pattern.test(line))) resolve();
    else waiters.push({ pattern, resolve });
  });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-spares-'));
  const outdir = join(root, 'cdk.out');
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Spares');
  const rest = new RestApi(stack, 'Api');
  const functions = {
    First: {},
    Second: {},
    Mapped: { NODE_OPTIONS: '--enable-source-maps' },
    Limited: { NODE_OPTIONS: '--stack-trace-limit=7' },
    Idle: {},
    Snake: {},
  };
  for (const [id, environment] of Object.entries(functions)) {
    const dir = join(root, id);
    mkdirSync(dir);
    const python = id === 'Snake';
    writeFileSync(join(dir, python ? 'index.py' : 'index.mjs'), python ? pythonHandler : handler);
    const fn = new LambdaFunction(stack, id, {
      code: Code.fromAsset(dir),
      handler: 'index.handler',
      runtime: python ? Runtime.PYTHON_3_12 : Runtime.NODEJS_24_X,
      environment,
    });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId(id);
    rest.root.addResource(id.toLowerCase()).addMethod('GET', new LambdaIntegration(fn));
  }
  app.synth();
  api = await startRunner({
    cloudAssemblyDir: outdir,
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    idleTimeoutMs: 1000,
    envVars: { First: { ONLY_FIRST: 'first' }, Second: { ONLY_SECOND: 'second' }, Snake: { ONLY_SNAKE: 'snake' } },
    log: (line) => {
      said.push(line);
      for (const waiter of waiters.filter(({ pattern }) => pattern.test(line))) waiter.resolve();
    },
    functionLog: () => undefined,
  });
}, 120_000);

afterAll(async () => {
  await api?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The function's answer, and when the request was sent. */
const call = async (path: string) => {
  const sentAt = Date.now();
  const response = await fetch(`${api.url}${path}`);
  expect(response.status).toBe(200);
  return { sentAt, answer: (await response.json()) as Answer };
};

test('a cold start runs in a process started before the request, with its own variables and folder alone, init once', async () => {
  const first = await call('/first');
  // Warm, at once (the idle time is short here): the same environment, its module not loaded again.
  const again = await call('/first');
  expect(again.answer).toMatchObject({ pid: first.answer.pid, loads: 1 });
  const second = await call('/second');
  // Started before the request was sent: a spare, not a process started for it.
  expect(first.answer.startedAt).toBeLessThan(first.sentAt);
  expect(second.answer.startedAt).toBeLessThan(second.sentAt);
  expect(first.answer.pid).not.toBe(second.answer.pid);
  // Each its own variables (a spare's are none of them), nothing of the runner's, and its own code folder.
  expect(first.answer.env).toMatchObject({
    ONLY_FIRST: 'first',
    AWS_LAMBDA_FUNCTION_NAME: generatedFunctionName('Spares', 'First'),
  });
  expect(first.answer.env).not.toHaveProperty('ONLY_SECOND');
  expect(second.answer.env).toMatchObject({
    ONLY_SECOND: 'second',
    AWS_LAMBDA_FUNCTION_NAME: generatedFunctionName('Spares', 'Second'),
  });
  expect(second.answer.env).not.toHaveProperty('ONLY_FIRST');
  for (const { answer } of [first, second]) {
    expect(answer.env).not.toHaveProperty('JEST_WORKER_ID');
    expect(answer.cwd).toBe(answer.env.LAMBDA_TASK_ROOT);
    expect(answer.env.NODE_PATH?.split(':')).toContain(answer.env.LAMBDA_TASK_ROOT);
    expect(answer.loads).toBe(1);
  }
}, 60_000);

test('a Python cold start too: a process started before the request, its own variables and folder, init once', async () => {
  const { sentAt, answer } = await call('/snake');
  expect(answer.startedAt).toBeLessThan(sentAt);
  expect(answer.env).toMatchObject({
    ONLY_SNAKE: 'snake',
    AWS_LAMBDA_FUNCTION_NAME: generatedFunctionName('Spares', 'Snake'),
  });
  expect(answer.env).not.toHaveProperty('ONLY_FIRST');
  expect(answer.env).not.toHaveProperty('JEST_WORKER_ID');
  expect(answer.cwd).toBe(answer.env.LAMBDA_TASK_ROOT);
  expect(answer.loads).toBe(1);
}, 60_000);

test("NODE_OPTIONS is honoured: a spare started with flags alone, a fresh process for an option's value", async () => {
  const mapped = await call('/mapped');
  expect(mapped.answer.sourceMaps).toBe(true);
  expect(mapped.answer.env.NODE_OPTIONS).toBe('--enable-source-maps');
  expect(mapped.answer.startedAt).toBeLessThan(mapped.sentAt);
  const limited = await call('/limited');
  expect(limited.answer.stackTraceLimit).toBe(7);
  expect(limited.answer.env.NODE_OPTIONS).toBe('--stack-trace-limit=7');
}, 60_000);

test('an environment idle past the idle time is stopped; the next request starts another', async () => {
  const { answer } = await call('/idle');
  expect(api.environments('Idle')).toBe(1);
  await saying(/^Idle: an execution environment idle for 1 s stopped$/);
  expect(api.environments('Idle')).toBe(0);
  const next = await call('/idle');
  expect(next.answer.pid).not.toBe(answer.pid);
  expect(next.answer.loads).toBe(1);
}, 60_000);
