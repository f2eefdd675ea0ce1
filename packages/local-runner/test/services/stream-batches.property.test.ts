// The decision a stream mapping's poller takes after each invocation (src/services/stream-batches.ts), run over random
// shards of records (some failing always, some failing a few times) and random settings, held against an oracle
// written apart from it: Lambda's rules said as a recursion over the batch, not as the poller's list of pieces.
// "Retain discarded batch records for a Kinesis Data Streams event source in Lambda"
// (https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html): a failed batch is retried until
// MaximumRetryAttempts, then discarded; BisectBatchOnFunctionError splits a failed batch in two, and "splitting batches
// doesn't consume the retry quota". "Configuring partial batch response with Kinesis Data Streams and Lambda"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html): with
// ReportBatchItemFailures, Lambda checkpoints at the lowest sequence number named and retries from it. A failure prints
// fast-check's seed: replay it with FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { type BatchOutcome, decide, type Piece } from '../../src/services/stream-batches.ts';

interface Settings {
  batchSize: number;
  bisect: boolean;
  reportFailures: boolean;
  maximumRetryAttempts: number;
}

/** A record: `fails` is how many invocations it fails (Infinity: always). */
interface Rec {
  id: number;
  fails: number;
}

/** What happened: each invocation's records, and each record's fate. */
interface Run {
  invocations: number[][];
  done: number[];
  discarded: number[];
  /** Done and discarded, in the order each was settled: the checkpoint's way through the shard. */
  settled: number[];
}

/** The function: a record fails while its count lasts; every record of the batch is tried. */
const functionOf = (records: Rec[], reportFailures: boolean) => {
  const left = new Map(records.map(({ id, fails }) => [id, fails]));
  return (batch: Rec[]): BatchOutcome => {
    const failing = batch.map(({ id }) => {
      const count = left.get(id) ?? 0;
      left.set(id, count - 1);
      return count > 0;
    });
    const first = failing.indexOf(true);
    if (first === -1) return { ok: true };
    return reportFailures ? { failedAt: first } : { error: 'failed' };
  };
};

/** The poller's way: the list of pieces `decide` keeps, a new batch of up to BatchSize once it is empty. */
const polled = (records: Rec[], settings: Settings): Run => {
  const invoke = functionOf(records, settings.reportFailures);
  const run: Run = { invocations: [], done: [], discarded: [], settled: [] };
  let pending = records;
  let pieces: Piece[] = [];
  while (pending.length > 0) {
    if (pieces.length === 0) pieces = [{ length: Math.min(settings.batchSize, pending.length), attempts: 0 }];
    const batch = pending.slice(0, pieces[0]?.length);
    run.invocations.push(batch.map(({ id }) => id));
    const decision = decide(pieces, invoke(batch), settings);
    run.done.push(...batch.slice(0, decision.done).map(({ id }) => id));
    run.discarded.push(...batch.slice(decision.done, decision.done + decision.discarded).map(({ id }) => id));
    run.settled.push(...batch.slice(0, decision.done + decision.discarded).map(({ id }) => id));
    pending = pending.slice(decision.done + decision.discarded);
    pieces = decision.pieces;
  }
  return run;
};

/** The oracle: each batch of BatchSize sent; a failed one bisected (its halves one after the other) or retried. */
const oracle = (records: Rec[], settings: Settings): Run => {
  const invoke = functionOf(records, settings.reportFailures);
  const run: Run = { invocations: [], done: [], discarded: [], settled: [] };
  const ids = (batch: Rec[]) => batch.map(({ id }) => id);
  const retry = (batch: Rec[], failures: number) => {
    const { maximumRetryAttempts: most } = settings;
    if (most !== -1 && failures > most) {
      run.discarded.push(...ids(batch));
      run.settled.push(...ids(batch));
    } else send(batch, failures);
  };
  const send = (batch: Rec[], failures: number): void => {
    if (batch.length === 0) return;
    run.invocations.push(ids(batch));
    const outcome = invoke(batch);
    const succeeded = (some: Rec[]) => {
      run.done.push(...ids(some));
      run.settled.push(...ids(some));
    };
    if ('ok' in outcome) succeeded(batch);
    else if ('failedAt' in outcome) {
      succeeded(batch.slice(0, outcome.failedAt));
      retry(batch.slice(outcome.failedAt), failures + 1);
    } else if (settings.bisect && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      send(batch.slice(0, half), failures);
      send(batch.slice(half), failures);
    } else retry(batch, failures + 1);
  };
  for (let start = 0; start < records.length; start += settings.batchSize)
    send(records.slice(start, start + settings.batchSize), 0);
  return run;
};

const settings = fc.record({
  batchSize: fc.integer({ min: 1, max: 8 }),
  bisect: fc.boolean(),
  reportFailures: fc.boolean(),
  maximumRetryAttempts: fc.integer({ min: -1, max: 3 }),
});
const fails = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) },
  { weight: 1, arbitrary: fc.constant(Number.POSITIVE_INFINITY) },
);
const shard = fc
  .array(fails, { maxLength: 20 })
  .map((counts) => counts.map((count, id): Rec => ({ id, fails: count })));

test('each record is done or discarded once, in order, by the same invocations as the oracle sends', () => {
  fc.assert(
    fc.property(shard, settings, (records, chosen) => {
      // A record failing always with unlimited retries blocks its shard for good, as on AWS: not generated.
      fc.pre(chosen.maximumRetryAttempts !== -1 || records.every(({ fails }) => Number.isFinite(fails)));
      const run = polled(records, chosen);
      expect(run).toEqual(oracle(records, chosen));
      expect(run.settled).toEqual(records.map(({ id }) => id));
      // Bisecting on function errors isolates: a record that never fails is never discarded.
      if (chosen.bisect && !chosen.reportFailures)
        for (const id of run.discarded) expect(records[id]?.fails).toBeGreaterThan(0);
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 20_000 : 2_000 },
  );
});
