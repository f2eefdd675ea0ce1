// Runs one function locally the way Lambda does: each execution environment is a worker thread with its own
// variables that loads the bundle once and stays warm, handles one invocation at a time, and is replaced when it
// crashes, runs out of memory or times out. More workers start on concurrency, up to a cap; beyond it requests wait.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { LocalFunction } from '../app/template.ts';
import type { WorkerData, WorkerMessage, WorkerRequest } from './worker.ts';

// Lambda's clock is UTC, whatever the host's. Worker threads share their process's time zone, and a worker's own
// process.env.TZ changes nothing (only the main thread's environment is the process's): the runner's process takes
// UTC before it starts any, and the thread-local copies say so too. Node re-reads TZ when it is assigned
// ("process.env": https://nodejs.org/api/process.html#processenv).
process.env.TZ = 'UTC';

type Invocation =
  | { outcome: 'result'; result: unknown }
  /** The handler threw or rejected. */
  | { outcome: 'error'; errorType: string; message: string }
  /** The environment died: init failure, crash, out of memory, or the function's timeout. */
  | { outcome: 'failure'; reason: string };

export interface InvocationReport {
  invocation: Invocation;
  durationMs: number;
  /** Set when this invocation started a new execution environment. */
  initMs: number | undefined;
}

interface Pending {
  request: WorkerRequest;
  resolve: (report: InvocationReport) => void;
  started: number;
  /** This invocation starts a new execution environment, and pays its initialization. */
  startsEnvironment: boolean;
  /** That initialization's time, once the environment is ready. */
  initMs: number | undefined;
  timer?: NodeJS.Timeout;
}

interface ExecutionEnvironment {
  worker: Worker;
  ready: Promise<number>;
  current: Pending | undefined;
}

const workerFile = new URL('./worker.ts', import.meta.url);

export class FunctionPool {
  readonly #fn: LocalFunction;
  readonly #variables: Record<string, string>;
  readonly #maxWorkers: number;
  readonly #idle: ExecutionEnvironment[] = [];
  readonly #all = new Set<ExecutionEnvironment>();
  readonly #waiting: Pending[] = [];
  #nextId = 0;
  #closed = false;
  #invocations = 0;
  #inFlight = 0;
  readonly #drained: (() => void)[] = [];

  readonly #logLine: ((line: string) => void) | undefined;

  /** `logLine` takes each line the function writes (its log, as CloudWatch gets it); without it they go to this process's output. */
  constructor(
    fn: LocalFunction,
    variables: Record<string, string>,
    maxWorkers: number,
    logLine?: (line: string) => void,
  ) {
    this.#fn = fn;
    this.#variables = variables;
    this.#maxWorkers = maxWorkers;
    this.#logLine = logLine;
  }

  /** Invocations so far (tests read it to prove what was or was not invoked). */
  get invocations() {
    return this.#invocations;
  }

  /**
   * One invocation, with a request id of its own (Lambda's `awsRequestId`, never API Gateway's request id), of the
   * alias `qualifier` when the caller names one (its ARN is then the function's, `:<alias>`).
   */
  invoke(
    event: unknown,
    { requestId = randomUUID(), qualifier }: { requestId?: string; qualifier?: string } = {},
  ): Promise<InvocationReport> {
    this.#invocations += 1;
    this.#inFlight += 1;
    return new Promise((resolve) => {
      const pending = {
        request: {
          id: this.#nextId++,
          event: JSON.stringify(event) ?? 'null',
          requestId,
          ...(qualifier && { qualifier }),
          deadline: 0,
        },
        resolve,
        started: Date.now(),
        startsEnvironment: false,
        initMs: undefined,
      };
      if (this.#closed) this.#settle(pending, { outcome: 'failure', reason: 'shutting down' });
      else this.#dispatch(pending);
    });
  }

  #settle(pending: Pending, invocation: Invocation) {
    clearTimeout(pending.timer);
    this.#inFlight -= 1;
    if (this.#inFlight === 0) for (const resolve of this.#drained.splice(0)) resolve();
    pending.resolve({ invocation, durationMs: Date.now() - pending.started, initMs: pending.initMs });
  }

  #dispatch(pending: Pending) {
    const environment = this.#idle.pop() ?? (this.#all.size < this.#maxWorkers ? this.#start(pending) : undefined);
    if (!environment) {
      this.#waiting.push(pending);
      return;
    }
    this.#run(environment, pending);
  }

