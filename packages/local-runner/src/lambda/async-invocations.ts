// Lambda's asynchronous invocations ("Invoking a Lambda function asynchronously",
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html): Invoke with `Event`, and what SNS, EventBridge
// and the Scheduler send to a function (the `lambda` receiver of services/targets.ts). Each event is queued, run, and
// on a function error retried as "Configuring error handling for asynchronous invocation"
// (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html) says: twice by default (the
// function's EventInvokeConfig MaximumRetryAttempts, 0 to 2), the first retry about a minute later, the second about two
// minutes after that (locally `retryDelayMs` and twice it), and discarded once older than MaximumEventAgeInSeconds. A
// success goes to the on-success destination, a discarded event to the on-failure destination, as the invocation
// record "Capturing records of Lambda asynchronous invocations"
// (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html) shows, and to the function's
// dead-letter queue or topic, as the event itself with the attributes RequestID, ErrorCode and ErrorMessage. Every
// destination is reached through Targets. The queue is kept in the data folder (`keep`, the start command's): an event
// accepted is run after a restart or a SIGKILL, an attempt cut off by one run again (Lambda, too, may run an event
// more than once), with its attempts and its age.
import { randomUUID } from 'node:crypto';
import { type AsyncInvokeConfig, asyncInvokeConfigOf } from '../app/async-invoke-config.ts';
import { functionNameOf } from '../app/aws-function-names.ts';
import { functionArn } from '../app/return-values.ts';
import type { StateFile } from '../services/state-file.ts';
import { type Delivery, TargetError, type Targets } from '../services/targets.ts';
import type { InvocableFunctions } from './invocable.ts';
import { failureOf, type InvocationReport } from './pool.ts';

/** AWS's delay before the first retry ("about one minute"); the second waits twice as long ("two minutes"). */
const awsRetryDelayMs = 60_000;

/** An event in the queue: its payload (JSON text) and what Lambda keeps of it between attempts. */
interface QueuedEvent {
  requestId: string;
  /** The FunctionName it was sent to (a name, an ARN or a partial ARN, with a qualifier or not). */
  target: string;
  /** The event, as JSON. */
  payload: unknown;
  source: string;
  queuedAt: number;
  attempts: number;
}

/** The events queued, each with when its next attempt is due: `<data folder>/services/lambda-async.json`. */
export interface AsyncQueueState {
  events: (QueuedEvent & { dueAt: number })[];
}

export const emptyAsyncQueue = (): AsyncQueueState => ({ events: [] });

/** The function an attempt ran, and how: what an invocation record names. */
interface Attempt {
  name: string;
  functionArn: string;
  version: string;
  config: AsyncInvokeConfig;
}

type Condition = 'Success' | 'RetriesExhausted' | 'EventAgeExceeded';

/** A function's outcome as the invocation record's responseContext and responsePayload give it. */
const responseOf = (report: InvocationReport, requestId: string) => {
  const { invocation } = report;
  if (invocation.outcome === 'result') return { payload: invocation.result, functionError: undefined };
  if (invocation.outcome === 'error')
    return {
      payload: { errorType: invocation.errorType, errorMessage: invocation.message },
      functionError: 'Unhandled',
    };
  return {
    payload: { errorMessage: `RequestId: ${requestId} Error: ${failureOf(invocation)}` },
    functionError: 'Unhandled',
  };
};

/** Whether the function failed (an error, a crash, a time-out), which Lambda retries. */
const failed = ({ invocation }: InvocationReport) => invocation.outcome !== 'result' && invocation.outcome !== 'stream';

export class AsyncInvocations {
  readonly #functions: InvocableFunctions;
  readonly #targets: Targets;
  readonly #log: (line: string) => void;
  readonly #retryDelayMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;
  /** Where the queue is kept, once `keep` is called (the start command); in memory before. */
  #file: StateFile<AsyncQueueState> | undefined;

  constructor(options: {
    functions: InvocableFunctions;
    targets: Targets;
    log: (line: string) => void;
    /** The delay before the first retry (the second waits twice as long); AWS's by default. */
    retryDelayMs?: number;
  }) {
    this.#functions = options.functions;
    this.#targets = options.targets;
    this.#log = options.log;
    this.#retryDelayMs = options.retryDelayMs ?? awsRetryDelayMs;
  }

  /**
   * Queues `payload` (JSON text) for the function `target` names (TargetError, now, when none is served), as Invoke
   * with `Event` does: its request id.
   */
  enqueue(target: string, payload: unknown, source: string): string {
    this.#functions.find(target);
    const event = { requestId: randomUUID(), target, payload, source, queuedAt: Date.now(), attempts: 0 };
    this.#later(event, 0);
    return event.requestId;
  }

