// The template's EventBridge resources, as the local EventBridge (services/eventbridge.ts) is seeded with them:
// AWS::Events::EventBus (a custom bus, by its Name) and AWS::Events::Rule (its bus, EventPattern or ScheduleExpression,
// State and Targets with Input, InputPath, InputTransformer, DeadLetterConfig, RetryPolicy and SqsParameters), from
// "AWS::Events::Rule" and "AWS::Events::Rule Target" in the CloudFormation template reference
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-events-rule.html).
// Every value goes through the template evaluator; one it cannot know refuses the app naming the rule and the property,
// except a target's Arn: a target the runner cannot know or does not serve (a stream, a log group)
// is left out, said at start by the service (see docs/services.md, "EventBridge").
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { generatedRuleName } from './return-values.ts';

/** A rule's target as the template gives it (PutTargets' Target). */
export interface RuleTarget {
  id: string;
  /** Its ARN; undefined when the runner cannot know it (`unknown` says why). */
  arn?: string;
  unknown?: string;
  input?: string;
  inputPath?: string;
  inputTransformer?: { inputPathsMap: Record<string, string>; inputTemplate: string };
  deadLetterArn?: string;
  retryPolicy?: { maximumRetryAttempts?: number; maximumEventAgeInSeconds?: number };
  /** SqsParameters.MessageGroupId, for a FIFO queue. */
  messageGroupId?: string;
}

export interface RuleSeed {
  /** `Stack/LogicalId`. */
  source: string;
  name: string;
  /** The bus's name (`default` when absent). */
  bus: string;
  description?: string;
  /** The event pattern, parsed; absent for a schedule rule. */
  pattern?: unknown;
  scheduleExpression?: string;
  state: string;
  targets: RuleTarget[];
}

export interface BusSeed {
  source: string;
  name: string;
  description?: string;
}

export interface EventSeeds {
  buses: BusSeed[];
  rules: RuleSeed[];
}

interface Reading {
  context: ValueContext;
  /** `Stack/LogicalId`: what a refusal names. */
  source: string;
}

/** `value` (the property `property`) evaluated, intrinsics resolved; a value the runner cannot know refuses the app. */
const evaluated = (value: unknown, { context, source }: Reading, property: string) =>
  evaluatedProperty(value, context, source, property);

const textOf = (value: unknown, reading: Reading, property: string): string | undefined => {
  const result = evaluated(value, reading, property);
  if (result === undefined || result === null) return undefined;
  if (typeof result === 'object')
    throw new UnsupportedTemplateError(`${reading.source}: its ${property} is not a string`);
  return String(result);
};

const numberOf = (value: unknown, reading: Reading, property: string): number | undefined => {
  const text = textOf(value, reading, property);
  if (text === undefined) return undefined;
  const number = Number(text);
  if (!Number.isInteger(number) || number < 0)
    throw new UnsupportedTemplateError(`${reading.source}: its ${property} ${text} is not a whole number`);
  return number;
};

