// Runs one function locally the way Lambda does: each execution environment is a process of its own, started as the
// Lambda Node.js runtime starts it (its environment, its working directory, its heap limits, the function's
// NODE_OPTIONS), that loads the bundle once and stays warm, handles one invocation at a time, and is replaced when it
// crashes, runs out of memory or times out. More start on concurrency, up to a cap; beyond it requests wait.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { FunctionDefinition } from '../app/functions.ts';
import { functionArn } from '../app/return-values.ts';
import { randomText } from '../random-bytes.ts';
import { bootstrapOf, type Inspect, type SdkFolders } from './bootstrap.ts';
import { recordEvent } from './event-log.ts';
import { killGroup, spawnInOwnGroup } from './own-group.ts';
import { maxResponseBytes, type RuntimeApi, responseTooLarge, startRuntimeApi } from './runtime-api.ts';
import type { Spares } from './spares.ts';
import { environmentVariables } from './variables.ts';

/** An invocation waiting for, or given to, an execution environment. The event is JSON text. */
type RuntimeRequest = {
  event: string;
  requestId: string;
  qualifier?: string;
  traceId: string;
  streamed: boolean;
  /** Takes what the function writes while it runs this invocation (Invoke's `LogType: Tail`). */
  onOutput?: (text: string) => void;
};

type Invocation =
  | { outcome: 'result'; result: unknown }
  /**
   * A streaming handler's response, as it comes (runtime-api.ts: an error the function ends it with destroys `body`
   * with a StreamedError). The environment is busy until it ends.
   */
  | { outcome: 'stream'; contentType: string; body: Readable }
  /** The handler threw or rejected. */
  | { outcome: 'error'; errorType: string; message: string }
  /** The environment died: init failure, crash, out of memory, or the function's timeout. */
  | { outcome: 'failure'; reason: string }
  /** Lambda refused the invocation before the function ran (its event over the request payload quota). */
  | { outcome: 'refused'; errorType: string; message: string };

/**
 * A synchronous invocation's request payload, at most ("Lambda quotas": 6 MB): Lambda's Invoke refuses a larger event
 * with RequestEntityTooLargeException, and the function never runs.
 */
const maxRequestBytes = 6 * 1024 * 1024;
const requestTooLarge: Invocation = {
  outcome: 'refused',
  errorType: 'RequestEntityTooLargeException',
  message: `Request must be smaller than ${maxRequestBytes} bytes for the InvokeFunction operation`,
};

/** Why an invocation that gave no result failed, as a log line says it. */
export const failureOf = (invocation: Invocation) =>
  invocation.outcome === 'error' || invocation.outcome === 'refused'
    ? `${invocation.errorType}: ${invocation.message}`
    : invocation.outcome === 'failure'
      ? invocation.reason
      : `a ${invocation.outcome} where none was asked for`;

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
  /** Started once its Runtime API listens. */
  process: ChildProcess | undefined;
  api: Promise<RuntimeApi>;
  ready: Promise<number>;
  current: Pending | undefined;
  /**
   * Takes what the process writes: the `onOutput` of the invocation it runs, or ran last (what it wrote just before it
   * answered may be read after the answer).
   */
  output?: ((text: string) => void) | undefined;
  /** Set while it waits idle: it stops when it fires. */
  idleTimer?: NodeJS.Timeout;
}

/**
 * The X-Ray trace header of an invocation (the Runtime API's Lambda-Runtime-Trace-Id, which the runtime puts in
 * `_X_AMZN_TRACE_ID`): the trace API Gateway began for the request (its X-Amzn-Trace-Id), else a new one.
 */
const traceHeader = (event: unknown) => {
  const sent = (event as { headers?: Record<string, unknown> } | null)?.headers?.['X-Amzn-Trace-Id'];
  const root =
    (typeof sent === 'string' ? /Root=[^;]+/.exec(sent)?.[0] : undefined) ??
    `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomText(12, 'hex')}`;
  return `${root};Parent=${randomText(8, 'hex')};Sampled=0`;
};

