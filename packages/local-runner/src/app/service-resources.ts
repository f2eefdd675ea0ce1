// The template's resources that a local service (src/services/) holds: its SSM parameters (AWS::SSM::Parameter) and
// its Secrets Manager secrets (AWS::SecretsManager::Secret), each read into what the service is seeded with at start.
// Their values go through the template evaluator in one place (`evaluated`); a value it cannot know leaves that
// resource unseeded, said at start, rather than refusing an app that served before.

import type { BucketSeed } from '../services/s3/index.ts';
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import {
  eventSourceMappingsOf,
  type QueueMapping,
  type StreamMapping,
  streamMappingsOf,
} from './event-source-mappings.ts';
import { type EventSeeds, eventSeedsOf } from './eventbridge-resources.ts';
import { resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { kinesisSeedsOf, type StreamSeed } from './kinesis-resources.ts';
import { type PipeSeed, pipesOf } from './pipe-resources.ts';
import { generatedParameterName, generatedQueueName, generatedSecretName } from './return-values.ts';
import { type S3NotificationSeeds, s3NotificationSeedsOf } from './s3-notification-resources.ts';
import { bucketsOf } from './s3-resources.ts';
import { type ScheduleSeed, schedulesOf } from './scheduler-resources.ts';
import { type SnsSeeds, snsSeedsOf } from './sns-resources.ts';
import { keptQueueAttributes, withQueuePolicies } from './sqs-resources.ts';
import { type ActivitySeed, activitiesOf, type StateMachineSeed, stateMachinesOf } from './state-machine-resources.ts';

/** A parameter as the template declares it. */
interface ParameterSeed {
  /** `Stack/LogicalId`, which notices name. */
  source: string;
  name: string;
  type: string;
  value: string;
}

/** What GenerateSecretString asks for ("AWS::SecretsManager::Secret GenerateSecretString"). */
export interface SecretGenerator {
  passwordLength?: number;
  excludeCharacters?: string;
  excludeLowercase?: boolean;
  excludeUppercase?: boolean;
  excludeNumbers?: boolean;
  excludePunctuation?: boolean;
  includeSpace?: boolean;
  requireEachIncludedType?: boolean;
  secretStringTemplate?: string;
  generateStringKey?: string;
}

/** A secret as the template declares it: its string, the generator of one, or neither (an empty secret). */
interface SecretSeed {
  source: string;
  name: string;
  secretString?: string;
  generate?: SecretGenerator;
}

/** A queue as the template declares it: its name and its attributes as SetQueueAttributes takes them. */
interface QueueSeed {
  source: string;
  name: string;
  attributes: Record<string, string>;
}

export interface ServiceSeeds {
  parameters: ParameterSeed[];
  secrets: SecretSeed[];
  /** Absent: none (seeds written before queues were served). */
  queues?: QueueSeed[];
  /** EventBridge Scheduler's schedules (scheduler-resources.ts); absent: none. */
  schedules?: ScheduleSeed[];
  /** The event source mappings of SQS queues (event-source-mappings.ts); absent: none. */
  mappings?: QueueMapping[];
  /** The event source mappings of Kinesis and DynamoDB streams (event-source-mappings.ts); absent: none. */
  streamMappings?: StreamMapping[];
  /** The SNS topics and subscriptions (sns-resources.ts); absent: none. */
  sns?: SnsSeeds;
  /** The EventBridge buses and rules (eventbridge-resources.ts); absent: none. */
  events?: EventSeeds;
  /** The Kinesis streams (kinesis-resources.ts); absent: none. */
  kinesis?: StreamSeed[];
  /** The S3 buckets (s3-resources.ts); absent: none. */
  buckets?: BucketSeed[];
  /** The Step Functions state machines (state-machine-resources.ts); absent: none. */
  stateMachines?: StateMachineSeed[];
  /** The Step Functions activities (state-machine-resources.ts); absent: none. */
  activities?: ActivitySeed[];
  /** The S3 buckets' event notifications (s3-notification-resources.ts); absent: none. */
  s3Notifications?: S3NotificationSeeds;
  /** The EventBridge pipes (pipe-resources.ts); absent: none. */
  pipes?: PipeSeed[];
  /** What could not be seeded, and why: said at start. */
  notices: string[];
}

/** Not evaluable locally: the resource is left out, with this reason. */
class Unseeded extends Error {}

/** The one call into the template evaluator: `value` (a property of `id`) as text, undefined when absent. */
const evaluated = (value: unknown, context: ValueContext, id: string, property: string): string | undefined => {
  if (value === undefined) return undefined;
  try {
    return resolveValue(value, context);
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw new Unseeded(`${context.stackName}/${id}: its ${property} ${error.message} has no local value`);
  }
};

const parameterOf = (id: string, resource: CfnResource, context: ValueContext): ParameterSeed => {
  const { Name, Type, Value } = props(resource);
  const value = evaluated(Value, context, id, 'Value');
  if (value === undefined)
    throw new UnsupportedTemplateError(`${context.stackName}/${id}: an SSM parameter with no Value`);
  return {
    source: `${context.stackName}/${id}`,
    name: evaluated(Name, context, id, 'Name') ?? generatedParameterName(context.stackName, id),
    type: evaluated(Type, context, id, 'Type') ?? 'String',
    value,
  };
};

const booleanOf = (value: string | undefined) => (value === undefined ? undefined : value === 'true');

/** GenerateSecretString's properties, each evaluated; SecretStringTemplate and GenerateStringKey come together. */
const generatorOf = (generate: unknown, context: ValueContext, id: string): SecretGenerator => {
  const given = (typeof generate === 'object' && generate !== null ? generate : {}) as Record<string, unknown>;
  const text = (key: string) => evaluated(given[key], context, id, `GenerateSecretString.${key}`);
  const length = text('PasswordLength');
  const generator: SecretGenerator = {
    ...(length !== undefined && { passwordLength: Number(length) }),
  };
  const strings = {
    excludeCharacters: 'ExcludeCharacters',
    secretStringTemplate: 'SecretStringTemplate',
    generateStringKey: 'GenerateStringKey',
  } as const;
  for (const [key, property] of Object.entries(strings)) {
    const value = text(property);
    if (value !== undefined) generator[key as keyof typeof strings] = value;
  }
  const flags = {
    excludeLowercase: 'ExcludeLowercase',
    excludeUppercase: 'ExcludeUppercase',
    excludeNumbers: 'ExcludeNumbers',
    excludePunctuation: 'ExcludePunctuation',
    includeSpace: 'IncludeSpace',
    requireEachIncludedType: 'RequireEachIncludedType',
  } as const;
  for (const [key, property] of Object.entries(flags)) {
    const value = booleanOf(text(property));
    if (value !== undefined) generator[key as keyof typeof flags] = value;
  }
  if ((generator.secretStringTemplate === undefined) !== (generator.generateStringKey === undefined))
    throw new UnsupportedTemplateError(
      `${context.stackName}/${id}: GenerateSecretString has one of SecretStringTemplate and GenerateStringKey without the other, which CloudFormation refuses`,
    );
  return generator;
};

const secretOf = (id: string, resource: CfnResource, context: ValueContext): SecretSeed => {
  const { Name, SecretString, GenerateSecretString } = props(resource);
  if (SecretString !== undefined && GenerateSecretString !== undefined)
    throw new UnsupportedTemplateError(
      `${context.stackName}/${id}: a secret with both SecretString and GenerateSecretString, which CloudFormation refuses`,
    );
  const secretString = evaluated(SecretString, context, id, 'SecretString');
  return {
    source: `${context.stackName}/${id}`,
    name: evaluated(Name, context, id, 'Name') ?? generatedSecretName(context.stackName, id),
    ...(secretString !== undefined && { secretString }),
    ...(GenerateSecretString !== undefined && {
      generate: generatorOf(GenerateSecretString, context, id),
    }),
  };
};

/** "AWS::SQS::Queue": the properties that are queue attributes of the same name. */
const queueAttributes = [
  'ContentBasedDeduplication',
  'DelaySeconds',
  'FifoQueue',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
];

const queueOf = (id: string, resource: CfnResource, context: ValueContext): QueueSeed => {
  const properties = props(resource);
  const attributes: Record<string, string> = keptQueueAttributes(resource, context);
  for (const name of queueAttributes) {
    const value = evaluated(properties[name], context, id, name);
    if (value !== undefined) attributes[name] = value;
  }
  const { RedrivePolicy, QueueName } = properties;
  if (RedrivePolicy !== undefined) {
    const given = (typeof RedrivePolicy === 'object' && RedrivePolicy !== null ? RedrivePolicy : {}) as Record<
      string,
      unknown
    >;
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: evaluated(given.deadLetterTargetArn, context, id, 'RedrivePolicy.deadLetterTargetArn'),
      maxReceiveCount: Number(evaluated(given.maxReceiveCount, context, id, 'RedrivePolicy.maxReceiveCount')),
    });
  }
  return {
    source: `${context.stackName}/${id}`,
    name:
      evaluated(QueueName, context, id, 'QueueName') ??
      generatedQueueName(context.stackName, id, attributes.FifoQueue === 'true'),
    attributes,
  };
};

