// The template's EventBridge pipes ("AWS::Pipes::Pipe", CloudFormation Template Reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-pipes-pipe.html), read into what
// services/pipes.ts runs: a source (an SQS queue, a Kinesis stream, a DynamoDB stream) read as an event source
// mapping of it would be (event-source-mappings.ts's limits and defaults, "Amazon EventBridge Pipes sources",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-event-source.html), its FilterCriteria, an
// enrichment (a Lambda function, an express state machine) and a target (a Lambda function, a state machine, an SQS
// queue, an SNS topic, an event bus), with their InputTemplates. Fail closed: a property, a source, an enrichment or a
// target the runner does not reproduce refuses the app, naming the pipe and the field.

import { referencePathProblem } from '../json-path/index.ts';
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import type { QueueMapping, StreamMapping } from './event-source-mappings.ts';
import { eventSourceMappingsOf, streamMappingsOf } from './event-source-mappings.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';

type PipeTargetKind = 'lambda' | 'states' | 'sqs' | 'sns' | 'events';

export interface PipeSeed {
  /** `Stack/LogicalId`. */
  source: string;
  /** Name, else the logical id. */
  name: string;
  /** The source's kind, and its mapping as a poller runs it (its functionName: the pipe's name). */
  kind: 'sqs' | 'kinesis' | 'dynamodb';
  queue?: QueueMapping;
  stream?: StreamMapping;
  enrichment?: { arn: string; kind: 'lambda' | 'states'; inputTemplate?: string };
  target: {
    arn: string;
    kind: PipeTargetKind;
    /** A Lambda function's or a state machine's InvocationType (REQUEST_RESPONSE by default). */
    sync: boolean;
    inputTemplate?: string;
    messageGroupId?: string;
    messageDeduplicationId?: string;
    /** An event bus's event: its source and detail-type. */
    eventSource?: string;
    detailType?: string;
  };
  /** DesiredState is not STOPPED. */
  running: boolean;
}

const refused = (source: string, why: string) => new UnsupportedTemplateError(`${source}: ${why}`);

const objectOf = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Refuses a field of `value` (at `path`) not among `known`: what the runner does not reproduce. */
const onlyKnown = (value: Record<string, unknown>, known: string[], source: string, path: string) => {
  const other = Object.keys(value).find((key) => !known.includes(key));
  if (other !== undefined)
    throw refused(
      source,
      `its ${path}${other} is not reproduced locally (a pipe is refused rather than run otherwise)`,
    );
};

