// The local runner serving a function URL (AWS::Lambda::Url, AuthType NONE) in front of a hello-world function, for
// `npm run bench`: its start, its first request (the function cold) and its throughput under the same closed-loop
// load as the REST API's (http-load.ts, GET). The app is synthesized here, in-process: the product has no URL.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { Code, FunctionUrlAuthType, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { startRunner } from 'cdk-local-runner';
import { memoryMiB } from './memory.ts';

const here = new URL('./', import.meta.url).pathname;
/** Starts whose first request is timed. */
const firstRuns = 5;

export interface FunctionUrlFigures {
  readyMs: number;
  /** Memory once serving, after the load, and once its environments have stopped for idleness (memory.ts). */
  memory: {
    ready: ReturnType<typeof memoryMiB>;
    loaded: ReturnType<typeof memoryMiB>;
    idle: ReturnType<typeof memoryMiB>;
  };
  /** The idle time after which an environment stops (`--idle-timeout`), shortened here. */
  idleMs: number;
  /** The first request of each of `firstRuns` starts (the function cold). */
  firstRequestsMs: number[];
  /**
   * Requests per second and latencies at each number of connections, one round each, and the runner's own CPU time
   * per request (it runs in this process; its function in a process of its own).
   */
  load: Record<number, { perSecond: number; p50: number; p99: number; cpuMicrosPerRequest: number }>;
}

/**
 * The idle time the bench runs with: long enough that no environment stops between the load's rounds (each a second
 * or `seconds` long, back to back), short enough to wait for.
 */
const idleMs = 5000;

/** Resolves once `environments()` is 0 (every environment stopped for idleness), checking every 100 ms. */
const idleStopped = async (environments: () => number) => {
  const deadline = performance.now() + idleMs * 3;
  while (environments() > 0) {
    if (performance.now() > deadline) throw new Error(`environments still running ${idleMs * 3} ms after the load`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Serves a function URL from `scratch` with `maxWorkers` environments, and measures it. */
export const measureFunctionUrl = async (
  scratch: string,
  maxWorkers: number,
  connections: number[],
  seconds: number,
): Promise<FunctionUrlFigures> => {
  const codeDir = join(scratch, 'url-function');
  mkdirSync(codeDir, { recursive: true });
  writeFileSync(
    join(codeDir, 'index.mjs'),
    'export const handler = async () => ({ statusCode: 200, body: \'{"hello":"world"}\' });\n',
  );
  const outdir = join(scratch, 'url-cdk.out');
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'BenchUrl');
  new LambdaFunction(stack, 'Hello', {
    code: Code.fromAsset(codeDir),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  }).addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
  app.synth();
  const serve = () =>
    startRunner({
      cloudAssemblyDir: outdir,
      port: 0,
      dataDir: undefined,
      maxWorkers,
      idleTimeoutMs: idleMs,
      log: () => undefined,
      functionLog: () => undefined,
    });
  /** From the request to its answer. */
  const firstRequest = async (url: string) => {
    const started = performance.now();
    const first = await fetch(`${url}/`);
    if (first.status !== 200) throw new Error(`the function URL's first request answered ${first.status}`);
    await first.text();
    return performance.now() - started;
  };
  // The first request of fresh starts, each as soon as the runner serves.
  const firstRequestsMs: number[] = [];
  for (let run = 1; run < firstRuns; run += 1) {
    const fresh = await serve();
    firstRequestsMs.push(await firstRequest(fresh.url).finally(() => fresh.close()));
  }
  const started = performance.now();
  const runner = await serve();
  const readyMs = performance.now() - started;
  const ready = memoryMiB();
  try {
    firstRequestsMs.push(await firstRequest(runner.url));
    const load: FunctionUrlFigures['load'] = {};
    for (const count of connections) {
      const run = (time: number) =>
        promisify(execFile)(process.execPath, [
          join(here, 'http-load.ts'),
          `${runner.url}/`,
          '',
          String(count),
          String(time),
          '0',
          'GET',
        ]);
      await run(1); // warm-up: every execution environment started
      const before = process.cpuUsage();
      const figures = JSON.parse((await run(seconds)).stdout) as {
        requests: number;
        perSecond: number;
        p50: number;
        p99: number;
      };
      const { user, system } = process.cpuUsage(before);
      load[count] = { ...figures, cpuMicrosPerRequest: (user + system) / figures.requests };
    }
    const loaded = memoryMiB();
    await idleStopped(() => runner.functions.reduce((sum, { name }) => sum + runner.environments(name), 0));
    return { readyMs, firstRequestsMs, load, memory: { ready, loaded, idle: memoryMiB() }, idleMs };
  } finally {
    await runner.close();
  }
};
