// The template's Lambda event source mappings ("AWS::Lambda::EventSourceMapping", CloudFormation Template Reference):
// those of an SQS queue, read into what a poller (services/queue-poller.ts) runs with, with the defaults and limits of
// "Lambda parameters for Amazon SQS event source mappings"
// (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html); those of a Kinesis stream or a DynamoDB
// stream, read into what services/stream-poller.ts runs with, with the defaults and limits of "Lambda parameters for
// Amazon Kinesis Data Streams event source mappings" (services-kinesis-parameters.html) and "Lambda parameters for
// Amazon DynamoDB event source mappings" (services-ddb-params.html). A mapping of another source (a Kinesis stream
// consumer, Kafka, MQ, DocumentDB) is not served: said at start, the app served. A value the template evaluator cannot
// know, or one Lambda would refuse, refuses the app naming the mapping: a mapping run otherwise than written would
// deliver otherwise than AWS does.

import { compilePattern, PatternError } from '../services/event-pattern.ts';
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';

/** An SQS queue's event source mapping, as its poller runs it. */
export interface QueueMapping {
  /** `Stack/LogicalId`, which the log names. */
  source: string;
  /** FunctionName evaluated: the function's name, its ARN or a partial ARN, as Lambda's Invoke takes it. */
  functionName: string;
  /** EventSourceArn evaluated: the queue's ARN. */
  queueArn: string;
  /** "Enabled": false, the mapping is not polled. */
  enabled: boolean;
  batchSize: number;
  /** MaximumBatchingWindowInSeconds. */
  windowSeconds: number;
  /** FilterCriteria's patterns, as given (JSON text); none: every message goes to the function. */
  filters: string[];
  /** FunctionResponseTypes includes ReportBatchItemFailures. */
  reportFailures: boolean;
  /** ScalingConfig.MaximumConcurrency, when given. */
  maximumConcurrency?: number;
}

const refused = (source: string, why: string) => new UnsupportedTemplateError(`${source}: ${why}`);

/** A property that is one value (a string, a number, a boolean), as text; refused when it is a list or an object. */
const text = (value: unknown, context: ValueContext, source: string, property: string) => {
  const result = evaluatedProperty(value, context, source, property);
  if (result === undefined || result === null) return undefined;
  if (typeof result === 'object') throw refused(source, `its ${property} is not one value`);
  return String(result);
};

/** An integer property within Lambda's range for it ("Lambda parameters for Amazon SQS event source mappings"). */
const integer = (given: string | undefined, fallback: number, [min, max]: [number, number], what: string) => {
  if (given === undefined) return fallback;
  const number = Number(given);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new RangeError(`its ${what} ${given} is not an integer from ${min} to ${max}`);
  return number;
};

const objectOf = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** FilterCriteria's patterns ("Control which events Lambda sends to your function": `{"Filters": [{"Pattern": "..."}]}`). */
const filtersOf = (value: unknown, context: ValueContext, source: string) => {
  const criteria = objectOf(evaluatedProperty(value, context, source, 'FilterCriteria'));
  const filters = Array.isArray(criteria.Filters) ? criteria.Filters : [];
  return filters.map((filter) => {
    const pattern = objectOf(filter).Pattern;
    if (typeof pattern !== 'string') throw refused(source, 'a filter of its FilterCriteria has no Pattern');
    try {
      compilePattern(JSON.parse(pattern));
    } catch (error) {
      if (!(error instanceof PatternError || error instanceof SyntaxError)) throw error;
      throw refused(
        source,
        `its FilterCriteria pattern ${pattern} is not valid (${error.message}), which Lambda refuses`,
      );
    }
    return pattern;
  });
};

/** Whether `arn` is an SQS queue's (`arn:aws:sqs:<region>:<account>:<name>`). */
const isQueueArn = (arn: string) => /^arn:[^:]+:sqs:[^:]*:[^:]*:[^:]+$/.test(arn);

/**
 * The kind of stream `arn` names: a Kinesis data stream's (`arn:aws:kinesis:<region>:<account>:stream/<name>`), a
 * DynamoDB table's stream (`...:dynamodb:<region>:<account>:table/<table>/stream/<label>`), or neither (a Kinesis
 * stream consumer's ARN, `stream/<name>/consumer/...`, is neither: enhanced fan-out is not served).
 */
const streamKindOf = (arn: string): 'kinesis' | 'dynamodb' | undefined => {
  if (/^arn:[^:]+:kinesis:[^:]*:[^:]*:stream\/[^/]+$/.test(arn)) return 'kinesis';
  if (/^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/[^/]+\/stream\/[^/]+$/.test(arn)) return 'dynamodb';
  return undefined;
};

