// The errors the functions raise on purpose. Each carries the HTTP status that answers it and names what went wrong
// in words a client may read; http-errors.ts is the one place that turns them (and anything else) into responses.

/** An error a client is told about: its status, its message, and any headers the response needs. */
export abstract class HttpError extends Error {
  abstract readonly statusCode: number;
  readonly expose = true;
  get headers(): Record<string, string> {
    return {};
  }
}

/** The request is not acceptable as it is: 400. */
export class InvalidRequestError extends HttpError {
  override name = 'InvalidRequestError';
  readonly statusCode = 400;
}

/** What the request names does not exist: 404. */
export class NotFoundError extends HttpError {
  override name = 'NotFoundError';
  readonly statusCode = 404;
}

/** The request contradicts what is stored: 409. */
export class ConflictError extends HttpError {
  override name = 'ConflictError';
  readonly statusCode = 409;
}

/** The request body is over the configured limit: 413. */
export class PayloadTooLargeError extends HttpError {
  override name = 'PayloadTooLargeError';
  readonly statusCode = 413;
}

/** The request body is not in a media type (or character set) the API reads: 415. */
export class UnsupportedMediaTypeError extends HttpError {
  override name = 'UnsupportedMediaTypeError';
  readonly statusCode = 415;
}

/**
 * How long a client waits before retrying a 503, the functions' and the gateway's alike (`Retry-After`, RFC 9110
 * section 10.2.3): a second covers a throttled request's backoff and a function's next cold start.
 */
export const retryAfterSeconds = 1;

/** A dependency is unavailable or throttling, or the invocation ran out of time; a retry may succeed: 503. */
export class UnavailableError extends HttpError {
  override name = 'UnavailableError';
  readonly statusCode = 503;
  override get headers() {
    return { 'Retry-After': String(retryAfterSeconds) };
  }
}
