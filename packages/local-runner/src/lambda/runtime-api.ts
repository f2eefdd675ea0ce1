// One execution environment's Lambda Runtime API, on loopback: the documented HTTP protocol between Lambda and every
// runtime ("Using the Lambda runtime API for custom runtimes" in the Lambda guide, and the OpenAPI description AWS
// publishes for it, version 2018-06-01). The runtime finds it through AWS_LAMBDA_RUNTIME_API (host:port), asks for the
// next invocation (a long poll), and posts each invocation's response or error, or its initialization's error.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientAbortedError, readBody } from '../request-body.ts';

/** An invocation as the runtime receives it: the event, and the headers of GET /invocation/next. */
interface RuntimeInvocation {
  requestId: string;
  /** The event, as JSON text. */
  event: string;
  /** Milliseconds since the epoch. */
  deadline: number;
  invokedFunctionArn: string;
  traceId: string;
}

/** What the runtime reports; each call once per invocation, for the invocation it was given. */
export interface RuntimeReports {
  /** The runtime asked for its first invocation: it is initialized. */
  ready: () => void;
  initError: (errorType: string, message: string) => void;
  /** The response, as the runtime posted it (text: a JSON document for a function's result). */
  response: (requestId: string, body: string) => void;
  error: (requestId: string, errorType: string, message: string) => void;
}

export interface RuntimeApi {
  /** AWS_LAMBDA_RUNTIME_API's value: host:port. */
  address: string;
  /** Hands the runtime its next invocation (at once if it is waiting for one). */
  deliver: (invocation: RuntimeInvocation) => void;
  close: () => void;
}

const base = '/2018-06-01/runtime';
/** A synchronous invocation's response payload, at most (Lambda's quotas: 6 MB). */
const maxResponseBytes = 6 * 1024 * 1024;

// Every answer has a Content-Length body, never a chunked one: a runtime's client may rely on it (runtime.mjs does).
const json = (response: ServerResponse, status: number, body: object) => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
};

/**
 * An error report's type and message: the standard Lambda error body (`{errorMessage, errorType, stackTrace}`), else,
 * as Lambda does when none can be read, the Lambda-Runtime-Function-Error-Type header.
 */
const reportedError = (request: IncomingMessage, body: string) => {
  const header = request.headers['lambda-runtime-function-error-type'];
  let parsed: { errorType?: unknown; errorMessage?: unknown } = {};
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    // Not the standard body: the header says what it was.
  }
  return {
    errorType: typeof parsed.errorType === 'string' ? parsed.errorType : String(header ?? 'Unhandled'),
    message: typeof parsed.errorMessage === 'string' ? parsed.errorMessage : body,
  };
};

/** Starts one environment's Runtime API on a free loopback port. */
export const startRuntimeApi = async (reports: RuntimeReports): Promise<RuntimeApi> => {
  let initialized = false;
  let waiting: ServerResponse | undefined;
  let queued: RuntimeInvocation | undefined;
  /** The invocation given to the runtime and not yet answered. */
  let current: string | undefined;

  const hand = (response: ServerResponse, invocation: RuntimeInvocation) => {
    current = invocation.requestId;
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(invocation.event),
      'Lambda-Runtime-Aws-Request-Id': invocation.requestId,
      'Lambda-Runtime-Deadline-Ms': String(invocation.deadline),
      'Lambda-Runtime-Invoked-Function-Arn': invocation.invokedFunctionArn,
      'Lambda-Runtime-Trace-Id': invocation.traceId,
    });
    response.end(invocation.event);
  };

  const server = createServer(async (request, response) => {
    const path = request.url ?? '';
    if (request.method === 'GET' && path === `${base}/invocation/next`) {
      if (!initialized) {
        initialized = true;
        reports.ready();
      }
      if (queued) {
        const invocation = queued;
        queued = undefined;
        hand(response, invocation);
      } else waiting = response;
      return;
    }
    const [, requestId, outcome] = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path) ?? [];
    const initError = path === `${base}/init/error`;
    if (request.method !== 'POST' || (!initError && !requestId)) {
      json(response, 404, {
        errorMessage: `${request.method} ${path} is not in the Runtime API`,
        errorType: 'NotFound',
      });
      return;
    }
    let read: Buffer | undefined;
    try {
      read = await readBody(request, maxResponseBytes);
    } catch (error) {
      // The runtime went away mid-post (killed at its timeout): nothing to answer; the pool has seen it go.
      if (error instanceof ClientAbortedError) return;
      throw error;
    }
    if (read === undefined) {
      json(response, 413, { errorMessage: 'Response payload too large', errorType: 'RequestEntityTooLarge' });
      return;
    }
    const body = read.toString('utf8');
    if (initError) {
      const { errorType, message } = reportedError(request, body);
      json(response, 202, { status: 'OK' });
      reports.initError(errorType, message);
      return;
    }
    const id = decodeURIComponent(requestId ?? '');
    if (id !== current) {
      json(response, 400, { errorMessage: `Invalid request ID: ${id}`, errorType: 'InvalidRequestID' });
      return;
    }
    current = undefined;
    json(response, 202, { status: 'OK' });
    if (outcome === 'response') reports.response(id, body);
    else {
      const { errorType, message } = reportedError(request, body);
      reports.error(id, errorType, message);
    }
  });
  // The runtime keeps its connection alive between invocations, as its clients do.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    deliver: (invocation) => {
      if (waiting) {
        const response = waiting;
        waiting = undefined;
        hand(response, invocation);
      } else queued = invocation;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
};