/** Each parameter and secret of every stack (`stacks`, each its own context), as the services are seeded with them. */
export const serviceSeedsOf = (stacks: ValueContext[]): ServiceSeeds => {
  const seeds: ServiceSeeds = {
    parameters: [],
    secrets: [],
    queues: [],
    notices: [],
  };
  const read = <T>(type: string, reader: (id: string, r: CfnResource, c: ValueContext) => T, into: T[]) => {
    for (const context of stacks)
      for (const [id, resource] of ofType(context.resources, type)) {
        try {
          into.push(reader(id, resource, context));
        } catch (error) {
          if (!(error instanceof Unseeded)) throw error;
          seeds.notices.push(`${error.message}: not seeded (put it with --service-values)`);
        }
      }
  };
  read('AWS::SSM::Parameter', parameterOf, seeds.parameters);
  read('AWS::SecretsManager::Secret', secretOf, seeds.secrets);
  const queues: QueueSeed[] = [];
  read('AWS::SQS::Queue', queueOf, queues);
  seeds.queues = withQueuePolicies(queues, stacks, seeds.notices);
  seeds.schedules = schedulesOf(stacks, seeds.notices);
  seeds.mappings = eventSourceMappingsOf(stacks, seeds.notices);
  seeds.streamMappings = streamMappingsOf(stacks);
  seeds.sns = snsSeedsOf(stacks, seeds.notices);
  seeds.events = eventSeedsOf(stacks);
  seeds.kinesis = kinesisSeedsOf(stacks);
  seeds.buckets = bucketsOf(stacks);
  seeds.stateMachines = stateMachinesOf(stacks, seeds.notices);
  seeds.activities = activitiesOf(stacks);
  seeds.s3Notifications = s3NotificationSeedsOf(stacks, seeds.notices);
  seeds.pipes = pipesOf(stacks);
  return seeds;
};
