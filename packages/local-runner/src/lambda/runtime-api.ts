// One execution environment's Lambda Runtime API, on loopback: the documented HTTP protocol between Lambda and every
// runtime ("Using the Lambda runtime API for custom runtimes" in the Lambda guide, and the OpenAPI description AWS
// publishes for it, version 2018-06-01). The runtime finds it through AWS_LAMBDA_RUNTIME_API (host:port), asks for the
// next invocation (a long poll), and posts each invocation's response or error, or its initialization's error.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { afterBody, rawResponse, respondingToEveryRequest } from '../http-server.ts';
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
  /**
   * A streamed response began (its chunks come in `body` as the runtime posts them); an error the runtime reports in
   * its trailers destroys `body` with a StreamedError.
   */
  stream: (requestId: string, contentType: string, body: Readable) => void;
}

/** The error a streaming response ended with (the Runtime API's Lambda-Runtime-Function-Error-Type and -Body trailers). */
export class StreamedError extends Error {
  override name = 'StreamedError';
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(message);
    this.errorType = errorType;
  }
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

/** The body as JSON, when it is a JSON object; else nothing of it. */
const jsonObject = (body: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/**
 * An error report's type and message: the standard Lambda error body (`{errorMessage, errorType, stackTrace}`), else,
 * as Lambda does "when error payload is not provided or can not be read" (the OpenAPI description), the
 * Lambda-Runtime-Function-Error-Type header. Any body is accepted: `null`, a number, text.
 */
const reportedError = (request: IncomingMessage, body: string) => {
  const header = request.headers['lambda-runtime-function-error-type'];
  const parsed = jsonObject(body);
  return {
    errorType: typeof parsed.errorType === 'string' ? parsed.errorType : String(header ?? 'Unhandled'),
    message: typeof parsed.errorMessage === 'string' ? parsed.errorMessage : body,
  };
};

/** A request the Runtime API refuses: its status and the ErrorResponse it answers (the OpenAPI description's). */
class RuntimeApiError extends Error {
  override name = 'RuntimeApiError';
  readonly status: 400 | 403 | 404 | 413;
  readonly errorType: string;
  constructor(status: 400 | 403 | 404 | 413, errorType: string, message: string) {
    super(message);
    this.status = status;
    this.errorType = errorType;
  }
}

const notInTheApi = (request: IncomingMessage, path: string) =>
  new RuntimeApiError(404, 'NotFound', `${request.method} ${path} is not in the Runtime API`);

const forbidden = (message: string) => new RuntimeApiError(403, 'Forbidden', message);

/**
 * Only the environment it serves may speak to a Runtime API (on Lambda nothing else reaches it). What can be told
 * apart on loopback: the Host must be the address AWS_LAMBDA_RUNTIME_API names (a page on a DNS-rebinding name sends
 * its own), and a request a browser sends carries Origin or the Fetch Metadata header Sec-Fetch-Site ("Fetch
 * Metadata Request Headers", W3C); Node's fetch, which a runtime may use, sends Sec-Fetch-Mode alone.
 */
const checkCaller = (request: IncomingMessage, address: string) => {
  if (request.headers.host !== address) throw forbidden(`the Runtime API answers only Host: ${address}`);
  if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined)
    throw forbidden('the Runtime API answers its execution environment, not a web page');
};

/** A path segment, percent-decoded; a bad encoding is the request's fault (400), never an error of the runner. */
const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RuntimeApiError(400, 'InvalidRequestID', `Invalid request ID: ${segment} (bad percent-encoding)`);
  }
};

