// An error the database process answers itself (the streams, the stream settings of tables, transactions), in
// DynamoDB's JSON shape: status 400 unless said, `{ "__type": "com.amazonaws.dynamodb.v20120810#<type>", "message" }`.
import type { ServerResponse } from 'node:http';

export class DatabaseError extends Error {
  override name = 'DatabaseError';
  readonly type: string;
  readonly status: number;
  /** Other members of the answer (TransactionCanceledException's CancellationReasons). */
  readonly extra: Record<string, unknown>;
  constructor(type: string, message: string, status = 400, extra: Record<string, unknown> = {}) {
    super(message);
    this.type = type;
    this.status = status;
    this.extra = extra;
  }
}

/** Answers `body` as JSON 1.0, with the status given. */
export const sendJson = (response: ServerResponse, status: number, body: unknown) =>
  response
    .writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': crypto.randomUUID() })
    .end(JSON.stringify(body));

/** Answers `error`: a DatabaseError as itself, dynalite's (statusCode, body) as dynalite would; else rethrows it. */
export const sendError = (response: ServerResponse, error: unknown) => {
  if (error instanceof DatabaseError)
    return sendJson(response, error.status, {
      __type: `com.amazonaws.dynamodb.v20120810#${error.type}`,
      message: error.message,
      ...error.extra,
    });
  const { statusCode, body } = error as DynaliteError;
  if (statusCode !== undefined && body !== undefined) return sendJson(response, statusCode, body);
  throw error;
};