  /** The `lambda` receiver of Targets: what a service sends to a function's ARN is an asynchronous invocation. */
  receive = async (arn: string, { body, source }: Delivery) => {
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      throw new TargetError(`${arn}: an event for a function must be JSON; ${source} sent ${body.slice(0, 80)}`);
    }
    this.enqueue(arn, payload, source);
  };

  /**
   * Keeps the queue in `file` from now on, and runs the events it holds: those a previous run accepted and had not
   * finished (each when its next attempt is due, at once if past).
   */
  keep(file: StateFile<AsyncQueueState>) {
    this.#file = file;
    const now = Date.now();
    for (const { dueAt, ...event } of file.read().events) {
      this.#log(`asynchronous invocation ${event.requestId} from ${event.source}, kept from the last run, is queued`);
      this.#later(event, Math.max(0, dueAt - now));
    }
  }

  /** Notes `event` (due in `delayMs`) in the kept queue, or (`delayMs` undefined) takes it out. */
  #note(event: QueuedEvent, delayMs?: number) {
    if (!this.#file) return;
    const state = this.#file.read();
    const others = state.events.filter(({ requestId }) => requestId !== event.requestId);
    const events = delayMs === undefined ? others : [...others, { ...event, dueAt: Date.now() + delayMs }];
    this.#file.write({ events });
  }

  /** Stops: events still queued stay in the kept queue (without one, they are dropped). */
  close() {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #later(event: QueuedEvent, delayMs: number) {
    if (this.#closed) return;
    this.#note(event, delayMs);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#attempt(event);
    }, delayMs);
    this.#timers.add(timer);
  }

  async #attempt(event: QueuedEvent) {
    if (this.#closed) return;
    let found: ReturnType<InvocableFunctions['find']>;
    try {
      found = this.#functions.find(event.target);
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      this.#note(event);
      return this.#log(`an asynchronous invocation (${event.requestId}) is dropped: ${error.message}`);
    }
    const { pool, fn, context, qualifier } = found;
    const name = functionNameOf(context, fn.id);
    const attempt: Attempt = {
      name,
      functionArn: functionArn(name, qualifier ?? '$LATEST'),
      version: fn.version,
      config: asyncInvokeConfigOf(context, fn.id, qualifier, (line) => this.#log(`${name}: ${line}`)),
    };
    if (this.#tooOld(event, attempt.config)) return this.#discard(event, attempt, 'EventAgeExceeded', undefined);
    event.attempts += 1;
    const report = await pool.invoke(event.payload, { requestId: event.requestId, ...(qualifier && { qualifier }) });
    if (this.#closed) return;
    if (!failed(report)) {
      this.#note(event);
      this.#log(`${name}: asynchronous invocation ${event.requestId} from ${event.source} succeeded`);
      return this.#record(event, attempt, 'Success', report);
    }
    this.#retryOrDiscard(event, attempt, report);
  }

  #tooOld(event: QueuedEvent, config: AsyncInvokeConfig, at = Date.now()) {
    return at - event.queuedAt > config.maximumEventAgeSeconds * 1000;
  }

  #retryOrDiscard(event: QueuedEvent, attempt: Attempt, report: InvocationReport) {
    const { config, name } = attempt;
    const said = `${name}: asynchronous invocation ${event.requestId} from ${event.source} failed (attempt ${event.attempts} of ${config.maximumRetryAttempts + 1}): ${failureOf(report.invocation)}`;
    if (event.attempts > config.maximumRetryAttempts) {
      this.#log(`${said}; retries exhausted`);
      return this.#discard(event, attempt, 'RetriesExhausted', report);
    }
    const delayMs = this.#retryDelayMs * 2 ** (event.attempts - 1);
    if (this.#tooOld(event, config, Date.now() + delayMs)) {
      this.#log(`${said}; older than its maximum event age (${config.maximumEventAgeSeconds} s) by the next retry`);
      return this.#discard(event, attempt, 'EventAgeExceeded', report);
    }
    this.#log(`${said}; retried in ${delayMs / 1000} s`);
    this.#later(event, delayMs);
  }

  /** The event is given up on: its record to the on-failure destination, itself to the dead-letter queue. */
  #discard(event: QueuedEvent, attempt: Attempt, condition: Condition, report: InvocationReport | undefined) {
    this.#note(event);
    const { deadLetter } = attempt.config;
    if (condition === 'EventAgeExceeded' && report === undefined)
      this.#log(
        `${attempt.name}: asynchronous invocation ${event.requestId} discarded: older than its maximum event age`,
      );
    this.#record(event, attempt, condition, report);
    if (deadLetter === undefined) return;
    // "The first 1 KB of the error message".
    const message = report ? failureOf(report.invocation) : 'Event age exceeded';
    this.#send(attempt.name, 'dead-letter queue', deadLetter, {
      body: JSON.stringify(event.payload),
      attributes: {
        RequestID: { DataType: 'String', StringValue: event.requestId },
        ErrorCode: { DataType: 'Number', StringValue: '200' },
        ErrorMessage: { DataType: 'String', StringValue: Buffer.from(message).subarray(0, 1024).toString('utf8') },
      },
      source: `lambda:${attempt.name}`,
    });
  }

  /** The invocation record ("Capturing records of Lambda asynchronous invocations") to the condition's destination. */
  #record(event: QueuedEvent, attempt: Attempt, condition: Condition, report: InvocationReport | undefined) {
    const destination = condition === 'Success' ? attempt.config.onSuccess : attempt.config.onFailure;
    if (destination === undefined) return;
    const response = report && responseOf(report, event.requestId);
    const record = {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: {
        requestId: event.requestId,
        functionArn: attempt.functionArn,
        condition,
        approximateInvokeCount: event.attempts,
      },
      requestPayload: event.payload,
      ...(response && {
        responseContext: {
          statusCode: 200,
          executedVersion: attempt.version,
          ...(response.functionError && { functionError: response.functionError }),
        },
        responsePayload: response.payload,
      }),
    };
    const kind = condition === 'Success' ? 'on-success destination' : 'on-failure destination';
    this.#send(attempt.name, kind, destination, {
      body: JSON.stringify(record),
      source: `lambda:${attempt.name}`,
      event: {
        source: 'lambda',
        detailType: `Lambda Function Invocation Result - ${condition === 'Success' ? 'Success' : 'Failure'}`,
      },
    });
  }

  /** Sends through Targets, saying where; a destination no served service takes is said, as Lambda's metric would. */
  #send(name: string, kind: string, arn: string, delivery: Delivery) {
    this.#targets.deliver(arn, delivery).then(
      () => this.#log(`${name}: sent to its ${kind} ${arn}`),
      (error: unknown) =>
        this.#log(
          `${name}: its ${kind} ${arn} took nothing: ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
  }
}