const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The bus a rule's EventBusName names: a name, or a bus's ARN (`...:event-bus/<name>`). */
const busNameOf = (given: string | undefined) =>
  given === undefined ? 'default' : given.replace(/^arn:.*:event-bus\//, '');

/** A target's Arn: known, or why not (the service it names is then not served, said at start). */
const targetArnOf = (value: unknown, { context }: Reading) => {
  try {
    return { arn: resolveValue(value, context) };
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    return { unknown: error.message };
  }
};

const transformerOf = (value: unknown, reading: Reading, at: string): RuleTarget['inputTransformer'] => {
  if (value === undefined) return undefined;
  const given = recordOf(evaluated(value, reading, `${at}.InputTransformer`));
  const template = given.InputTemplate;
  if (typeof template !== 'string')
    throw new UnsupportedTemplateError(`${reading.source}: its ${at}.InputTransformer has no InputTemplate`);
  const paths = recordOf(given.InputPathsMap);
  const inputPathsMap: Record<string, string> = {};
  for (const [name, path] of Object.entries(paths)) {
    if (typeof path !== 'string')
      throw new UnsupportedTemplateError(
        `${reading.source}: its ${at}.InputTransformer.InputPathsMap.${name} is not a path`,
      );
    inputPathsMap[name] = path;
  }
  return { inputPathsMap, inputTemplate: template };
};

const targetOf = (given: unknown, index: number, reading: Reading): RuleTarget => {
  const target = recordOf(given);
  const at = `Targets[${index}]`;
  const id = textOf(target.Id, reading, `${at}.Id`) ?? String(index);
  const retry = recordOf(target.RetryPolicy);
  const maximumRetryAttempts = numberOf(retry.MaximumRetryAttempts, reading, `${at}.RetryPolicy.MaximumRetryAttempts`);
  const maximumEventAgeInSeconds = numberOf(
    retry.MaximumEventAgeInSeconds,
    reading,
    `${at}.RetryPolicy.MaximumEventAgeInSeconds`,
  );
  const input = textOf(target.Input, reading, `${at}.Input`);
  const inputPath = textOf(target.InputPath, reading, `${at}.InputPath`);
  const inputTransformer = transformerOf(target.InputTransformer, reading, at);
  const deadLetterArn = textOf(recordOf(target.DeadLetterConfig).Arn, reading, `${at}.DeadLetterConfig.Arn`);
  const messageGroupId = textOf(recordOf(target.SqsParameters).MessageGroupId, reading, `${at}.SqsParameters`);
  if ([input, inputPath, inputTransformer].filter((set) => set !== undefined).length > 1)
    throw new UnsupportedTemplateError(
      `${reading.source}: its target ${id} has more than one of Input, InputPath and InputTransformer, which EventBridge refuses`,
    );
  return {
    id,
    ...targetArnOf(target.Arn, reading),
    ...(input !== undefined && { input }),
    ...(inputPath !== undefined && { inputPath }),
    ...(inputTransformer && { inputTransformer }),
    ...(deadLetterArn !== undefined && { deadLetterArn }),
    ...((maximumRetryAttempts !== undefined || maximumEventAgeInSeconds !== undefined) && {
      retryPolicy: {
        ...(maximumRetryAttempts !== undefined && { maximumRetryAttempts }),
        ...(maximumEventAgeInSeconds !== undefined && { maximumEventAgeInSeconds }),
      },
    }),
    ...(messageGroupId !== undefined && { messageGroupId }),
  };
};

/** A rule's EventPattern: an object in the template, or its JSON text. */
const patternOf = (value: unknown, reading: Reading) => {
  const pattern = evaluated(value, reading, 'EventPattern');
  if (typeof pattern !== 'string') return pattern ?? undefined;
  try {
    return JSON.parse(pattern) as unknown;
  } catch {
    throw new UnsupportedTemplateError(`${reading.source}: its EventPattern is not JSON`);
  }
};

const ruleOf = (id: string, resource: CfnResource, context: ValueContext): RuleSeed => {
  const reading = { context, source: `${context.stackName}/${id}` };
  const properties = props(resource);
  const pattern = patternOf(properties.EventPattern, reading);
  const scheduleExpression = textOf(properties.ScheduleExpression, reading, 'ScheduleExpression');
  if (pattern === undefined && scheduleExpression === undefined)
    throw new UnsupportedTemplateError(
      `${reading.source}: a rule with neither EventPattern nor ScheduleExpression, which EventBridge refuses`,
    );
  const targets = properties.Targets ?? [];
  if (!Array.isArray(targets)) throw new UnsupportedTemplateError(`${reading.source}: its Targets is not a list`);
  const description = textOf(properties.Description, reading, 'Description');
  return {
    source: reading.source,
    name: textOf(properties.Name, reading, 'Name') ?? generatedRuleName(context.stackName, id),
    bus: busNameOf(textOf(properties.EventBusName, reading, 'EventBusName')),
    ...(description !== undefined && { description }),
    ...(pattern !== undefined && { pattern }),
    ...(scheduleExpression !== undefined && { scheduleExpression }),
    state: textOf(properties.State, reading, 'State') ?? 'ENABLED',
    targets: targets.map((target, index) => targetOf(target, index, reading)),
  };
};

const busOf = (id: string, resource: CfnResource, context: ValueContext): BusSeed => {
  const reading = { context, source: `${context.stackName}/${id}` };
  const { Name, Description } = props(resource);
  const name = textOf(Name, reading, 'Name');
  if (name === undefined) throw new UnsupportedTemplateError(`${reading.source}: an event bus with no Name`);
  const description = textOf(Description, reading, 'Description');
  return { source: reading.source, name, ...(description !== undefined && { description }) };
};

/** Every event bus and rule of `stacks`. */
export const eventSeedsOf = (stacks: ValueContext[]): EventSeeds => ({
  buses: stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::Events::EventBus').map(([id, resource]) => busOf(id, resource, context)),
  ),
  rules: stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::Events::Rule').map(([id, resource]) => ruleOf(id, resource, context)),
  ),
});