  #start(pending: Pending): ExecutionEnvironment {
    const data: WorkerData = {
      functionId: this.#fn.id,
      modulePath: this.#fn.modulePath,
      exportName: this.#fn.exportName,
      memoryMb: this.#fn.memoryMb,
      logFormat: this.#fn.logFormat,
    };
    const logLine = this.#logLine;
    const worker = new Worker(workerFile, {
      workerData: data,
      // Each execution environment writes to a log stream of its own: `<date>/[<version>]<32 hex>` as on Lambda.
      env: {
        ...this.#variables,
        AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[${this.#variables.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST'}]${randomUUID().replaceAll('-', '')}`,
      },
      stdout: logLine !== undefined,
      stderr: logLine !== undefined,
      // MemorySize caps the heap as on Lambda. The young generation is kept small: V8 would grow each isolate's to
      // tens of megabytes under load, which for a pool of environments is memory no function needs (and slower scavenges).
      resourceLimits: { maxOldGenerationSizeMb: this.#fn.memoryMb, maxYoungGenerationSizeMb: 8 },
    });
    if (logLine)
      for (const output of [worker.stdout, worker.stderr]) createInterface({ input: output }).on('line', logLine);
    let readyResolve: (initMs: number) => void = () => undefined;
    const environment: ExecutionEnvironment = {
      worker,
      ready: new Promise((resolve) => {
        readyResolve = resolve;
      }),
      current: undefined,
    };
    pending.startsEnvironment = true;
    // Lambda gives a function's initialization 10 s.
    const initTimer = setTimeout(() => this.#fail(environment, 'init timed out after 10 s'), 10_000);
    initTimer.unref();
    void environment.ready.then(() => clearTimeout(initTimer));
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') readyResolve(message.initMs);
      else if (message.type === 'init-error') this.#fail(environment, `init failed: ${message.message}`);
      else if (message.id === environment.current?.request.id) {
        this.#finish(
          environment,
          message.type === 'result'
            ? { outcome: 'result', result: JSON.parse(message.result) }
            : { outcome: 'error', errorType: message.errorType, message: message.message },
        );
      }
    });
    worker.on('error', (error) => this.#fail(environment, `crashed: ${error.message}`));
    worker.on('exit', (code) => this.#fail(environment, `exited with code ${code}`));
    this.#all.add(environment);
    return environment;
  }

  #run(environment: ExecutionEnvironment, pending: Pending) {
    environment.current = pending;
    void environment.ready.then((initMs) => {
      if (environment.current !== pending) return;
      if (pending.startsEnvironment) pending.initMs = initMs;
      // As on Lambda, the function's timeout counts from the invocation, after any cold start.
      const timeoutMs = this.#fn.timeoutSeconds * 1000;
      pending.request.deadline = Date.now() + timeoutMs;
      pending.timer = setTimeout(
        () => this.#fail(environment, `timed out after ${this.#fn.timeoutSeconds} s`),
        timeoutMs,
      );
      environment.worker.postMessage(pending.request);
    });
  }

  #finish(environment: ExecutionEnvironment, invocation: Invocation) {
    const pending = environment.current;
    if (!pending) return;
    environment.current = undefined;
    this.#settle(pending, invocation);
    const next = this.#waiting.shift();
    if (next) this.#run(environment, next);
    else this.#idle.push(environment);
  }

  /** The environment is gone (or must go): answer its invocation, and let the next waiting one start a new one. */
  #fail(environment: ExecutionEnvironment, reason: string) {
    if (!this.#all.delete(environment)) return;
    const index = this.#idle.indexOf(environment);
    if (index >= 0) this.#idle.splice(index, 1);
    void environment.worker.terminate();
    const pending = environment.current;
    if (pending) {
      environment.current = undefined;
      this.#settle(pending, { outcome: 'failure', reason });
    }
    const next = this.#waiting.shift();
    if (next && !this.#closed) this.#dispatch(next);
  }

  /** Lets the invocations in flight finish (no new ones come: the pool was replaced), then stops. */
  async drain() {
    if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#drained.push(resolve));
    await this.close();
  }

  /** Stops every execution environment; call once nothing is in flight. */
  async close() {
    this.#closed = true;
    await Promise.all([...this.#all].map((environment) => environment.worker.terminate()));
    this.#all.clear();
    this.#idle.length = 0;
  }
}
