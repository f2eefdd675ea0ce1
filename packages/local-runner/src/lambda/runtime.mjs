// The runtime of one execution environment: a process of its own (started by pool.ts as the Lambda Node.js runtime's
// bootstrap starts it), which loads one function's bundle once, then answers invocations one at a time. Plain
// JavaScript, so that starting it costs what starting Lambda's runtime does: Node strips a .ts file's types with a
// WebAssembly compiler it loads on first use, some 140 ms a process here. The messages it exchanges with pool.ts are
// typed there (RuntimeSettings, RuntimeRequest, RuntimeMessage); events and results cross as JSON text, as they reach
// and leave a function on Lambda.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

if (!process.send) throw new Error('lambda/runtime.mjs runs in a process started by pool.ts, with an IPC channel');
const post = (message) => process.send?.(message);
// The runner gone (even by SIGKILL) closes the channel: an environment never outlives the runner that started it.
process.on('disconnect', () => process.exit(0));
// A terminal's Ctrl-C (or `kill -- -PGID`) reaches the whole process group, environments included. The runner stops
// on it, letting the invocations in flight finish first; the environments then end when it ends them, as on Lambda,
// where only Lambda ends an environment. (SIGKILL to the group still ends them at once.)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

const { functionId, modulePath, exportName, memoryMb, logFormat, region, accountId } = JSON.parse(process.argv[2]);

/**
 * The line the Lambda Node.js runtime writes itself when a handler throws or rejects ("Invoke Error"), in the
 * function's log format, as its LogPatch.js writes it (aws/aws-lambda-nodejs-runtime-interface-client): in JSON, a line
 * at level ERROR whose message is the error as errorType, errorMessage and stackTrace. Metric filters over the log
 * group see it as they see the function's own lines.
 */
const logInvokeError = (error, requestId) => {
  const timestamp = new Date().toISOString();
  const stack = typeof error.stack === 'string' ? error.stack.split('\n') : [];
  if (logFormat === 'JSON') {
    const message = { errorType: error.constructor.name, errorMessage: error.message, stackTrace: stack };
    console.error(JSON.stringify({ timestamp, level: 'ERROR', requestId, message }));
  } else {
    const formatted = JSON.stringify({ errorType: error.name, errorMessage: error.message, stack });
    console.error(`${timestamp}\t${requestId}\tERROR\tInvoke Error \t${formatted}`);
  }
};

let handler;
try {
  const module = await import(pathToFileURL(modulePath).href);
  handler = module[exportName];
  if (typeof handler !== 'function') throw new Error(`${modulePath} exports no function ${exportName}`);
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'init-error', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  throw error;
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

process.on('message', async ({ id, event, requestId, qualifier, deadline }) => {
  const parsed = JSON.parse(event);
  process.env._X_AMZN_TRACE_ID = traceHeader(parsed);
  const context = {
    callbackWaitsForEmptyEventLoop: true,
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
  try {
    const result = await handler(parsed, context);
    let json;
    try {
      json = JSON.stringify(result) ?? 'null';
    } catch {
      // Not JSON (a bigint, a cycle): Lambda could not serialize it either.
      post({ type: 'error', id, errorType: 'Runtime.MalformedResult', message: 'The result cannot be serialized' });
      return;
    }
    post({ type: 'result', id, result: json });
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    logInvokeError(error, requestId);
    post({ type: 'error', id, errorType: error.name, message: error.message });
  }
});