/** The limits Lambda checks when the mapping is created, for a standard or FIFO queue. */
const sizes = (properties: Record<string, unknown>, context: ValueContext, source: string, arn: string) => {
  const fifo = arn.endsWith('.fifo');
  const batch = text(properties.BatchSize, context, source, 'BatchSize');
  const window = text(properties.MaximumBatchingWindowInSeconds, context, source, 'MaximumBatchingWindowInSeconds');
  const scaling = objectOf(evaluatedProperty(properties.ScalingConfig, context, source, 'ScalingConfig'));
  const concurrency = text(scaling.MaximumConcurrency, context, source, 'ScalingConfig.MaximumConcurrency');
  try {
    const batchSize = integer(batch, 10, [1, fifo ? 10 : 10_000], 'BatchSize');
    const windowSeconds = integer(window, 0, [0, 300], 'MaximumBatchingWindowInSeconds');
    if (fifo && windowSeconds > 0) throw new RangeError('has a batching window, which FIFO queues do not support');
    if (batchSize > 10 && windowSeconds < 1)
      throw new RangeError('has a BatchSize over 10, which needs a MaximumBatchingWindowInSeconds of at least 1');
    const maximumConcurrency =
      concurrency === undefined ? undefined : integer(concurrency, 0, [2, 1000], 'ScalingConfig.MaximumConcurrency');
    return { batchSize, windowSeconds, ...(maximumConcurrency !== undefined && { maximumConcurrency }) };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw refused(source, `${error.message}, which Lambda refuses`);
  }
};

/** One mapping: its queue's, or undefined (with the line to say) when its source is not a queue. */
const mappingOf = (id: string, resource: CfnResource, context: ValueContext) => {
  const source = `${context.stackName}/${id}`;
  const properties = props(resource);
  const arn = text(properties.EventSourceArn, context, source, 'EventSourceArn');
  if (arn === undefined)
    return { notice: `${source}: an event source mapping with no EventSourceArn (Kafka, MQ): not served locally` };
  // A stream's mapping is streamMappingsOf's.
  if (streamKindOf(arn)) return {};
  if (!isQueueArn(arn))
    return {
      notice: `${source}: an event source mapping of ${arn}: not served locally (only SQS queues, Kinesis streams and DynamoDB streams are)`,
    };
  const functionName = text(properties.FunctionName, context, source, 'FunctionName');
  if (functionName === undefined) throw refused(source, 'an event source mapping with no FunctionName');
  const types = evaluatedProperty(properties.FunctionResponseTypes, context, source, 'FunctionResponseTypes');
  const mapping: QueueMapping = {
    source,
    functionName,
    queueArn: arn,
    enabled: text(properties.Enabled, context, source, 'Enabled') !== 'false',
    filters: filtersOf(properties.FilterCriteria, context, source),
    reportFailures: Array.isArray(types) && types.includes('ReportBatchItemFailures'),
    ...sizes(properties, context, source, arn),
  };
  return { mapping };
};

/** The SQS event source mappings of every stack (`stacks`, each its own context); `notices` gets what is not served. */
export const eventSourceMappingsOf = (stacks: ValueContext[], notices: string[]): QueueMapping[] => {
  const mappings: QueueMapping[] = [];
  for (const context of stacks)
    for (const [id, resource] of ofType(context.resources, 'AWS::Lambda::EventSourceMapping')) {
      const { mapping, notice } = mappingOf(id, resource, context);
      if (mapping) mappings.push(mapping);
      if (notice) notices.push(notice);
    }
  return mappings;
};

/** A Kinesis stream's or a DynamoDB stream's event source mapping, as its poller (services/stream-poller.ts) runs it. */
export interface StreamMapping {
  /** `Stack/LogicalId`, which the log names. */
  source: string;
  /** FunctionName evaluated: the function's name, its ARN or a partial ARN, as Lambda's Invoke takes it. */
  functionName: string;
  /** EventSourceArn evaluated: the Kinesis stream's ARN or the table's stream's ARN. */
  streamArn: string;
  kind: 'kinesis' | 'dynamodb';
  /** "Enabled": false, the mapping is not polled. */
  enabled: boolean;
  /** Where a shard is first read from, when no checkpoint says where the mapping got to. */
  startingPosition: 'TRIM_HORIZON' | 'LATEST' | 'AT_TIMESTAMP';
  /** StartingPositionTimestamp (Unix seconds), with AT_TIMESTAMP. */
  startingTimestamp?: number;
  batchSize: number;
  /** MaximumBatchingWindowInSeconds. */
  windowSeconds: number;
  /** FilterCriteria's patterns, as given (JSON text); none: every record goes to the function. */
  filters: string[];
  /** FunctionResponseTypes includes ReportBatchItemFailures. */
  reportFailures: boolean;
  /** BisectBatchOnFunctionError. */
  bisect: boolean;
  /** MaximumRetryAttempts; -1: until the record expires. */
  maximumRetryAttempts: number;
  /** MaximumRecordAgeInSeconds; -1: no age limit. */
  maximumRecordAgeSeconds: number;
  /** ParallelizationFactor: the batches of a shard in flight at once, each of its own partition keys. */
  parallelization: number;
  /** DestinationConfig.OnFailure.Destination: the SQS queue or SNS topic a discarded batch's record goes to. */
  onFailure?: string;
}

