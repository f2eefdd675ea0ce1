// What a stream mapping's poller does after each invocation of its function with a batch of a shard's records: which
// records are done (the checkpoint moves past them), which are discarded (their batch's record goes to the OnFailure
// destination), and which batches come next, in order. Plain functions of what happened, so that a property test can
// hold them against an oracle written apart (test/services/stream-batches.property.test.ts).
//
// Lambda's rules, from "Using Lambda with Kinesis Data Streams" and "Using Lambda with DynamoDB"
// (https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis.html, https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html)
// and their pages "Retain discarded batch records for a Kinesis Data Streams event source in Lambda"
// (kinesis-on-failure-destination.html) and "Configuring partial batch response with Kinesis Data Streams and Lambda"
// (services-kinesis-batchfailurereporting.html):
// - a function error retries the batch until MaximumRetryAttempts (-1: until the records expire), then discards it;
// - with BisectBatchOnFunctionError, a failed batch is split in two, each half retried on its own; "splitting batches
//   doesn't consume the retry quota": a half keeps the attempts of the batch it came from;
// - with ReportBatchItemFailures, the lowest sequence number named is the checkpoint: the records before it are done,
//   the rest retried ("the batch is bisected at the returned sequence number and Lambda retries only the remaining
//   records"), which counts as a failed attempt of those records;
// - MaximumRecordAgeInSeconds (-1: none) discards the records older than it before they are sent.

/** A run of records at the head of a partition's pending records, sent in one invocation, and its failed attempts. */
export interface Piece {
  length: number;
  attempts: number;
}

export interface RetryPolicy {
  bisect: boolean;
  /** -1: retried until the records expire. */
  maximumRetryAttempts: number;
}

/** What an invocation with a piece came to: every record done, done before index `failedAt`, or none done. */
export type BatchOutcome = { ok: true } | { failedAt: number } | { error: string };

export interface Decision {
  /** The records at the head of the piece that are done. */
  done: number;
  /** The records after those that are discarded: their retries are exhausted. */
  discarded: number;
  /** The pieces to send next, in order, from the first record after the done and discarded ones. */
  pieces: Piece[];
}

/** A piece that failed once more: retried, or discarded once its attempts are past MaximumRetryAttempts. */
const failedAgain = (piece: Piece, rest: Piece[], policy: RetryPolicy, done: number): Decision => {
  const attempts = piece.attempts + 1;
  if (policy.maximumRetryAttempts !== -1 && attempts > policy.maximumRetryAttempts)
    return { done, discarded: piece.length, pieces: rest };
  return { done, discarded: 0, pieces: [{ length: piece.length, attempts }, ...rest] };
};

/** After an invocation with `pieces[0]`, what is done, what is discarded, and what is sent next. */
export const decide = (pieces: Piece[], outcome: BatchOutcome, policy: RetryPolicy): Decision => {
  const [piece, ...rest] = pieces;
  if (piece === undefined) throw new Error('no batch was sent');
  if ('ok' in outcome) return { done: piece.length, discarded: 0, pieces: rest };
  if ('failedAt' in outcome) {
    const { failedAt } = outcome;
    return failedAgain({ length: piece.length - failedAt, attempts: piece.attempts }, rest, policy, failedAt);
  }
  if (policy.bisect && piece.length > 1) {
    const first = Math.ceil(piece.length / 2);
    const halves = [
      { length: first, attempts: piece.attempts },
      { length: piece.length - first, attempts: piece.attempts },
    ];
    return { done: 0, discarded: 0, pieces: [...halves, ...rest] };
  }
  return failedAgain(piece, rest, policy, 0);
};

/** How many of `arrivals` (epoch ms, in order), from the first, are older than `maximumAgeSeconds` (-1: none) at `now`. */
export const expiredCount = (arrivals: number[], now: number, maximumAgeSeconds: number) => {
  if (maximumAgeSeconds === -1) return 0;
  const oldest = now - maximumAgeSeconds * 1000;
  const kept = arrivals.findIndex((arrival) => arrival >= oldest);
  return kept === -1 ? arrivals.length : kept;
};

/**
 * The index of the lowest sequence number a ReportBatchItemFailures response names in `sequenceNumbers` (the batch's,
 * in order); undefined when it names none (complete success); `{ error }` when Lambda reads it as a complete failure
 * ("Success and failure conditions": an itemIdentifier empty, null, or naming no record of the batch).
 */
export const lowestFailure = (result: unknown, sequenceNumbers: string[]): BatchOutcome => {
  if (result === null || result === undefined) return { ok: true };
  if (typeof result !== 'object' || Array.isArray(result)) return { error: 'its response is not a batch response' };
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return { ok: true };
  if (!Array.isArray(failures)) return { error: 'its batchItemFailures is not a list' };
  let lowest: number | undefined;
  for (const failure of failures) {
    const id =
      typeof failure === 'object' && failure !== null ? (failure as Record<string, unknown>).itemIdentifier : undefined;
    const index = typeof id === 'string' ? sequenceNumbers.indexOf(id) : -1;
    if (index === -1)
      return { error: `its batchItemFailures names ${JSON.stringify(failure)}, no record of the batch` };
    lowest = Math.min(lowest ?? index, index);
  }
  return lowest === undefined ? { ok: true } : { failedAt: lowest };
};
