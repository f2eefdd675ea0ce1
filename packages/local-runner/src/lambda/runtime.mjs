// The runtime of one execution environment: a process of its own (started by pool.ts as the Lambda Node.js runtime's
// bootstrap starts it), which loads one function's bundle once, then answers invocations one at a time. Plain
// JavaScript, so that starting it costs what starting Lambda's runtime does: Node strips a .ts file's types with a
// WebAssembly compiler it loads on first use, some 140 ms a process here. The messages it exchanges with pool.ts are
// typed there (RuntimeSettings, RuntimeRequest, RuntimeMessage); events and results cross as JSON text, as they reach
// and leave a function on Lambda.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

if (!process.send) throw new Error('lambda/runtime.mjs runs in a process started by pool.ts, with an IPC channel');
const post = (message) => process.send?.(message);
// The runner gone (even by SIGKILL) closes the channel: an environment never outlives the runner that started it.
process.on('disconnect', () => process.exit(0));
// A terminal's Ctrl-C (or `kill -- -PGID`) reaches the whole process group, environments included. The runner stops
// on it, letting the invocations in flight finish first; the environments then end when it ends them, as on Lambda,
// where only Lambda ends an environment. (SIGKILL to the group still ends them at once.)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

const { functionId, runtime, modulePath, exportName, memoryMb, logFormat, region, accountId } = JSON.parse(
  process.argv[2],
);

/**
 * Up to nodejs22.x, Lambda's runtime takes a handler that answers through a callback or the context's succeed, fail
 * and done (aws/aws-lambda-nodejs-runtime-interface-client 3.x: Runtime.js, CallbackContext.js); from nodejs24.x its
 * runtime refuses, at init, a handler that declares a third parameter (the client's CallbackHandlerDeprecatedError and
 * its message, quoted below). `nodejs` alone, the oldest, names no version.
 */
const takesCallbacks = Number(/^nodejs(\d+)/.exec(runtime)?.[1] ?? 0) <= 22;
const callbackHandlerRefused =
  'ERROR: AWS Lambda has removed support for callback-based function handlers starting with Node.js 24. You need to modify this function to use a supported handler signature to use Node.js 24 or later. For more information see https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html.';

/** What keeps this process's event loop alive, by kind, before the function's code loads: the runtime's own. */
const countByKind = () => {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
};
// The standard streams' handles are made on first use: made now, they count as the runtime's own.
void process.stdout;
void process.stderr;
const runtimeResources = countByKind();

/**
 * Calls `then` once nothing but the runtime's own resources keeps the event loop alive: when Lambda's runtime sees the
 * loop empty (its beforeExit), where a callback's result waits while callbackWaitsForEmptyEventLoop is true. Looked at
 * every 10 ms by a timer that keeps nothing alive itself. A function that leaves a socket or a timer open waits, here as
 * on Lambda, until its timeout.
 */
const whenEventLoopEmpty = (then) => {
  const look = () => {
    const empty = [...countByKind()].every(([kind, count]) => count <= (runtimeResources.get(kind) ?? 0));
    if (empty) then();
    else setTimeout(look, 10).unref();
  };
  setTimeout(look, 0).unref();
};

/**
 * The line the Lambda Node.js runtime writes itself when a handler throws or rejects ("Invoke Error") or its module
 * fails to load ("Init Error"), in the
 * function's log format, as its LogPatch.js writes it (aws/aws-lambda-nodejs-runtime-interface-client): in JSON, a line
 * at level ERROR whose message is the error as errorType, errorMessage and stackTrace. Metric filters over the log
 * group see it as they see the function's own lines.
 */
const logError = (label, error, requestId) => {
  const timestamp = new Date().toISOString();
  const stack = typeof error.stack === 'string' ? error.stack.split('\n') : [];
  if (logFormat === 'JSON') {
    const message = { errorType: error.constructor.name, errorMessage: error.message, stackTrace: stack };
    console.error(JSON.stringify({ timestamp, level: 'ERROR', requestId, message }));
  } else {
    const formatted = JSON.stringify({ errorType: error.name, errorMessage: error.message, stack });
    console.error(`${timestamp}\t${requestId}\tERROR\t${label} \t${formatted}`);
  }
};

/** An error as the runtime reports it: an Error by its name and message; anything else by its type and text. */
const reported = (error) =>
  error instanceof Error
    ? { errorType: error.name, message: error.message }
    : { errorType: typeof error, message: String(error) };

/** The bundle's folder: /var/task on Lambda, where nothing lies above it. */
const taskRoot = process.env.LAMBDA_TASK_ROOT ?? dirname(modulePath);

/**
 * Whether a `.js` file of the bundle is an ES module as Lambda's runtime decides it (UserFunction.js,
 * `_hasFolderPackageJsonTypeModule`): by the nearest package.json's `type`, never past a node_modules folder, and here
 * never past the task root either: on Lambda nothing lies above /var/task, while locally the bundle sits in the user's
 * project, whose own package.json (`"type": "module"`) does not reach it there.
 */
const isModuleScope = (file) => {
  for (let dir = dirname(file); !dir.endsWith('/node_modules'); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
    if (dir === taskRoot || !dir.startsWith(`${taskRoot}/`)) return false;
  }
  return false;
};

// Node decides a .js file's format by its nearest package.json, wherever it is, and neither its module hooks nor a
// require() can tell its CommonJS loader otherwise for a file in a `"type": "module"` scope (a hook's format is not
// used: ERR_REQUIRE_CYCLE_MODULE). So the loader's `.js` handler (Module._extensions, a documentation-only deprecation,
// DEP0039) compiles the bundle's .js files in CommonJS scope as CommonJS, as Lambda loads them.
const loadJs = Module._extensions['.js'];
Module._extensions['.js'] = function (module, filename) {
  if (filename.startsWith(`${taskRoot}/`) && !isModuleScope(filename))
    return module._compile(readFileSync(filename, 'utf8'), filename, 'commonjs');
  return loadJs.call(this, module, filename);
};

