// EventBridge Pipes, locally ("Amazon EventBridge Pipes", EventBridge User Guide,
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes.html). A pipe's source is read by the pollers of
// event source mappings (queue-poller.ts, stream-poller.ts), one per pipe, whose "function" is the pipe: this module is
// the Invoker they call with each batch (`{Records}`), so that batching, filtering, retries and the source's failure
// handling are the mappings' own. A batch goes:
// - to the enrichment, if any, as one JSON array (its EnrichmentParameters.InputTemplate applied to each record), a
//   Lambda function's result or an express state machine's output (StartSyncExecution) taking its place;
// - to the target ("Amazon EventBridge Pipes batching and concurrency",
//   https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html): a Lambda function or
//   a state machine gets the whole array in one request; an SQS queue, an SNS topic and an event bus one message or
//   event per record; TargetParameters.InputTemplate applied to each record ("Amazon EventBridge Pipes input
//   transformation", eb-pipes-input-transformation.html).
// A Lambda or state machine target may answer `batchItemFailures`; an error of the enrichment or the target fails the
// batch, which comes back as a mapping's does (the queue's visibility timeout, the stream's retries).
import type { PipeSeed } from '../app/pipe-resources.ts';
import { selectJsonPath } from '../json-path/index.ts';
import type { InvocationReport } from '../lambda/pool.ts';
import { failureOf } from '../lambda/pool.ts';
import type { WireEndpoints } from './states/wire-calls.ts';
import { WireError, wireCall } from './states/wire-calls.ts';
import { type Invoker, TargetError, type Targets } from './targets.ts';

export interface PipeServices {
  pipes: () => PipeSeed[];
  invoke: Invoker;
  targets: Targets;
  endpoints: () => WireEndpoints;
  log: (line: string) => void;
}

/** A stage that failed: the batch comes back to its source. */
class StageError extends Error {}