/** The kind of resource an ARN names, by its service and resource type. */
const arnKind = (arn: string): PipeTargetKind | 'kinesis' | 'dynamodb' | undefined => {
  if (/^arn:[^:]+:sqs:/.test(arn)) return 'sqs';
  if (/^arn:[^:]+:kinesis:[^:]*:[^:]*:stream\/[^/]+$/.test(arn)) return 'kinesis';
  if (/^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/[^/]+\/stream\//.test(arn)) return 'dynamodb';
  if (/^arn:[^:]+:lambda:[^:]*:[^:]*:function:/.test(arn)) return 'lambda';
  if (/^arn:[^:]+:states:[^:]*:[^:]*:stateMachine:/.test(arn)) return 'states';
  if (/^arn:[^:]+:sns:/.test(arn)) return 'sns';
  if (/^arn:[^:]+:events:[^:]*:[^:]*:event-bus\//.test(arn)) return 'events';
  return undefined;
};

/** The reserved variables a template may name, which the runner fills (services/pipes.ts). */
const reservedVariables = [
  'aws.pipes.pipe-arn',
  'aws.pipes.pipe-name',
  'aws.pipes.source-arn',
  'aws.pipes.enrichment-arn',
  'aws.pipes.target-arn',
  'aws.pipes.event.ingestion-time',
  'aws.pipes.event',
  'aws.pipes.event.json',
];

/**
 * An InputTemplate's placeholders checked ("Amazon EventBridge Pipes input transformation",
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-input-transformation.html): a JSONPath from `$`,
 * or a reserved variable the runner fills; any other is refused.
 */
const templateOf = (value: unknown, source: string, field: string) => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw refused(source, `its ${field} is not a text`);
  for (const [, inner] of value.matchAll(/<([^<>]*)>/g)) {
    const name = String(inner);
    if (reservedVariables.includes(name)) continue;
    const problem = name.startsWith('$') ? referencePathProblem(name, true) : 'not a JSONPath nor a variable served';
    if (problem) throw refused(source, `its ${field} placeholder <${name}> is not reproduced locally (${problem})`);
  }
  return value;
};

const sourceFields = ['FilterCriteria', 'SqsQueueParameters', 'KinesisStreamParameters', 'DynamoDBStreamParameters'];
const streamFields = [
  'BatchSize',
  'StartingPosition',
  'StartingPositionTimestamp',
  'MaximumBatchingWindowInSeconds',
  'MaximumRetryAttempts',
  'MaximumRecordAgeInSeconds',
  'ParallelizationFactor',
  'DeadLetterConfig',
  'OnPartialBatchItemFailure',
];

/**
 * The source's mapping, read by event-source-mappings.ts from the equivalent AWS::Lambda::EventSourceMapping (its
 * defaults and limits are the same, "Amazon EventBridge Pipes sources"); a stream's DeadLetterConfig as a mapping's
 * OnFailure destination, OnPartialBatchItemFailure AUTOMATIC_BISECT as BisectBatchOnFunctionError.
 */
const mappingOf = (pipe: string, arn: string, parameters: unknown, context: ValueContext, id: string) => {
  const source = `${context.stackName}/${id}`;
  const given = objectOf(parameters);
  onlyKnown(given, sourceFields, source, 'SourceParameters.');
  const kind = arnKind(arn);
  if (kind !== 'sqs' && kind !== 'kinesis' && kind !== 'dynamodb')
    throw refused(source, `its Source ${arn} is not reproduced locally (an SQS queue, a Kinesis or DynamoDB stream)`);
  const field = { sqs: 'SqsQueueParameters', kinesis: 'KinesisStreamParameters', dynamodb: 'DynamoDBStreamParameters' }[
    kind
  ];
  const own = objectOf(given[field]);
  onlyKnown(own, kind === 'sqs' ? ['BatchSize', 'MaximumBatchingWindowInSeconds'] : streamFields, source, `${field}.`);
  const { DeadLetterConfig, OnPartialBatchItemFailure, ...rest } = own;
  const properties: Record<string, unknown> = {
    ...rest,
    FunctionName: pipe,
    EventSourceArn: arn,
    FilterCriteria: given.FilterCriteria,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    ...(DeadLetterConfig !== undefined && {
      DestinationConfig: { OnFailure: { Destination: objectOf(DeadLetterConfig).Arn } },
    }),
    ...(OnPartialBatchItemFailure === 'AUTOMATIC_BISECT' && { BisectBatchOnFunctionError: true }),
  };
  const mapped = {
    ...context,
    resources: { [id]: { Type: 'AWS::Lambda::EventSourceMapping', Properties: properties } },
  };
  if (kind === 'sqs') return { kind, queue: eventSourceMappingsOf([mapped], [])[0] };
  return { kind, stream: streamMappingsOf([mapped])[0] };
};

const text = (value: unknown, context: ValueContext, source: string, field: string) => {
  const result = evaluatedProperty(value, context, source, field);
  if (result === undefined || result === null) return undefined;
  if (typeof result === 'object') throw refused(source, `its ${field} is not one value`);
  return String(result);
};

const enrichmentOf = (properties: Record<string, unknown>, context: ValueContext, source: string) => {
  const arn = text(properties.Enrichment, context, source, 'Enrichment');
  if (arn === undefined) return {};
  const kind = arnKind(arn);
  if (kind !== 'lambda' && kind !== 'states')
    throw refused(source, `its Enrichment ${arn} is not reproduced locally (a Lambda function or a state machine)`);
  const parameters = objectOf(
    evaluatedProperty(properties.EnrichmentParameters, context, source, 'EnrichmentParameters'),
  );
  onlyKnown(parameters, ['InputTemplate'], source, 'EnrichmentParameters.');
  const inputTemplate = templateOf(parameters.InputTemplate, source, 'EnrichmentParameters.InputTemplate');
  return { enrichment: { arn, kind, ...(inputTemplate !== undefined && { inputTemplate }) } };
};

/** The parameters each kind of target takes (TargetParameters' member of its kind), with InputTemplate. */
const targetFields: Record<PipeTargetKind, string | undefined> = {
  lambda: 'LambdaFunctionParameters',
  states: 'StepFunctionStateMachineParameters',
  sqs: 'SqsQueueParameters',
  sns: undefined,
  events: 'EventBridgeEventBusParameters',
};

const targetOf = (properties: Record<string, unknown>, context: ValueContext, source: string) => {
  const arn = text(properties.Target, context, source, 'Target');
  const kind = arn === undefined ? undefined : arnKind(arn);
  if (arn === undefined || kind === undefined || kind === 'kinesis' || kind === 'dynamodb')
    throw refused(
      source,
      `its Target ${arn ?? '(none)'} is not reproduced locally (a Lambda function, a state machine, an SQS queue, an SNS topic or an event bus)`,
    );
  const parameters = objectOf(evaluatedProperty(properties.TargetParameters, context, source, 'TargetParameters'));
  const field = targetFields[kind];
  onlyKnown(parameters, ['InputTemplate', ...(field ? [field] : [])], source, 'TargetParameters.');
  const own = field === undefined ? {} : objectOf(parameters[field]);
  const known = {
    lambda: ['InvocationType'],
    states: ['InvocationType'],
    sqs: ['MessageGroupId', 'MessageDeduplicationId'],
    sns: [],
    events: ['Source', 'DetailType'],
  };
  onlyKnown(own, known[kind], source, `TargetParameters.${field}.`);
  const inputTemplate = templateOf(parameters.InputTemplate, source, 'TargetParameters.InputTemplate');
  const optional = (name: string, key: string) => {
    const value = text(own[name], context, source, `TargetParameters.${field}.${name}`);
    return value === undefined ? {} : { [key]: value };
  };
  return {
    arn,
    kind,
    sync: own.InvocationType !== 'FIRE_AND_FORGET',
    ...(inputTemplate !== undefined && { inputTemplate }),
    ...optional('MessageGroupId', 'messageGroupId'),
    ...optional('MessageDeduplicationId', 'messageDeduplicationId'),
    ...optional('Source', 'eventSource'),
    ...optional('DetailType', 'detailType'),
  };
};

const topFields = [
  'Name',
  'Source',
  'SourceParameters',
  'Enrichment',
  'EnrichmentParameters',
  'Target',
  'TargetParameters',
  'RoleArn',
  'DesiredState',
  'Description',
  'Tags',
  'LogConfiguration',
  'KmsKeyIdentifier',
];

const pipeOf = (id: string, resource: CfnResource, context: ValueContext): PipeSeed => {
  const source = `${context.stackName}/${id}`;
  const properties = props(resource);
  onlyKnown(properties, topFields, source, '');
  const name = text(properties.Name, context, source, 'Name') ?? id;
  const arn = text(properties.Source, context, source, 'Source');
  if (arn === undefined) throw refused(source, 'a pipe with no Source');
  const parameters = evaluatedProperty(properties.SourceParameters, context, source, 'SourceParameters');
  const target = targetOf(properties, context, source);
  return {
    source,
    name,
    ...mappingOf(name, arn, parameters, context, id),
    ...enrichmentOf(properties, context, source),
    target,
    running: text(properties.DesiredState, context, source, 'DesiredState') !== 'STOPPED',
  };
};

/** The pipes of every stack (`stacks`, each its own context). */
export const pipesOf = (stacks: ValueContext[]): PipeSeed[] =>
  stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::Pipes::Pipe').map(([id, resource]) => pipeOf(id, resource, context)),
  );
