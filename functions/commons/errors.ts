// The errors the functions raise on purpose. Each names what went wrong in words a client may read;
// http-errors.ts is the one place that turns them (and anything else) into HTTP answers.

/** The request is not acceptable as it is: 400. */
export class InvalidRequestError extends Error {
  override name = 'InvalidRequestError';
}

/** The request body is over the configured limit: 413. */
export class PayloadTooLargeError extends Error {
  override name = 'PayloadTooLargeError';
}

/** The request contradicts what is stored: 409. */
export class ConflictError extends Error {
  override name = 'ConflictError';
}

/** A dependency is unavailable or throttling; the same request may succeed later: 503. */
export class UnavailableError extends Error {
  override name = 'UnavailableError';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
