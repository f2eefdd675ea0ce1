// What the Runtime API's handlers share (runtime-api.ts lists them, a file each): one execution environment's side of
// the protocol (has it asked for an invocation yet, its waiting poll, the invocation queued for it, the one it was
// given), the answers' shape, the errors it answers with, and a posted body's reading.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { ClientAbortedError, readBody } from '../../request-body.ts';

/** An invocation as the runtime receives it: the event, and the headers of GET /invocation/next. */
export interface RuntimeInvocation {
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

/** A request the Runtime API refuses: its status and the ErrorResponse it answers (the OpenAPI description's). */
export class RuntimeApiError extends Error {
  override name = 'RuntimeApiError';
  readonly status: 400 | 403 | 404 | 413;
  readonly errorType: string;
  constructor(status: 400 | 403 | 404 | 413, errorType: string, message: string) {
    super(message);
    this.status = status;
    this.errorType = errorType;
  }
}

export const forbidden = (message: string) => new RuntimeApiError(403, 'Forbidden', message);

const invalidRequestId = (id: string) => new RuntimeApiError(400, 'InvalidRequestID', `Invalid request ID: ${id}`);

/** A synchronous invocation's response payload, at most (Lambda's quotas: 6 MB). */
export const maxResponseBytes = 6 * 1024 * 1024;

/**
 * The error an invocation whose response is over `maxResponseBytes` ends with: what Lambda's Invoke answers then (a
 * function error, `Function.ResponseSizeTooLarge`), a buffered response or a streamed one read whole.
 */
export const responseTooLarge = {
  errorType: 'Function.ResponseSizeTooLarge',
  message: `Response payload size exceeded maximum allowed payload size (${maxResponseBytes} bytes).`,
};

// Every answer has a Content-Length body, never a chunked one: a runtime's client may rely on it (runtime.mjs does).
export const json = (response: ServerResponse, status: number, body: object) => {
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
export const reportedError = (request: IncomingMessage, body: string) => {
  const header = request.headers['lambda-runtime-function-error-type'];
  const parsed = jsonObject(body);
  return {
    errorType: typeof parsed.errorType === 'string' ? parsed.errorType : String(header ?? 'Unhandled'),
    message: typeof parsed.errorMessage === 'string' ? parsed.errorMessage : body,
  };
};

/**
 * A posted body, as text, up to a response's limit (413 over it); undefined when the runtime went away mid-post
 * (killed at its timeout): nothing to answer, the pool has seen it go.
 */
export const postedBody = async (request: IncomingMessage): Promise<string | undefined> => {
  let read: Buffer | undefined;
  try {
    read = await readBody(request, maxResponseBytes);
  } catch (error) {
    if (error instanceof ClientAbortedError) return undefined;
    throw error;
  }
  if (read === undefined) throw new RuntimeApiError(413, 'RequestEntityTooLarge', 'Response payload too large');
  return read.toString('utf8');
};

/** One execution environment's side of the Runtime API: what its handlers read and change. */
export class Environment {
  readonly reports: RuntimeReports;
  /** It asked for an invocation once: its initialization is over. */
  initialized = false;
  /** The runtime's long poll, while it waits: one at a time. */
  waiting: ServerResponse | undefined;
  queued: RuntimeInvocation | undefined;
  /** The invocation given to the runtime and not yet answered. */
  current: string | undefined;

  constructor(reports: RuntimeReports) {
    this.reports = reports;
  }

  /** Gives `invocation` to the runtime's poll `response`. */
  hand(response: ServerResponse, invocation: RuntimeInvocation) {
    this.current = invocation.requestId;
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(invocation.event),
      'Lambda-Runtime-Aws-Request-Id': invocation.requestId,
      'Lambda-Runtime-Deadline-Ms': String(invocation.deadline),
      'Lambda-Runtime-Invoked-Function-Arn': invocation.invokedFunctionArn,
      'Lambda-Runtime-Trace-Id': invocation.traceId,
    });
    response.end(invocation.event);
  }

  /** Hands the runtime its next invocation: at once if it is waiting for one, else at its next poll. */
  deliver(invocation: RuntimeInvocation) {
    if (this.waiting) {
      const response = this.waiting;
      this.waiting = undefined;
      this.hand(response, invocation);
    } else this.queued = invocation;
  }

  /** The answer for `id` taken: it must be the invocation given (else 400), which is then answered. */
  answer(id: string) {
    if (id !== this.current) throw invalidRequestId(id);
    this.current = undefined;
  }
}
