// Runs one function locally the way Lambda does: each execution environment is a process of its own, started as the
// Lambda Node.js runtime starts it (its environment, its working directory, its heap limits, the function's
// NODE_OPTIONS), that loads the bundle once and stays warm, handles one invocation at a time, and is replaced when it
// crashes, runs out of memory or times out. More start on concurrency, up to a cap; beyond it requests wait.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { localAws } from '../app/intrinsics.ts';
import type { LocalFunction } from '../app/template.ts';
import { recordEvent } from './event-log.ts';

/** What an execution environment's runtime (runtime.mjs) is started with: its command line's one argument, as JSON. */
interface RuntimeSettings {
  functionId: string;
  /** The template's Runtime (`nodejs22.x`). */
  runtime: string;
  modulePath: string;
  exportName: string;
  memoryMb: number;
  logFormat: 'JSON' | 'Text';
  region: string;
  accountId: string;
}

/** The messages to and from the runtime. Events and results cross as JSON text (a string crosses as it is). */
type RuntimeRequest = { id: number; event: string; requestId: string; qualifier?: string; deadline: number };
type RuntimeMessage =
  | { type: 'ready' }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; result: string }
  | { type: 'error'; id: number; errorType: string; message: string };

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
  request: RuntimeRequest;
  resolve: (report: InvocationReport) => void;
  started: number;
  /** This invocation starts a new execution environment, and pays its initialization. */
  startsEnvironment: boolean;
  /** That initialization's time, once the environment is ready. */
  initMs: number | undefined;
  timer?: NodeJS.Timeout;
}

interface ExecutionEnvironment {
  process: ChildProcess;
  ready: Promise<number>;
  current: Pending | undefined;
}

const runtimeFile = new URL('./runtime.mjs', import.meta.url).pathname;

/**
 * The command line the Lambda Node.js runtime's bootstrap starts node with (/var/runtime/bootstrap in the Lambda base
 * images, aws/aws-lambda-base-images): the heap sized from the function's memory (a tenth for the young generation,
 * half of that a semi-space, the rest the old generation), `gc()` exposed, and 80 KiB headers. A function's own
 * NODE_OPTIONS come from its environment, as there; flags on the command line win over NODE_OPTIONS' (Node's rule).
 */
const bootstrapFlags = (memoryMb: number) => {
  const newSpaceMb = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    '--max-http-header-size=81920',
    `--max-semi-space-size=${Math.floor(newSpaceMb / 2)}`,
    `--max-old-space-size=${memoryMb - newSpaceMb}`,
  ];
};

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
    const json = JSON.stringify(event) ?? 'null';
    recordEvent(this.#fn.id, json);
    return new Promise((resolve) => {
      const pending = {
        request: {
          id: this.#nextId++,
          event: json,
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
    const settings: RuntimeSettings = {
      functionId: this.#fn.id,
      runtime: this.#fn.runtime,
      modulePath: this.#fn.modulePath,
      exportName: this.#fn.exportName,
      memoryMb: this.#fn.memoryMb,
      logFormat: this.#fn.logFormat,
      region: localAws.region,
      accountId: localAws.accountId,
    };
    const logLine = this.#logLine;
    const started = performance.now();
    const child = fork(runtimeFile, [JSON.stringify(settings)], {
      // As on Lambda: the function's code folder, and the runtime's environment alone (none of the runner's).
      cwd: this.#fn.assetDir,
      env: {
        ...this.#variables,
        // Each execution environment writes to a log stream of its own: `<date>/[<version>]<32 hex>` as on Lambda.
        AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[${this.#variables.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST'}]${randomUUID().replaceAll('-', '')}`,
      },
      execArgv: bootstrapFlags(this.#fn.memoryMb),
      stdio: logLine === undefined ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'pipe', 'pipe', 'ipc'],
      // Strings cross as they are, not escaped into JSON again.
      serialization: 'advanced',
    });
    if (logLine)
      for (const output of [child.stdout, child.stderr])
        if (output) createInterface({ input: output }).on('line', logLine);
    let readyResolve: (initMs: number) => void = () => undefined;
    const environment: ExecutionEnvironment = {
      process: child,
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
    child.on('message', (message: RuntimeMessage) => {
      // The initialization counts from the process's start, as Lambda's Init Duration includes the runtime's.
      if (message.type === 'ready') readyResolve(performance.now() - started);
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
    child.on('error', (error) => this.#fail(environment, `crashed: ${error.message}`));
    child.on('exit', (code, signal) =>
      this.#fail(environment, signal === null ? `exited with code ${code}` : `ended by ${signal}`),
    );
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
      environment.process.send(pending.request);
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
    environment.process.kill('SIGKILL');
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
    await Promise.all(
      [...this.#all].map(({ process }) => {
        if (process.exitCode !== null || process.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => process.once('exit', resolve));
        process.kill('SIGKILL');
        return exited;
      }),
    );
    this.#all.clear();
    this.#idle.length = 0;
  }
}