/** A response as the runtime posted it: a JSON document, or (from a runtime that sends something else) its text. */
const parsedResult = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
};

/** `fn` with its code in `assetDir` instead: the same files, rebuilt (`start --watch`). */
const movedTo = (fn: FunctionDefinition, assetDir: string): FunctionDefinition => {
  const moved = (file: string) => join(assetDir, relative(fn.assetDir, file));
  const { code } = fn;
  return {
    ...fn,
    assetDir,
    code:
      code.language === 'nodejs'
        ? { ...code, modulePath: moved(code.modulePath) }
        : code.language === 'provided'
          ? { ...code, bootstrap: moved(code.bootstrap) }
          : code,
  };
};

export class FunctionPool {
  #fn: FunctionDefinition;
  /** Environments started with code since replaced: each stops once its invocation ends. */
  readonly #stale = new Set<ExecutionEnvironment>();
  #variables: Record<string, string>;
  readonly #maxWorkers: number;
  readonly #idle: ExecutionEnvironment[] = [];
  readonly #all = new Set<ExecutionEnvironment>();
  readonly #waiting: Pending[] = [];
  #closed = false;
  #invocations = 0;
  #inFlight = 0;
  readonly #drained: (() => void)[] = [];

  readonly #logLine: ((line: string) => void) | undefined;
  readonly #say: ((line: string) => void) | undefined;
  readonly #inspect: Inspect | undefined;
  readonly #runtimeSdk: SdkFolders | undefined;
  readonly #executeApi: ReadonlyMap<string, string> | undefined;
  readonly #idleMs: number | undefined;
  readonly #spares: Spares | undefined;

  /**
   * `logLine` takes each line the function writes (its log, as CloudWatch gets it); without it they go to this
   * process's output. `say` takes the runner's own lines about the function (its log's, naming it). With `inspect`,
   * the function is debugged: see `debugged`.
   */
  constructor(
    fn: FunctionDefinition,
    variables: Record<string, string>,
    {
      maxWorkers,
      logLine,
      say,
      inspect,
      runtimeSdk,
      executeApi,
      idleMs,
      spares,
    }: {
      maxWorkers: number;
      logLine?: (line: string) => void;
      say?: (line: string) => void;
      inspect?: Inspect;
      /** Where its runtime finds the runtime's SDK besides its bundle and the project. */
      runtimeSdk?: SdkFolders;
      /** The WebSocket APIs' @connections endpoints (bootstrap.ts), read as each environment starts. */
      executeApi?: ReadonlyMap<string, string>;
      /** An environment idle this long is stopped, as Lambda stops idle ones (none when undefined). */
      idleMs?: number;
      /** Spare runtime processes, one of which a cold start takes (spares.ts); none when debugged. */
      spares?: Spares;
    },
  ) {
    this.#fn = fn;
    this.#variables = variables;
    this.#logLine = logLine;
    this.#say = say;
    this.#inspect = inspect;
    this.#runtimeSdk = runtimeSdk;
    this.#executeApi = executeApi;
    this.#idleMs = idleMs;
    // Not a custom runtime's own bootstrap. Debugged, an environment starts with Node's inspector, which a spare was
    // not started with.
    this.#spares = inspect === undefined && fn.code.language !== 'provided' ? spares : undefined;
    this.#maxWorkers = inspect === undefined ? maxWorkers : 1;
    if (inspect !== undefined) this.#warm();
    else if (fn.code.language !== 'provided') this.#spares?.keep(this.#bootstrap(), fn.code.language);
  }

  /**
   * Debugged (`--inspect`): one execution environment at a time, with Node's inspector on its port, started at once
   * so that a debugger can attach before the first request; no timeout (the function's, its initialization's, the
   * gateway's) cuts a paused invocation off: the runner says when one would have.
   */
  get debugged() {
    return this.#inspect !== undefined;
  }