/** Starts one environment's Runtime API on a free loopback port. */
export const startRuntimeApi = async (reports: RuntimeReports): Promise<RuntimeApi> => {
  let initialized = false;
  let address = '';
  /** The runtime's long poll, while it waits: one at a time. */
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

  const next = (response: ServerResponse) => {
    // A second poll while one waits is not the runtime's (it asks once at a time): refused, never swapped in.
    if (waiting) throw forbidden('a call to invocation/next is already waiting');
    if (!initialized) {
      initialized = true;
      reports.ready();
    }
    if (queued) {
      const invocation = queued;
      queued = undefined;
      hand(response, invocation);
      return;
    }
    waiting = response;
    // The poll's connection gone (its runtime ended), the next invocation waits for the next poll.
    response.once('close', () => {
      if (waiting === response) waiting = undefined;
    });
  };

  const post = async (request: IncomingMessage, response: ServerResponse, path: string) => {
    const [, encodedId, outcome] = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path) ?? [];
    const initError = path === `${base}/init/error`;
    if (!initError && encodedId === undefined) throw notInTheApi(request, path);
    // An initialization error ends the environment: once it has asked for an invocation, its initialization is over.
    if (initError && initialized) throw forbidden('the runtime is initialized: no initialization error now');
    const id = encodedId === undefined ? undefined : decoded(encodedId);
    if (outcome === 'response' && request.headers['lambda-runtime-function-response-mode'] === 'streaming')
      return streamed(request, response, id);
    let read: Buffer | undefined;
    try {
      read = await readBody(request, maxResponseBytes);
    } catch (error) {
      // The runtime went away mid-post (killed at its timeout): nothing to answer; the pool has seen it go.
      if (error instanceof ClientAbortedError) return;
      throw error;
    }
    if (read === undefined) throw new RuntimeApiError(413, 'RequestEntityTooLarge', 'Response payload too large');
    const body = read.toString('utf8');
    if (initError) {
      const { errorType, message } = reportedError(request, body);
      json(response, 202, { status: 'OK' });
      reports.initError(errorType, message);
      return;
    }
    if (id !== current) throw new RuntimeApiError(400, 'InvalidRequestID', `Invalid request ID: ${id}`);
    current = undefined;
    json(response, 202, { status: 'OK' });
    if (outcome === 'response') reports.response(id ?? '', body);
    else {
      const { errorType, message } = reportedError(request, body);
      reports.error(id ?? '', errorType, message);
    }
  };

  /**
   * A streamed response ("Using the Lambda runtime API for custom runtimes", response streaming): its chunks passed on
   * as they come; at its end, its trailers say whether it failed (Lambda-Runtime-Function-Error-Type, and the error
   * body, base64, in Lambda-Runtime-Function-Error-Body). The 6 MB limit of a buffered response does not apply.
   */
  const streamed = (request: IncomingMessage, response: ServerResponse, id: string | undefined) => {
    if (id !== current) throw new RuntimeApiError(400, 'InvalidRequestID', `Invalid request ID: ${id}`);
    current = undefined;
    const body = new PassThrough();
    let ended = false;
    request.on('data', (chunk: Buffer) => body.write(chunk));
    request.on('end', () => {
      ended = true;
      const errorType = request.trailers['lambda-runtime-function-error-type'];
      if (errorType === undefined) body.end();
      else {
        const encoded = request.trailers['lambda-runtime-function-error-body'] ?? '';
        const { message } = reportedError(request, Buffer.from(encoded, 'base64').toString('utf8'));
        body.destroy(new StreamedError(errorType, message));
      }
      json(response, 202, { status: 'OK' });
    });
    // The runtime gone before the end (killed at its timeout): the stream is cut.
    request.on('close', () => {
      if (!ended) body.destroy(new StreamedError('Runtime.StreamCut', 'the runtime ended before its response'));
    });
    reports.stream(id ?? '', String(request.headers['content-type'] ?? 'application/octet-stream'), body);
  };

  const server = createServer(async (request, response) => {
    // Total: whatever the request's bytes, an answer (a refusal in the Runtime API's ErrorResponse shape, or its 500,
    // "Container error"), and never an error that ends the runner.
    try {
      checkCaller(request, address);
      const path = request.url ?? '';
      if (request.method === 'GET' && path === `${base}/invocation/next`) next(response);
      else if (request.method === 'POST') await post(request, response, path);
      else throw notInTheApi(request, path);
    } catch (error) {
      if (response.headersSent) return void response.destroy();
      afterBody(request, response, () => {
        if (error instanceof RuntimeApiError)
          json(response, error.status, { errorMessage: error.message, errorType: error.errorType });
        else json(response, 500, { errorMessage: `Container error: ${String(error)}`, errorType: 'ContainerError' });
      });
    }
  });
  // CONNECT (a proxy tunnel) is no call of the Runtime API, and a request Node's parser refuses is none either: both
  // answered (http-server.ts), where Node would close the connection unanswered or reset it.
  respondingToEveryRequest(server, {
    tunnel: () =>
      rawResponse(
        404,
        [['Content-Type', 'application/json']],
        JSON.stringify({ errorMessage: 'CONNECT is not in the Runtime API', errorType: 'NotFound' }),
      ),
  });
  // The runtime keeps its connection alive between invocations, as its clients do.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    address,
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