const parsedJson = (text: unknown) => {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** A record as a pipe has it: a Kinesis record's `kinesis` members at its top, as the Kinesis source page shows. */
const pipeRecord = (pipe: PipeSeed, record: unknown) => {
  if (pipe.kind !== 'kinesis' || typeof record !== 'object' || record === null) return record;
  const { kinesis, ...rest } = record as Record<string, unknown>;
  return { ...rest, ...(kinesis as Record<string, unknown>) };
};

/** A record as a template's paths see it: an SQS body, a Kinesis record's data, parsed when JSON ("implicit body data parsing"). */
const templateView = (record: unknown) => {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const view: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  if (typeof view.body === 'string') view.body = parsedJson(view.body);
  if (typeof view.data === 'string' && typeof view.eventSource === 'string' && view.eventSource === 'aws:kinesis')
    view.data = parsedJson(Buffer.from(view.data, 'base64').toString('utf8'));
  return view;
};

/** A reserved variable's value for `record` (the event's: the record itself). */
const variable = (pipe: PipeSeed, name: string, record: unknown): unknown => {
  const values: Record<string, unknown> = {
    'aws.pipes.pipe-arn': `arn:aws:pipes:::pipe/${pipe.name}`,
    'aws.pipes.pipe-name': pipe.name,
    'aws.pipes.source-arn': pipe.queue?.queueArn ?? pipe.stream?.streamArn ?? '',
    'aws.pipes.enrichment-arn': pipe.enrichment?.arn ?? '',
    'aws.pipes.target-arn': pipe.target.arn,
    'aws.pipes.event.ingestion-time': new Date().toISOString(),
  };
  return name in values ? values[name] : record;
};

/**
 * `template` filled for `record`: a placeholder inside quotes takes a text as it is (another value as its JSON), one
 * outside quotes the value's JSON; the result is JSON when it parses as JSON, else the text.
 */
const applyTemplate = (pipe: PipeSeed, template: string, record: unknown) => {
  const view = templateView(record);
  // A template not of JSON is text: each placeholder as text.
  const text = !/^\s*[[{"]/.test(template);
  let quoted = text;
  let filled = '';
  for (const part of template.split(/(<[^<>]*>)/)) {
    const name = /^<([^<>]*)>$/.exec(part)?.[1];
    if (name === undefined) {
      for (const [index, c] of [...part].entries()) if (c === '"' && part[index - 1] !== '\\') quoted = !quoted;
      filled += part;
      continue;
    }
    const value = name.startsWith('$') ? selectJsonPath(view, name) : variable(pipe, name, record);
    if (quoted && typeof value === 'string') filled += JSON.stringify(value).slice(1, -1);
    else filled += JSON.stringify(value ?? null);
  }
  return parsedJson(filled);
};

/** A Lambda function run with the batch: its result, or a StageError. */
const invoked = async (services: PipeServices, arn: string, payload: unknown) => {
  let report: InvocationReport;
  try {
    report = await services.invoke(arn, payload);
  } catch (error) {
    if (error instanceof TargetError) throw new StageError(error.message);
    throw error;
  }
  if (report.invocation.outcome !== 'result') throw new StageError(failureOf(report.invocation));
  return report.invocation.result;
};

/** An express state machine run synchronously with `input`: its output, or a StageError. */
const executed = async (services: PipeServices, arn: string, input: unknown) => {
  try {
    const answer = await wireCall(services.endpoints(), 'states', 'StartSyncExecution', {
      stateMachineArn: arn,
      input: JSON.stringify(input),
    });
    if (answer.status !== 'SUCCEEDED')
      throw new StageError(
        `its execution ${String(answer.status)}: ${String(answer.error ?? '')} ${String(answer.cause ?? '')}`,
      );
    return parsedJson(answer.output);
  } catch (error) {
    if (error instanceof WireError) throw new StageError(`${error.type}: ${error.message}`);
    throw error;
  }
};

const enriched = async (services: PipeServices, pipe: PipeSeed, records: unknown[]) => {
  const { enrichment } = pipe;
  if (!enrichment) return records;
  const template = enrichment.inputTemplate;
  const input = template === undefined ? records : records.map((record) => applyTemplate(pipe, template, record));
  const output =
    enrichment.kind === 'lambda'
      ? await invoked(services, enrichment.arn, input)
      : await executed(services, enrichment.arn, input);
  // An enrichment answers the batch's records as an array; one value is one record.
  return Array.isArray(output) ? output : [output];
};

/** What a Lambda or state machine target answered: its `batchItemFailures`, or none. */
const failuresOf = (result: unknown) =>
  typeof result === 'object' && result !== null && 'batchItemFailures' in result
    ? { batchItemFailures: (result as { batchItemFailures: unknown }).batchItemFailures }
    : null;

/** Each record (of a queue, a topic or a bus target) as one message or event. */
const sentEach = async (services: PipeServices, pipe: PipeSeed, records: unknown[]) => {
  const { target } = pipe;
  for (const record of records)
    try {
      await services.targets.deliver(target.arn, {
        body: typeof record === 'string' ? record : JSON.stringify(record),
        source: `pipes:${pipe.name}`,
        ...(target.messageGroupId !== undefined && { messageGroupId: target.messageGroupId }),
        ...(target.messageDeduplicationId !== undefined && { messageDeduplicationId: target.messageDeduplicationId }),
        event: {
          source: target.eventSource ?? `Pipe ${pipe.name}`,
          detailType: target.detailType ?? `Event from aws:${pipe.kind}`,
        },
      });
    } catch (error) {
      if (error instanceof TargetError) throw new StageError(error.message);
      throw error;
    }
  return null;
};

const targeted = async (services: PipeServices, pipe: PipeSeed, records: unknown[]) => {
  const { target } = pipe;
  const template = target.inputTemplate;
  const input = template === undefined ? records : records.map((record) => applyTemplate(pipe, template, record));
  if (target.kind === 'sqs' || target.kind === 'sns' || target.kind === 'events')
    return sentEach(services, pipe, input);
  if (!target.sync) {
    await services.targets
      .deliver(target.arn, { body: JSON.stringify(input), source: `pipes:${pipe.name}` })
      .catch((error: unknown) => {
        throw error instanceof TargetError ? new StageError(error.message) : error;
      });
    return null;
  }
  const result =
    target.kind === 'lambda' ? await invoked(services, target.arn, input) : await executed(services, target.arn, input);
  return failuresOf(result);
};

/**
 * The Invoker a pipe's poller calls with `{Records}` (its "function" the pipe's name): the batch through the
 * enrichment and to the target; a stage's failure as a failed invocation, which the poller handles as a mapping's.
 */
export const pipeInvoker =
  (services: PipeServices): Invoker =>
  async (name, event) => {
    const started = Date.now();
    const pipe = services.pipes().find((candidate) => candidate.name === name);
    if (!pipe) throw new TargetError(`no pipe ${name} is served`);
    const records = ((event as { Records?: unknown[] }).Records ?? []).map((record) => pipeRecord(pipe, record));
    try {
      const result = await targeted(services, pipe, await enriched(services, pipe, records));
      services.log(
        `Pipe ${pipe.name}: ${records.length} record${records.length === 1 ? '' : 's'} -> ${pipe.target.arn}`,
      );
      return { invocation: { outcome: 'result', result }, durationMs: Date.now() - started, initMs: undefined };
    } catch (error) {
      if (!(error instanceof StageError)) throw error;
      services.log(`Pipe ${pipe.name}: failed (${error.message})`);
      return {
        invocation: { outcome: 'failure', reason: error.message },
        durationMs: Date.now() - started,
        initMs: undefined,
      };
    }
  };
