// Lambda's event source mappings of SQS queues, run locally: a poller per mapping takes the queue's messages in batches
// and runs the function with them, with the semantics of "Using Lambda with Amazon SQS"
// (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html) and its pages:
// - batches of up to BatchSize, gathered for up to MaximumBatchingWindowInSeconds ("Lambda parameters for Amazon SQS
//   event source mappings", services-sqs-parameters.html);
// - FilterCriteria matched against each record, its `body` parsed when it is JSON; a message no filter matches is
//   deleted ("Control which events Lambda sends to your function", invocation-eventfiltering.html; "Using event
//   filtering with an Amazon SQS event source", with-sqs-filtering.html);
// - a batch the function ran without error is deleted; with ReportBatchItemFailures, all but the messages it names;
//   a function error, or a response Lambda reads as a complete failure, leaves the whole batch to come back after the
//   queue's visibility timeout, and the queue's RedrivePolicy to move it to its dead-letter queue ("Handling errors
//   for an SQS event source in Lambda", services-sqs-errorhandling.html);
// - at most ScalingConfig.MaximumConcurrency batches at once, else five, the number Lambda starts with ("Configuring
//   scaling behavior for SQS event source mappings", services-sqs-scaling.html); its scaling beyond is not reproduced;
// - a FIFO queue's batches in group order: the queue gives no message of a group with one in flight (sqs.ts).
// Driven by the queue's changes, not a timer: a message sent is delivered at once.
import type { QueueMapping } from '../app/event-source-mappings.ts';
import { sqsRecord } from '../events/sample-events.ts';
import { failureOf } from '../lambda/pool.ts';
import { type CompiledPattern, compilePattern, matchesPattern } from './event-pattern.ts';
import { ServiceError } from './json-protocol.ts';
import type { PolledMessage, QueueConsumer } from './sqs.ts';
import { type Invoker, TargetError } from './targets.ts';

/** The batches a mapping with no MaximumConcurrency runs at once: the five Lambda starts with. */
const defaultConcurrency = 5;
/** setTimeout's longest delay. */
const longestDelay = 2 ** 31 - 1;

/** What a batch's invocation came to: every message done, some failed (by id), or none done (why). */
type Outcome = { failed: string[] } | { error: string };

/** Resolves on a change of the queue, at `until` (epoch ms), or when `stopped` aborts. */
const changeOrTime = (consumer: QueueConsumer, until: number, stopped: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      consumer.changed.off('changed', done);
      stopped.removeEventListener('abort', done);
      resolve();
    };
    const timer = Number.isFinite(until)
      ? setTimeout(done, Math.min(longestDelay, Math.max(0, until - Date.now())))
      : undefined;
    consumer.changed.on('changed', done);
    stopped.addEventListener('abort', done);
  });

/** The body as a filter sees it: parsed when it is JSON, else the text. */
const parsedBody = (body: string): unknown => {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
};

/**
 * What Lambda reads of a response with ReportBatchItemFailures ("Handling errors for an SQS event source in Lambda",
 * "Success and failure conditions"): none, an empty or null `batchItemFailures`, is a complete success; an
 * `itemIdentifier` empty, null, missing or naming no message of the batch, a complete failure.
 */
export const batchItemFailures = (result: unknown, ids: string[]): Outcome => {
  if (result === null || result === undefined) return { failed: [] };
  if (typeof result !== 'object' || Array.isArray(result)) return { error: 'its response is not a batch response' };
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return { failed: [] };
  if (!Array.isArray(failures)) return { error: 'its batchItemFailures is not a list' };
  const failed: string[] = [];
  for (const failure of failures) {
    const id =
      typeof failure === 'object' && failure !== null ? (failure as Record<string, unknown>).itemIdentifier : undefined;
    if (typeof id !== 'string' || !ids.includes(id))
      return { error: `its batchItemFailures names ${JSON.stringify(failure)}, no message of the batch` };
    failed.push(id);
  }
  return { failed };
};

/** The poller of one mapping, on the queue `queue` (its name). */
class QueuePoller {
  readonly #mapping: QueueMapping;
  readonly #queue: string;
  readonly #consumer: QueueConsumer;
  readonly #invoke: Invoker;
  readonly #log: (line: string) => void;
  readonly #filters: CompiledPattern[];
  readonly #stop = new AbortController();
  readonly #batches = new Set<Promise<void>>();
  #running: Promise<void> | undefined;

  constructor(
    mapping: QueueMapping,
    queue: string,
    consumer: QueueConsumer,
    invoke: Invoker,
    log: (line: string) => void,
  ) {
    this.#mapping = mapping;
    this.#queue = queue;
    this.#consumer = consumer;
    this.#invoke = invoke;
    this.#log = log;
    this.#filters = mapping.filters.map((pattern) => compilePattern(JSON.parse(pattern)));
  }

  start() {
    this.#running = this.#run();
  }

  /** Stops taking messages; resolves once the batches in flight are done. */
  async stop() {
    this.#stop.abort();
    await this.#running;
    await Promise.all(this.#batches);
  }

  get #stopped() {
    return this.#stop.signal.aborted;
  }