let handler;
try {
  // As the runtime loads it: a .cjs file, or a .js one in CommonJS scope, by require(); the rest by import().
  const required = modulePath.endsWith('.cjs') || (modulePath.endsWith('.js') && !isModuleScope(modulePath));
  const module = required ? createRequire(modulePath)(modulePath) : await import(pathToFileURL(modulePath).href);
  handler = module[exportName];
  if (typeof handler !== 'function') throw new Error(`${modulePath} exports no function ${exportName}`);
  if (!takesCallbacks && handler.length >= 3) {
    const refused = new Error(callbackHandlerRefused);
    refused.name = 'Runtime.CallbackHandlerDeprecated';
    throw refused;
  }
  post({ type: 'ready' });
} catch (error) {
  logError('Init Error', error instanceof Error ? error : new Error(String(error)), undefined);
  const { errorType, message } = reported(error);
  // The runtime reports the failed init and ends, as Lambda's does (its /init/error); the next request starts anew.
  process.send?.({ type: 'init-error', message: `${errorType}: ${message}` }, () => process.exit(1));
  await new Promise(() => undefined);
}

/**
 * The X-Ray trace header of an invocation, which the runtime puts in `_X_AMZN_TRACE_ID` before each one (its
 * Lambda-Runtime-Trace-Id): the trace API Gateway began for the request (its X-Amzn-Trace-Id), else a new one.
 */
const traceHeader = (event) => {
  const headers = event?.headers;
  const sent = typeof headers?.['X-Amzn-Trace-Id'] === 'string' ? /Root=[^;]+/.exec(headers['X-Amzn-Trace-Id']) : null;
  const root = sent?.[0] ?? `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  return `${root};Parent=${randomBytes(8).toString('hex')};Sampled=0`;
};

const nodeJsExitMessage =
  'The Lambda runtime client detected an unexpected Node.js exit code. This is most commonly caused by a Promise that was never settled. For more information, see https://nodejs.org/docs/latest/api/process.html#exit-codes';
const runtimeError = (name, message) => Object.assign(new Error(message), { name });

/**
 * The callback, and the context's succeed, fail and done, as the runtime builds them (CallbackContext.js): the first
 * call of any of them is the outcome; the callback's result waits for the event loop to empty while
 * callbackWaitsForEmptyEventLoop is true; `fail()` with nothing fails as `handled`.
 */
const callbackStyle = (finish) => {
  let called = false;
  const once =
    (fn) =>
    (...args) => {
      if (called) return;
      called = true;
      fn(...args);
    };
  let waitForEmptyEventLoop = true;
  const done = (error, result) => finish(error !== undefined && error !== null ? { error } : { result });
  return {
    /** Whether the handler has answered through any of them (the runtime then drops its default listener). */
    answered: () => called,
    callback: once((error, result) => {
      if (error !== undefined && error !== null) finish({ error });
      else if (!waitForEmptyEventLoop) finish({ result });
      else whenEventLoopEmpty(() => finish({ result }));
    }),
    legacy: {
      get callbackWaitsForEmptyEventLoop() {
        return waitForEmptyEventLoop;
      },
      set callbackWaitsForEmptyEventLoop(value) {
        waitForEmptyEventLoop = value;
      },
      succeed: once((result) => done(null, result)),
      fail: once((error) => done(error ?? 'handled', null)),
      done: once(done),
    },
  };
};

process.on('message', async ({ id, event, requestId, qualifier, deadline }) => {
  const parsed = JSON.parse(event);
  process.env._X_AMZN_TRACE_ID = traceHeader(parsed);
  const context = {
    functionName: functionId,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST',
    // Called through an alias, the ARN the caller invoked ends with it (the runtime's context: invokedFunctionArn).
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${functionId}${qualifier ? `:${qualifier}` : ''}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    // As the runtime reads them, from its environment.
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  let finished = false;
  /** The invocation's outcome, once: its result as JSON, or its error (logged as the runtime logs it). */
  const finish = (outcome) => {
    if (finished) return;
    finished = true;
    if ('error' in outcome) {
      const error = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      logError('Invoke Error', error, requestId);
      post({ type: 'error', id, ...reported(outcome.error) });
      return;
    }
    let json;
    try {
      json = JSON.stringify(outcome.result) ?? 'null';
    } catch {
      // Not JSON (a bigint, a cycle): Lambda could not serialize it either.
      post({ type: 'error', id, errorType: 'Runtime.MalformedResult', message: 'The result cannot be serialized' });
      return;
    }
    post({ type: 'result', id, result: json });
  };
  if (!takesCallbacks) {
    try {
      finish({ result: await handler(parsed, context) });
    } catch (error) {
      finish({ error });
    }
    return;
  }
  const { answered, callback, legacy } = callbackStyle(finish);
  Object.defineProperties(context, Object.getOwnPropertyDescriptors(legacy));
  // As the runtime's default beforeExit listener: a handler that neither answers nor settles has answered null, or,
  // declared async, failed (a promise never settled).
  whenEventLoopEmpty(() => {
    if (answered()) return;
    finish(
      handler.constructor.name === 'AsyncFunction'
        ? { error: runtimeError('Runtime.NodeJsExit', nodeJsExitMessage) }
        : { result: null },
    );
  });
  try {
    const result = handler(parsed, context, callback);
    if (typeof result?.then === 'function') result.then(legacy.succeed, legacy.fail);
  } catch (error) {
    callback(error);
  }
});
