// Runs inside a worker thread: loads one function's bundle once, then answers invocations one at a time.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { localAws } from '../app/intrinsics.ts';

export interface WorkerData {
  functionId: string;
  modulePath: string;
  exportName: string;
  memoryMb: number;
  logFormat: 'JSON' | 'Text';
}

/**
 * Events and results cross as JSON text, as they reach and leave a function on Lambda (and a string is far cheaper to
 * pass between threads than the structured clone of an object).
 */
export type WorkerRequest = { id: number; event: string; requestId: string; qualifier?: string; deadline: number };
export type WorkerMessage =
  | { type: 'ready'; initMs: number }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; result: string }
  | { type: 'error'; id: number; errorType: string; message: string };

const port = parentPort;
if (!port) throw new Error('lambda/worker.ts runs in a worker thread');
const { functionId, modulePath, exportName, memoryMb, logFormat } = workerData as WorkerData;
if (/--enable-source-maps/.test(process.env.NODE_OPTIONS ?? '')) process.setSourceMapsEnabled(true);

const post = (message: WorkerMessage) => port.postMessage(message);

/**
 * The line the Lambda Node.js runtime writes itself when a handler throws or rejects ("Invoke Error"), in the
 * function's log format, as its LogPatch.js writes it (aws/aws-lambda-nodejs-runtime-interface-client): in JSON, a line
 * at level ERROR whose message is the error as errorType, errorMessage and stackTrace. Metric filters over the log
 * group see it as they see the function's own lines.
 */
const logInvokeError = (error: Error, requestId: string) => {
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

const started = performance.now();
let handler: (event: unknown, context: unknown) => unknown;
try {
  const module = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  const exported = module[exportName];
  if (typeof exported !== 'function') throw new Error(`${modulePath} exports no function ${exportName}`);
  handler = exported as typeof handler;
  post({ type: 'ready', initMs: performance.now() - started });
} catch (error) {
  post({ type: 'init-error', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  throw error;
}

/**
 * The X-Ray trace header of an invocation, which the runtime puts in `_X_AMZN_TRACE_ID` before each one (its
 * Lambda-Runtime-Trace-Id): the trace API Gateway began for the request (its X-Amzn-Trace-Id), else a new one.
 */
const traceHeader = (event: unknown) => {
  const headers = (event as { headers?: Record<string, unknown> } | null)?.headers;
  const sent = typeof headers?.['X-Amzn-Trace-Id'] === 'string' ? /Root=[^;]+/.exec(headers['X-Amzn-Trace-Id']) : null;
  const root = sent?.[0] ?? `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  return `${root};Parent=${randomBytes(8).toString('hex')};Sampled=0`;
};

port.on('message', async ({ id, event, requestId, qualifier, deadline }: WorkerRequest) => {
  const parsed: unknown = JSON.parse(event);
  process.env._X_AMZN_TRACE_ID = traceHeader(parsed);
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: functionId,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST',
    // Called through an alias, the ARN the caller invoked ends with it (the runtime's context: invokedFunctionArn).
    invokedFunctionArn: `arn:aws:lambda:${localAws.region}:${localAws.accountId}:function:${functionId}${qualifier ? `:${qualifier}` : ''}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    // As the runtime reads them, from its environment.
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(parsed, context);
    let json: string;
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