/** The starting positions Lambda takes for each kind of stream (the parameters pages' StartingPosition rows). */
const startingPositions = { kinesis: ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'], dynamodb: ['TRIM_HORIZON', 'LATEST'] };

/** StartingPosition and StartingPositionTimestamp, as Lambda takes them for a stream of `kind`. */
const startOf = (
  properties: Record<string, unknown>,
  context: ValueContext,
  source: string,
  kind: 'kinesis' | 'dynamodb',
) => {
  const position = text(properties.StartingPosition, context, source, 'StartingPosition');
  const timestamp = text(properties.StartingPositionTimestamp, context, source, 'StartingPositionTimestamp');
  if (position === undefined) throw refused(source, 'a stream mapping with no StartingPosition, which Lambda refuses');
  if (!startingPositions[kind].includes(position))
    throw refused(
      source,
      `its StartingPosition ${position} is not one of ${startingPositions[kind].join(', ')}, which Lambda refuses`,
    );
  if ((position === 'AT_TIMESTAMP') !== (timestamp !== undefined))
    throw refused(source, 'has a StartingPositionTimestamp without AT_TIMESTAMP or the reverse, which Lambda refuses');
  const seconds = Number(timestamp);
  if (timestamp !== undefined && !Number.isFinite(seconds))
    throw refused(source, `its StartingPositionTimestamp ${timestamp} is not a time in Unix seconds`);
  return {
    startingPosition: position as StreamMapping['startingPosition'],
    ...(timestamp !== undefined && { startingTimestamp: seconds }),
  };
};

/** The numbers of a stream mapping, within the limits of the parameters pages. */
const streamSizes = (properties: Record<string, unknown>, context: ValueContext, source: string) => {
  const given = (property: string) => text(properties[property], context, source, property);
  try {
    const tumbling = integer(given('TumblingWindowInSeconds'), 0, [0, 900], 'TumblingWindowInSeconds');
    if (tumbling > 0) throw refused(source, 'has a TumblingWindowInSeconds: tumbling windows are not served locally');
    return {
      batchSize: integer(given('BatchSize'), 100, [1, 10_000], 'BatchSize'),
      windowSeconds: integer(given('MaximumBatchingWindowInSeconds'), 0, [0, 300], 'MaximumBatchingWindowInSeconds'),
      maximumRetryAttempts: integer(given('MaximumRetryAttempts'), -1, [-1, 10_000], 'MaximumRetryAttempts'),
      maximumRecordAgeSeconds: integer(
        given('MaximumRecordAgeInSeconds'),
        -1,
        [-1, 604_800],
        'MaximumRecordAgeInSeconds',
      ),
      parallelization: integer(given('ParallelizationFactor'), 1, [1, 10], 'ParallelizationFactor'),
    };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw refused(source, `${error.message}, which Lambda refuses`);
  }
};

/** DestinationConfig.OnFailure.Destination: an SQS queue's or SNS topic's ARN (an S3 bucket or Kafka is refused). */
const onFailureOf = (value: unknown, context: ValueContext, source: string) => {
  const config = objectOf(evaluatedProperty(value, context, source, 'DestinationConfig'));
  const destination = text(objectOf(config.OnFailure).Destination, context, source, 'DestinationConfig.OnFailure');
  if (destination === undefined) return {};
  if (!/^arn:[^:]+:(sqs|sns):/.test(destination))
    throw refused(
      source,
      `its OnFailure destination ${destination} is not an SQS queue or SNS topic: not served locally`,
    );
  return { onFailure: destination };
};

/** One stream mapping of `kind`, on `arn`. */
const streamMappingOf = (source: string, properties: Record<string, unknown>, context: ValueContext, arn: string) => {
  const kind = streamKindOf(arn) as StreamMapping['kind'];
  const functionName = text(properties.FunctionName, context, source, 'FunctionName');
  if (functionName === undefined) throw refused(source, 'an event source mapping with no FunctionName');
  const types = evaluatedProperty(properties.FunctionResponseTypes, context, source, 'FunctionResponseTypes');
  const flag = (property: string) => text(properties[property], context, source, property) === 'true';
  return {
    source,
    functionName,
    streamArn: arn,
    kind,
    enabled: text(properties.Enabled, context, source, 'Enabled') !== 'false',
    ...startOf(properties, context, source, kind),
    filters: filtersOf(properties.FilterCriteria, context, source),
    reportFailures: Array.isArray(types) && types.includes('ReportBatchItemFailures'),
    bisect: flag('BisectBatchOnFunctionError'),
    ...streamSizes(properties, context, source),
    ...onFailureOf(properties.DestinationConfig, context, source),
  } satisfies StreamMapping;
};

/** The Kinesis and DynamoDB stream mappings of every stack (`stacks`, each its own context). */
export const streamMappingsOf = (stacks: ValueContext[]): StreamMapping[] => {
  const mappings: StreamMapping[] = [];
  for (const context of stacks)
    for (const [id, resource] of ofType(context.resources, 'AWS::Lambda::EventSourceMapping')) {
      const source = `${context.stackName}/${id}`;
      const properties = props(resource);
      const arn = text(properties.EventSourceArn, context, source, 'EventSourceArn');
      if (arn !== undefined && streamKindOf(arn)) mappings.push(streamMappingOf(source, properties, context, arn));
    }
  return mappings;
};
