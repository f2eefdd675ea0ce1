// Lambda's event source mappings of Kinesis streams and DynamoDB streams, run locally: a poller per mapping reads each
// shard over the stream service's own API (stream-client.ts), as Lambda's pollers do, and runs the function with
// batches of its records, with the semantics of "Using Lambda with Kinesis Data Streams"
// (https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis.html) and "Using Lambda with DynamoDB"
// (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html) and their pages:
// - each shard read from StartingPosition (TRIM_HORIZON, LATEST, AT_TIMESTAMP), then from where the mapping got to
//   (its checkpoint, kept in the data folder); a shard's children once the shard is read to its end;
// - polled at Lambda's base rate (once a second for Kinesis, four times for DynamoDB Streams), and at once when the
//   stream service says records were appended (its `onAppend`);
// - batches of up to BatchSize, gathered for up to MaximumBatchingWindowInSeconds;
// - FilterCriteria matched against each record (a Kinesis record's `data` decoded, as JSON when it is: "Using event
//   filtering with a Kinesis event source", with-kinesis-filtering.html; a DynamoDB record as it is,
//   with-ddb-filtering.html); a record no filter matches is passed over;
// - one batch in flight per shard, in order; with a ParallelizationFactor, one per partition of the shard, the records
//   of a partition key (a Kinesis record's PartitionKey, a DynamoDB item's keys) always in the same partition;
// - retries, bisection, ReportBatchItemFailures and MaximumRecordAgeInSeconds as stream-batches.ts decides them; a
//   discarded batch's invocation record (its shard and sequence range, not its records) to DestinationConfig.OnFailure
//   ("Retain discarded batch records for a Kinesis Data Streams event source in Lambda", kinesis-on-failure-destination.html).
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { StreamMapping } from '../app/event-source-mappings.ts';
import { functionArn } from '../app/return-values.ts';
import { failureOf } from '../lambda/pool.ts';
import { type CompiledPattern, compilePattern, matchesPattern } from './event-pattern.ts';
import type { StateFile } from './state-file.ts';
import { type BatchOutcome, decide, expiredCount, lowestFailure, type Piece } from './stream-batches.ts';
import {
  type IteratorStart,
  type ListedShard,
  type PolledRecord,
  StreamApiError,
  type StreamClient,
  streamClient,
} from './stream-client.ts';
import { type Invoker, TargetError, type Targets } from './targets.ts';

/** Lambda's base rate of polling a shard ("Polling and batching streams" of each page). */
const pollMs = { kinesis: 1000, dynamodb: 250 };
/** How long a failed batch waits before it is sent again (Lambda's own pause is not documented). */
const retryMs = 1000;
/** The most records one GetRecords returns (Kinesis's and DynamoDB Streams' Limit). */
const maxGetLimit = 10_000;

/**
 * What the services answer a GetShardIterator after a sequence number they do not hold: Kinesis's
 * InvalidArgumentException, DynamoDB Streams' ValidationException, or (the record past retention)
 * TrimmedDataAccessException.
 */
const checkpointRefusals = ['InvalidArgumentException', 'ValidationException', 'TrimmedDataAccessException'];

/** Where each mapping got to in each shard: the last sequence number done with, by `mapping stream shard`. */
export interface StreamCheckpoints {
  checkpoints: Record<string, string>;
}
export const emptyCheckpoints = (): StreamCheckpoints => ({ checkpoints: {} });

/** What every shard of one mapping shares. */
interface MappingContext {
  mapping: StreamMapping;
  /** How the log names the mapping's deliveries: `Kinesis <stream> -> <function>`. */
  label: string;
  client: StreamClient;
  invoke: Invoker;
  targets: Targets;
  log: (line: string) => void;
  checkpoints: StateFile<StreamCheckpoints>;
  filters: CompiledPattern[];
  stop: AbortController;
  /** Emits `wake` when records were appended to the stream or a batch ended. */
  events: EventEmitter;
}