  /** Its execution environments running now, busy or idle (the bench waits for the idle ones to stop). */
  get environments() {
    return this.#all.size;
  }

  /** The folder of the code the next environment runs. */
  get assetDir() {
    return this.#fn.assetDir;
  }

  /**
   * The next environments run the code in `assetDir` (the same files, rebuilt): idle ones stop now, busy ones once
   * their invocation ends; an invocation waiting, or arriving after, starts one with the new code.
   */
  replaceCode(assetDir: string) {
    this.#fn = movedTo(this.#fn, assetDir);
    this.#variables = { ...this.#variables, LAMBDA_TASK_ROOT: assetDir };
    for (const environment of this.#all) this.#stale.add(environment);
    for (const environment of [...this.#idle]) this.#fail(environment, 'its code was replaced');
  }

  /** Invocations so far (tests read it to prove what was or was not invoked). */
  get invocations() {
    return this.#invocations;
  }

  /**
   * One invocation, with a request id of its own (Lambda's `awsRequestId`, never API Gateway's request id), of the
   * alias `qualifier` when the caller names one (its ARN is then the function's, `:<alias>`). `streamed`: a
   * streaming handler's response is the outcome as it comes (InvokeWithResponseStream); else, as Lambda answers an
   * Invoke of such a function, the stream's bytes read whole are the result. An event over the request payload quota
   * is refused, as Lambda refuses it: the function never runs.
   */
  invoke(
    event: unknown,
    {
      requestId = randomUUID(),
      qualifier,
      streamed = false,
      onOutput,
    }: { requestId?: string; qualifier?: string; streamed?: boolean; onOutput?: (text: string) => void } = {},
  ): Promise<InvocationReport> {
    const json = JSON.stringify(event) ?? 'null';
    if (Buffer.byteLength(json) > maxRequestBytes)
      return Promise.resolve({ invocation: requestTooLarge, durationMs: 0, initMs: undefined });
    this.#invocations += 1;
    this.#inFlight += 1;
    recordEvent(this.#fn.id, json);
    return new Promise((resolve) => {
      const pending = {
        request: {
          event: json,
          requestId,
          ...(qualifier && { qualifier }),
          traceId: traceHeader(event),
          streamed,
          ...(onOutput && { onOutput }),
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
    clearTimeout(environment?.idleTimer);
    if (!environment) {
      this.#waiting.push(pending);
      return;
    }
    this.#run(environment, pending);
  }

  /** Starts an environment before any invocation asks for one; it takes the first waiting, or waits idle. */
  #warm() {
    const environment = this.#start(undefined);
    void environment.ready.then(() => {
      if (!this.#all.has(environment) || environment.current) return;
      if (this.#stale.has(environment)) return this.#fail(environment, 'its code was replaced');
      const next = this.#waiting.shift();
      if (next) this.#run(environment, next);
      else this.#rest(environment);
    });
  }

  /**
   * The environment waits idle for the next invocation; past the idle time it stops, as Lambda stops an environment
   * left idle (for a time AWS does not publish: docs/functions.md), and its memory is given back.
   */
  #rest(environment: ExecutionEnvironment) {
    this.#idle.push(environment);
    const idleMs = this.#idleMs;
    if (idleMs === undefined) return;
    environment.idleTimer = setTimeout(() => {
      (this.#say ?? console.error)(`an execution environment idle for ${idleMs / 1000} s stopped`);
      this.#fail(environment, 'idle');
    }, idleMs);
    environment.idleTimer.unref();
  }

  #start(pending: Pending | undefined): ExecutionEnvironment {
    const ready = Promise.withResolvers<number>();
    const started = performance.now();
    const environment: ExecutionEnvironment = {
      process: undefined,
      // What the runtime reports through its Runtime API, for the invocation it was given.
      api: startRuntimeApi({
        // The initialization counts from the process's start, as Lambda's Init Duration includes the runtime's.
        ready: () => ready.resolve(performance.now() - started),
        initError: (errorType, message) => this.#fail(environment, `init failed: ${errorType}: ${message}`),
        response: (requestId, body) =>
          this.#answered(environment, requestId, { outcome: 'result', result: parsedResult(body) }),
        error: (requestId, errorType, message) =>
          this.#answered(environment, requestId, { outcome: 'error', errorType, message }),
        stream: (requestId, contentType, body) => this.#streaming(environment, requestId, contentType, body),
      }),
      ready: ready.promise,
      current: undefined,
    };
    if (pending) pending.startsEnvironment = true;
    // Lambda gives a function's initialization 10 s.
    const initTimer = setTimeout(() => this.#timedOut(environment, 'init timed out after 10 s'), 10_000);
    initTimer.unref();
    void environment.ready.then(() => clearTimeout(initTimer));
    void environment.api.then((api) => {
      // Failed (or closed) before its Runtime API listened: nothing to start.
      if (!this.#all.has(environment)) return api.close();
      environment.process = this.#spawn(api.address, environment);
      environment.process.on('error', (error) => this.#fail(environment, `crashed: ${error.message}`));
      environment.process.on('exit', (code, signal) =>
        this.#fail(environment, signal === null ? `exited with code ${code}` : `ended by ${signal}`),
      );
    });
    this.#all.add(environment);
    return environment;
  }

  /** How the runtime's process starts (bootstrap.ts): its command line and the function's variables. */
  #bootstrap() {
    return bootstrapOf(this.#fn, this.#variables, {
      inspect: this.#inspect,
      runtimeSdk: this.#runtimeSdk,
      executeApi: Object.fromEntries(this.#executeApi ?? []),
    });
  }

  /**
   * The runtime's process, started as the runtime's bootstrap starts it on Lambda, told its Runtime API: a spare
   * handed the function's environment (spares.ts), else a process started for it. Its output goes to `logLine` (else
   * to this process's), and to the current invocation's `onOutput`.
   */
  #spawn(runtimeApi: string, environment: ExecutionEnvironment) {
    const logLine = this.#logLine;
    const start = this.#bootstrap();
    // As on Lambda: the function's code folder, and the runtime's environment alone (none of the runner's).
    const env = environmentVariables(start.variables, runtimeApi);
    const cwd = this.#fn.assetDir;
    const { language } = this.#fn.code;
    const handover = { env, cwd, settings: start.args.at(-1) ?? '' };
    const spare = language === 'provided' ? undefined : this.#spares?.take(start, language, handover);
    // In a process group of its own: a signal to the runner's group (Ctrl-C) leaves it to finish its invocation.
    const child = spare ?? spawnInOwnGroup(start.command, start.args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const output of [child.stdout, child.stderr]) {
      if (logLine && output) createInterface({ input: output }).on('line', logLine);
      output?.on('data', (chunk: Buffer) => environment.output?.(chunk.toString('utf8')));
    }
    // Without `logLine`, passed on to this process's output.
    if (!logLine) {
      child.stdout?.pipe(process.stdout, { end: false });
      child.stderr?.pipe(process.stderr, { end: false });
    }
    return child;
  }

  #run(environment: ExecutionEnvironment, pending: Pending) {
    environment.current = pending;
    environment.output = pending.request.onOutput;
    void Promise.all([environment.ready, environment.api]).then(([initMs, api]) => {
      if (environment.current !== pending) return;
      if (pending.startsEnvironment) pending.initMs = initMs;
      // As on Lambda, the function's timeout counts from the invocation, after any cold start.
      const timeoutMs = this.#fn.timeoutSeconds * 1000;
      const { event, requestId, qualifier, traceId } = pending.request;
      pending.timer = setTimeout(
        () => this.#timedOut(environment, `timed out after ${this.#fn.timeoutSeconds} s`),
        timeoutMs,
      );
      api.deliver({
        requestId,
        event,
        deadline: Date.now() + timeoutMs,
        // Called through an alias, the ARN the caller invoked ends with it (the runtime's context: invokedFunctionArn),
        // of the name the runtime gives as `context.functionName` (variables.ts).
        invokedFunctionArn: functionArn(
          this.#variables.AWS_LAMBDA_FUNCTION_NAME ?? this.#fn.id,
          qualifier || undefined,
        ),
        traceId,
      });
    });
  }

  /** A time limit passed: the environment ends, unless it is being debugged (it may be paused at a breakpoint). */
  #timedOut(environment: ExecutionEnvironment, reason: string) {
    if (!this.debugged) return this.#fail(environment, reason);
    const say = this.#logLine ?? this.#say ?? console.error;
    say(`${reason} on AWS; debugged (--inspect), it goes on`);
  }

  /**
   * The runtime began a streamed response to `requestId`: the invocation's outcome now (the gateway passes it on as it
   * comes), the environment and the function's timeout held until the stream ends.
   */
  #streaming(environment: ExecutionEnvironment, requestId: string, contentType: string, body: Readable) {
    const pending = environment.current;
    if (pending?.request.requestId !== requestId) return void body.destroy();
    if (!pending.request.streamed) return this.#collect(environment, requestId, body);
    const invocation: Invocation = { outcome: 'stream', contentType, body };
    pending.resolve({ invocation, durationMs: Date.now() - pending.started, initMs: pending.initMs });
    body.once('close', () => this.#answered(environment, requestId, invocation));
  }

  /**
   * A streamed response to an invocation that did not ask for a stream: its bytes read whole are the result, as Lambda
   * answers an Invoke of a streaming handler; over the response payload quota, the error Invoke gives then (the rest is
   * read to no one, so that the runtime's post ends).
   */
  #collect(environment: ExecutionEnvironment, requestId: string, body: Readable) {
    const chunks: Buffer[] = [];
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxResponseBytes) return void chunks.push(chunk);
      chunks.length = 0;
      this.#answered(environment, requestId, { outcome: 'error', ...responseTooLarge });
    });
    body.once('end', () => {
      if (bytes > maxResponseBytes) return;
      const result = parsedResult(Buffer.concat(chunks).toString('utf8'));
      this.#answered(environment, requestId, { outcome: 'result', result });
    });
    body.once('error', (error) => {
      const { errorType = 'Runtime.StreamCut' } = error as { errorType?: string };
      this.#answered(environment, requestId, { outcome: 'error', errorType, message: error.message });
    });
  }

  /** The runtime answered `requestId`: the current invocation's outcome, if it is that one. */
  #answered(environment: ExecutionEnvironment, requestId: string, invocation: Invocation) {
    if (environment.current?.request.requestId === requestId) this.#finish(environment, invocation);
  }

  #finish(environment: ExecutionEnvironment, invocation: Invocation) {
    const pending = environment.current;
    if (!pending) return;
    environment.current = undefined;
    this.#settle(pending, invocation);
    if (this.#stale.has(environment)) return this.#fail(environment, 'its code was replaced');
    const next = this.#waiting.shift();
    if (next) this.#run(environment, next);
    else this.#rest(environment);
  }

  /** The environment is gone (or must go): answer its invocation, and let the next waiting one start a new one. */
  #fail(environment: ExecutionEnvironment, reason: string) {
    if (!this.#all.delete(environment)) return;
    clearTimeout(environment.idleTimer);
    this.#stale.delete(environment);
    const index = this.#idle.indexOf(environment);
    if (index >= 0) this.#idle.splice(index, 1);
    if (environment.process) killGroup(environment.process);
    void environment.api.then((api) => api.close());
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
      [...this.#all].map(async ({ process, api }) => {
        (await api).close();
        if (!process || process.exitCode !== null || process.signalCode !== null) return;
        const exited = new Promise((resolve) => process.once('exit', resolve));
        killGroup(process);
        await exited;
      }),
    );
    this.#all.clear();
    this.#idle.length = 0;
  }
}