  async #run() {
    const concurrency = this.#mapping.maximumConcurrency ?? defaultConcurrency;
    while (!this.#stopped) {
      if (this.#batches.size >= concurrency) {
        await Promise.race(this.#batches);
        continue;
      }
      const batch = await this.#gather();
      if (batch === undefined) return;
      if (batch.length === 0) continue;
      const delivered = this.#deliver(batch)
        .catch((error: unknown) =>
          this.#log(`${this.#mapping.source}: a batch failed to be delivered: ${String(error)}`),
        )
        .finally(() => this.#batches.delete(delivered));
      this.#batches.add(delivered);
    }
  }

  /**
   * A batch: messages taken until BatchSize or until the batching window, counted from the first message, ends;
   * undefined when the poller stops or its queue is gone (the messages taken come back after their visibility timeout).
   */
  async #gather(): Promise<PolledMessage[] | undefined> {
    const { batchSize, windowSeconds } = this.#mapping;
    const batch: PolledMessage[] = [];
    let deadline = Number.POSITIVE_INFINITY;
    for (;;) {
      if (this.#stopped) return undefined;
      const received = this.#receive(batchSize - batch.length);
      if (received === undefined) return undefined;
      batch.push(...this.#filtered(received.messages));
      if (batch.length > 0 && deadline === Number.POSITIVE_INFINITY) deadline = Date.now() + windowSeconds * 1000;
      if (batch.length >= batchSize || Date.now() >= deadline) return batch;
      await changeOrTime(this.#consumer, Math.min(deadline, received.next), this.#stop.signal);
    }
  }

  #receive(max: number) {
    try {
      return this.#consumer.receive(this.#queue, max);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      this.#log(`${this.#mapping.source}: its queue ${this.#queue} is gone (${error.type}): no longer polled`);
      return undefined;
    }
  }

  /** The messages a filter matches; the others are deleted, as Lambda deletes them. */
  #filtered(messages: PolledMessage[]) {
    if (this.#filters.length === 0) return messages;
    const kept = messages.filter((message) => {
      const record = { ...this.#record(message), body: parsedBody(message.body) };
      return this.#filters.some((filter) => matchesPattern(filter, record));
    });
    const dropped = messages.filter((message) => !kept.includes(message));
    if (dropped.length > 0) {
      this.#consumer.delete(
        this.#queue,
        dropped.map(({ receiptHandle }) => receiptHandle),
      );
      this.#log(`SQS ${this.#queue} -> ${this.#mapping.functionName}: ${dropped.length} filtered out (deleted)`);
    }
    return kept;
  }

  #record(message: PolledMessage) {
    return sqsRecord({ ...message, queue: this.#queue });
  }

  /** Runs the function with `batch`, then deletes what it did; logs the delivery as an invocation. */
  async #deliver(batch: PolledMessage[]) {
    const { functionName, reportFailures } = this.#mapping;
    const ids = batch.map(({ messageId }) => messageId);
    let outcome: Outcome;
    try {
      const { invocation } = await this.#invoke(functionName, { Records: batch.map((m) => this.#record(m)) });
      if (invocation.outcome !== 'result') outcome = { error: failureOf(invocation) };
      else outcome = reportFailures ? batchItemFailures(invocation.result, ids) : { failed: [] };
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      // The function is not served: nothing more is taken for it (the batch comes back after its visibility timeout).
      this.#stop.abort();
      outcome = { error: `${error.message}; the queue is no longer polled` };
    }
    const done = 'failed' in outcome ? batch.filter(({ messageId }) => !outcome.failed.includes(messageId)) : [];
    this.#consumer.delete(
      this.#queue,
      done.map(({ receiptHandle }) => receiptHandle),
    );
    this.#log(`SQS ${this.#queue} -> ${functionName}: batch of ${batch.length}: ${shownOutcome(outcome)}`);
  }
}

const shownOutcome = (outcome: Outcome) => {
  if ('error' in outcome) return `error (${outcome.error}): the batch comes back after the visibility timeout`;
  if (outcome.failed.length === 0) return 'ok';
  return `${outcome.failed.length} failed (they come back after the visibility timeout)`;
};

/** A mapping's settings, as the start says them. */
const settingsOf = ({ batchSize, windowSeconds, filters, reportFailures, maximumConcurrency }: QueueMapping) =>
  [
    `batches of up to ${batchSize}`,
    ...(windowSeconds > 0 ? [`gathered for up to ${windowSeconds} s`] : []),
    ...(filters.length > 0 ? [`${filters.length} filter${filters.length > 1 ? 's' : ''}`] : []),
    ...(reportFailures ? ['ReportBatchItemFailures'] : []),
    `at most ${maximumConcurrency ?? defaultConcurrency} at once`,
  ].join(', ');

/**
 * Starts a poller for each enabled mapping whose queue is served; says the others. `stop` stops them all once their
 * batches in flight are done.
 */
export const startQueuePollers = (
  mappings: QueueMapping[],
  { consumer, invoke, log }: { consumer: QueueConsumer; invoke: Invoker; log: (line: string) => void },
) => {
  const pollers: QueuePoller[] = [];
  for (const mapping of mappings) {
    const queue = consumer.find(mapping.queueArn);
    if (!mapping.enabled) log(`${mapping.source}: Enabled is false: ${mapping.queueArn} is not polled`);
    else if (!queue) log(`${mapping.source}: ${mapping.queueArn} is no queue served: not polled`);
    else {
      pollers.push(new QueuePoller(mapping, queue.name, consumer, invoke, log));
      log(`${mapping.source}: SQS ${queue.name} -> ${mapping.functionName} (${settingsOf(mapping)})`);
    }
  }
  for (const poller of pollers) poller.start();
  return { stop: () => Promise.all(pollers.map((poller) => poller.stop())).then(() => undefined) };
};