/** Resolves after `ms`, on a `wake`, or when the mapping stops. */
const pause = (context: MappingContext, ms: number) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      context.events.off('wake', done);
      context.stop.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    context.events.on('wake', done);
    context.stop.signal.addEventListener('abort', done);
  });

/** A partition of a shard: its records not yet done with, in order, and the batches (pieces) to send next. */
interface Partition {
  pending: PolledRecord[];
  pieces: Piece[];
  busy: boolean;
  /** When the batching window of the records not yet in a batch began (epoch ms). */
  since: number;
  timer?: NodeJS.Timeout;
}

/** A stable partition for `key`, of `count`. */
const partitionOf = (key: string, count: number) => {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return hash % count;
};

/** The reader of one shard of a mapping's stream, and the batches of its partitions. */
class ShardPoller {
  readonly #context: MappingContext;
  readonly #shard: string;
  readonly #key: string;
  readonly #partitions: Partition[];
  /** The records read, in order, each until it and every record before it are done with. */
  readonly #open: { record: PolledRecord; settled: boolean }[] = [];
  readonly #batches = new Set<Promise<void>>();
  #lastRead: string | undefined;
  /** The last GetRecords failed (said once until one succeeds). */
  #failing = false;

  constructor(context: MappingContext, shard: string) {
    this.#context = context;
    this.#shard = shard;
    this.#key = `${context.mapping.source} ${context.mapping.streamArn} ${shard}`;
    this.#partitions = Array.from({ length: context.mapping.parallelization }, () => ({
      pending: [],
      pieces: [],
      busy: false,
      since: 0,
    }));
  }

  get #stopped() {
    return this.#context.stop.signal.aborted;
  }

  /** Reads the shard until it is closed and every record is done with, or the mapping stops. */
  async run(start: IteratorStart) {
    const { mapping } = this.#context;
    let iterator: string | undefined = await this.#firstIterator(start);
    // Read ahead up to what one GetRecords gives, so that every partition has its records while another waits.
    const capacity = maxGetLimit;
    while (!this.#stopped && (iterator !== undefined || this.#open.length > 0)) {
      if (iterator === undefined || this.#pendingCount() >= capacity) {
        await pause(this.#context, pollMs[mapping.kind]);
        continue;
      }
      const read = await this.#read(iterator, start, capacity - this.#pendingCount());
      iterator = read.next;
      this.#take(read.records);
      if (read.records.length === 0 && iterator !== undefined) await pause(this.#context, pollMs[mapping.kind]);
    }
    for (const partition of this.#partitions) clearTimeout(partition.timer);
    await Promise.all(this.#batches);
  }

  /**
   * The shard's first iterator: after the mapping's checkpoint in it, else from `start`; from `start` too when the
   * checkpoint is no sequence number of the shard (the stream was made again), or from its oldest record when the
   * checkpoint's record is past the stream's retention, said.
   */
  async #firstIterator(start: IteratorStart) {
    const { client, label, log } = this.#context;
    const checkpoint = this.#context.checkpoints.read().checkpoints[this.#key];
    this.#lastRead = checkpoint;
    const from = async (position: IteratorStart, why: string) => {
      const iterator = await client.iterator(this.#shard, position);
      log(`${label}: ${this.#shard} read ${why}`);
      return iterator;
    };
    if (checkpoint === undefined) return from(start, `from ${start.type}`);
    try {
      return await from({ type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: checkpoint }, `after ${checkpoint}`);
    } catch (error) {
      if (!(error instanceof StreamApiError) || !checkpointRefusals.includes(error.type)) throw error;
      this.#lastRead = undefined;
      // Past the stream's retention, its oldest record is the next; a number of another stream, the start.
      const next: IteratorStart = error.type === 'TrimmedDataAccessException' ? { type: 'TRIM_HORIZON' } : start;
      return from(next, `from ${next.type} (its checkpoint ${checkpoint} is no record of it any more)`);
    }
  }

  /**
   * GetRecords; an expired iterator renewed after the last record read; a call that failed otherwise (the service
   * busy or restarting) made again at the next poll, said once. A stream gone (ResourceNotFoundException) ends it.
   */
  async #read(iterator: string, start: IteratorStart, limit: number) {
    const { client, label, log, mapping } = this.#context;
    try {
      const read = await client.records(this.#shard, iterator, limit);
      this.#failing = false;
      return read;
    } catch (error) {
      if (error instanceof StreamApiError && error.type === 'ResourceNotFoundException') throw error;
      if (error instanceof StreamApiError && error.type === 'ExpiredIteratorException') {
        const from: IteratorStart =
          this.#lastRead === undefined ? start : { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: this.#lastRead };
        return { records: [], next: await client.iterator(this.#shard, from) };
      }
      if (!this.#failing) log(`${label}: GetRecords failed on ${this.#shard} (${String(error)}): tried again`);
      this.#failing = true;
      await pause(this.#context, pollMs[mapping.kind]);
      return { records: [], next: iterator };
    }
  }

  #pendingCount() {
    return this.#partitions.reduce((sum, { pending }) => sum + pending.length, 0);
  }

  /** Records read: those no filter matches passed over, the others to their partitions. */
  #take(records: PolledRecord[]) {
    const { mapping, filters } = this.#context;
    let filtered = 0;
    for (const record of records) {
      this.#lastRead = record.sequenceNumber;
      const kept = filters.length === 0 || filters.some((filter) => matchesPattern(filter, record.filtered));
      this.#open.push({ record, settled: !kept });
      if (!kept) {
        filtered += 1;
        continue;
      }
      const partition = this.#partitions[partitionOf(record.partitionKey, mapping.parallelization)] as Partition;
      if (partition.pending.length === partition.pieces.reduce((sum, { length }) => sum + length, 0))
        partition.since = Date.now();
      partition.pending.push(record);
    }
    if (filtered > 0) this.#context.log(`${this.#context.label}: ${filtered} filtered out`);
    this.#settle([]);
    for (const partition of this.#partitions) this.#pump(partition);
  }

  /** Marks `records` done with, and moves the checkpoint past every record done with from the first. */
  #settle(records: PolledRecord[]) {
    const settled = new Set(records);
    for (const entry of this.#open) if (settled.has(entry.record)) entry.settled = true;
    let last: string | undefined;
    while (this.#open[0]?.settled) last = this.#open.shift()?.record.sequenceNumber;
    if (last === undefined) return;
    const state = this.#context.checkpoints.read();
    state.checkpoints[this.#key] = last;
    this.#context.checkpoints.write(state);
  }

  /** Sends the partition's next batch, when none is in flight and one is due (full, or its window over). */
  #pump(partition: Partition) {
    if (partition.busy || this.#stopped) return;
    const { batchSize, windowSeconds } = this.#context.mapping;
    if (partition.pieces.length === 0) {
      if (partition.pending.length === 0) return;
      const due = partition.since + windowSeconds * 1000;
      if (partition.pending.length < batchSize && Date.now() < due) {
        clearTimeout(partition.timer);
        partition.timer = setTimeout(() => this.#pump(partition), due - Date.now());
        return;
      }
      partition.pieces = [{ length: Math.min(batchSize, partition.pending.length), attempts: 0 }];
      partition.since = Date.now();
    }
    partition.busy = true;
    const sent: Promise<void> = this.#send(partition)
      .catch((error: unknown) => this.#context.log(`${this.#context.label}: a batch failed: ${String(error)}`))
      .finally(() => {
        this.#batches.delete(sent);
        partition.busy = false;
        this.#context.events.emit('wake');
        this.#pump(partition);
      });
    this.#batches.add(sent);
  }

  /** Sends the partition's first piece (its expired records discarded first), and does what `decide` says. */
  async #send(partition: Partition) {
    const { mapping, label, log } = this.#context;
    const piece = partition.pieces[0] as Piece;
    const batch = partition.pending.slice(0, piece.length);
    const expired = expiredCount(
      batch.map(({ arrival }) => arrival),
      Date.now(),
      mapping.maximumRecordAgeSeconds,
    );
    if (expired > 0) {
      await this.#discard(batch.slice(0, expired), { condition: 'MaximumRecordAgeExceeded', attempts: piece.attempts });
      partition.pending.splice(0, expired);
      partition.pieces =
        piece.length === expired
          ? partition.pieces.slice(1)
          : [{ ...piece, length: piece.length - expired }, ...partition.pieces.slice(1)];
      this.#settle(batch.slice(0, expired));
      return;
    }
    const outcome = await this.#invoke(batch);
    if (outcome === undefined) return;
    const decision = decide(partition.pieces, outcome, mapping);
    const done = batch.slice(0, decision.done);
    const discarded = batch.slice(decision.done, decision.done + decision.discarded);
    log(`${label}: batch of ${batch.length} from ${this.#shard}: ${shownOutcome(outcome, decision, piece)}`);
    if (discarded.length > 0)
      await this.#discard(discarded, { condition: 'RetryAttemptsExhausted', attempts: piece.attempts + 1, outcome });
    partition.pending.splice(0, done.length + discarded.length);
    partition.pieces = decision.pieces;
    this.#settle([...done, ...discarded]);
    const next = decision.pieces[0];
    if (next && next.attempts > piece.attempts) await pause(this.#context, retryMs);
  }

  /** Runs the function with `batch`; undefined when the function is not served (the mapping then stops). */
  async #invoke(batch: PolledRecord[]): Promise<BatchOutcome | undefined> {
    const { mapping, invoke, label, log, stop } = this.#context;
    try {
      const { invocation } = await invoke(mapping.functionName, { Records: batch.map(({ event }) => event) });
      if (invocation.outcome !== 'result') return { error: failureOf(invocation) };
      if (!mapping.reportFailures) return { ok: true };
      return lowestFailure(
        invocation.result,
        batch.map(({ sequenceNumber }) => sequenceNumber),
      );
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      stop.abort();
      log(`${label}: ${error.message}; the stream is no longer polled`);
      return undefined;
    }
  }

  /** Records discarded: their batch's invocation record to the OnFailure destination, if the mapping has one. */
  async #discard(records: PolledRecord[], why: { condition: string; attempts: number; outcome?: BatchOutcome }) {
    const { mapping, label, log, targets } = this.#context;
    const first = records[0] as PolledRecord;
    const last = records.at(-1) as PolledRecord;
    const said = `${records.length} record${records.length > 1 ? 's' : ''} ${first.sequenceNumber} to ${last.sequenceNumber} discarded (${why.condition})`;
    if (!mapping.onFailure) {
      log(`${label}: ${said}; no OnFailure destination`);
      return;
    }
    const info = {
      shardId: this.#shard,
      startSequenceNumber: first.sequenceNumber,
      endSequenceNumber: last.sequenceNumber,
      approximateArrivalOfFirstRecord: new Date(first.arrival).toISOString(),
      approximateArrivalOfLastRecord: new Date(last.arrival).toISOString(),
      batchSize: records.length,
      streamArn: mapping.streamArn,
    };
    const record = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: functionArn(mapping.functionName),
        condition: why.condition,
        approximateInvokeCount: why.attempts,
      },
      ...(why.outcome && {
        responseContext: {
          statusCode: 200,
          executedVersion: '$LATEST',
          ...('error' in why.outcome && { functionError: 'Unhandled' }),
        },
      }),
      version: '1.0',
      timestamp: new Date().toISOString(),
      [mapping.kind === 'kinesis' ? 'KinesisBatchInfo' : 'DDBStreamBatchInfo']: info,
    };
    try {
      await targets.deliver(mapping.onFailure, {
        body: JSON.stringify(record),
        source: `lambda:${mapping.functionName}`,
      });
      log(`${label}: ${said}; its record sent to ${mapping.onFailure}`);
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      log(`${label}: ${said}; its record not sent (${error.message})`);
    }
  }
}

const shownOutcome = (outcome: BatchOutcome, decision: ReturnType<typeof decide>, piece: Piece) => {
  if ('ok' in outcome) return 'ok';
  const failure = 'error' in outcome ? `error (${outcome.error})` : `failed from record ${outcome.failedAt + 1}`;
  if (decision.discarded > 0) return `${failure}: ${decision.discarded} discarded`;
  if ((decision.pieces[0]?.attempts ?? 0) > piece.attempts) return `${failure}: retried`;
  return `${failure}: bisected`;
};

/** Where a shard is read from first: the mapping's StartingPosition, or a child's parent's end (TRIM_HORIZON). */
const startOf = (mapping: StreamMapping, afterParent: boolean): IteratorStart => {
  if (afterParent || mapping.startingPosition === 'TRIM_HORIZON') return { type: 'TRIM_HORIZON' };
  if (mapping.startingPosition === 'LATEST') return { type: 'LATEST' };
  return { type: 'AT_TIMESTAMP', timestamp: mapping.startingTimestamp ?? 0 };
};

/** The poller of one mapping: a ShardPoller for each shard, a child's once its parent is read to its end. */
class StreamPoller {
  readonly #context: MappingContext;
  #running: Promise<void> | undefined;

  constructor(context: MappingContext) {
    this.#context = context;
  }

  start() {
    this.#running = this.#run().catch((error: unknown) => this.#failed(error));
  }

  /** The stream could not be read: the mapping stops, said. */
  #failed(error: unknown) {
    const why = error instanceof StreamApiError ? error.message : String(error);
    this.#context.log(`${this.#context.label}: the stream could not be read (${why}): no longer polled`);
    this.#context.stop.abort();
  }

  async stop() {
    this.#context.stop.abort();
    await this.#running;
  }

  async #run() {
    const { client, mapping, stop } = this.#context;
    const started = new Set<string>();
    const done = new Set<string>();
    const running = new Set<Promise<void>>();
    let shards: ListedShard[] = await client.shards();
    while (!stop.signal.aborted) {
      for (const shard of shards) {
        const parent =
          shard.parent !== undefined && shards.some(({ id }) => id === shard.parent) ? shard.parent : undefined;
        if (started.has(shard.id) || (parent !== undefined && !done.has(parent))) continue;
        started.add(shard.id);
        const run: Promise<void> = new ShardPoller(this.#context, shard.id)
          .run(startOf(mapping, parent !== undefined))
          .then(
            () => {
              done.add(shard.id);
            },
            (error: unknown) => this.#failed(error),
          )
          .finally(() => running.delete(run));
        running.add(run);
      }
      if (running.size === 0) return;
      await Promise.race(running);
      if (!stop.signal.aborted) shards = await client.shards();
    }
    await Promise.all(running);
  }
}

/** A mapping's settings, as the start says them. */
const settingsOf = (mapping: StreamMapping) =>
  [
    `from ${mapping.startingPosition}`,
    `batches of up to ${mapping.batchSize}`,
    ...(mapping.windowSeconds > 0 ? [`gathered for up to ${mapping.windowSeconds} s`] : []),
    ...(mapping.filters.length > 0 ? [`${mapping.filters.length} filter${mapping.filters.length > 1 ? 's' : ''}`] : []),
    ...(mapping.reportFailures ? ['ReportBatchItemFailures'] : []),
    ...(mapping.bisect ? ['bisected on error'] : []),
    `retried ${mapping.maximumRetryAttempts === -1 ? 'until the records expire' : `${mapping.maximumRetryAttempts} times at most`}`,
    ...(mapping.maximumRecordAgeSeconds === -1
      ? []
      : [`records older than ${mapping.maximumRecordAgeSeconds} s discarded`]),
    ...(mapping.parallelization > 1 ? [`${mapping.parallelization} batches per shard at once`] : []),
    ...(mapping.onFailure ? [`discarded batches to ${mapping.onFailure}`] : []),
  ].join(', ');

/** The stream's name, as the log shows it: a Kinesis stream's, or the table a DynamoDB stream is of. */
const streamName = (mapping: StreamMapping) =>
  mapping.kind === 'kinesis'
    ? `Kinesis ${mapping.streamArn.replace(/^.*:stream\//, '')}`
    : `DynamoDB ${mapping.streamArn.replace(/^.*:table\/([^/]+)\/stream\/.*$/, '$1')} stream`;

/** A mapping as the banner says it: its stream, its function, and whether it is polled. */
export const streamMappingLine = (mapping: StreamMapping) =>
  `${mapping.source}: ${streamName(mapping)} -> ${mapping.functionName}${mapping.enabled ? '' : ' (Enabled is false: not polled)'}`;

export interface StreamPollerOptions {
  /** The stream services' endpoints, when served: Kinesis's, DynamoDB Streams'. */
  urls: { kinesis?: string | undefined; dynamodb?: string | undefined };
  invoke: Invoker;
  targets: Targets;
  log: (line: string) => void;
  checkpoints: StateFile<StreamCheckpoints>;
  /** Calls back when records are appended to the stream `arn`; returns how to stop (Kinesis's `onAppend`). */
  onAppend?: ((arn: string, listener: () => void) => () => void) | undefined;
}

/** Starts a poller for each enabled mapping whose stream service is served; says the others. */
export const startStreamPollers = (mappings: StreamMapping[], options: StreamPollerOptions) => {
  const { urls, log } = options;
  const pollers: StreamPoller[] = [];
  const unsubscribe: (() => void)[] = [];
  for (const mapping of mappings) {
    const url = urls[mapping.kind];
    const label = `${streamName(mapping)} -> ${mapping.functionName}`;
    if (!mapping.enabled) log(`${mapping.source}: Enabled is false: ${mapping.streamArn} is not polled`);
    else if (url === undefined) log(`${mapping.source}: ${mapping.streamArn}: its service is not served: not polled`);
    else {
      const events = new EventEmitter().setMaxListeners(0);
      const context: MappingContext = {
        ...options,
        mapping,
        label,
        client: streamClient(mapping.kind, url, mapping.streamArn),
        filters: mapping.filters.map((pattern) => compilePattern(JSON.parse(pattern))),
        stop: new AbortController(),
        events,
      };
      if (options.onAppend) unsubscribe.push(options.onAppend(mapping.streamArn, () => events.emit('wake')));
      pollers.push(new StreamPoller(context));
      log(`${mapping.source}: ${label} (${settingsOf(mapping)})`);
    }
  }
  for (const poller of pollers) poller.start();
  return {
    stop: async () => {
      for (const stop of unsubscribe) stop();
      await Promise.all(pollers.map((poller) => poller.stop()));
    },
  };
};

/**
 * A runner's stream pollers: `restart` stops those running, then starts those of `mappings` (one after the other, so
 * that a mapping's new poller reads from where the old one's last batch left its checkpoint); `close` stops them.
 */
export const streamPolling = (options: Omit<StreamPollerOptions, 'urls' | 'invoke'>) => {
  let pollers: ReturnType<typeof startStreamPollers> | undefined;
  let changed: Promise<void> = Promise.resolve();
  const next = (start?: () => ReturnType<typeof startStreamPollers>) => {
    changed = changed.then(async () => {
      await pollers?.stop();
      pollers = start?.();
    });
    return changed;
  };
  return {
    restart: (mappings: StreamMapping[], invoke: Invoker, urls: StreamPollerOptions['urls']) =>
      void next(() => startStreamPollers(mappings, { ...options, invoke, urls })),
    close: () => next(),
  };
};
