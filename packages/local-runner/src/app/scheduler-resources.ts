// The template's EventBridge Scheduler schedules (AWS::Scheduler::Schedule, "AWS::Scheduler::Schedule",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-scheduler-schedule.html), read
// into what the local Scheduler (services/scheduler.ts) times and delivers. Every value goes through the template
// evaluator; a schedule the runner cannot serve as AWS would (a value it cannot know, a malformed expression, a
// universal target `arn:aws:scheduler:::aws-sdk:...`, an ECS, Kinesis or SageMaker target) is left out, said at start
// naming the resource and why: it never fires on a guess.
import { checkTimezone, parseScheduleExpression, ScheduleExpressionError } from '../services/schedule-expressions.ts';
import { type CfnResource, ofType, props } from './cfn.ts';
import { evaluate, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { generatedScheduleName, localScheduleArn } from './return-values.ts';

/** What a schedule delivers, and to what. */
interface ScheduleTarget {
  arn: string;
  /** Target.Input, as given (context attributes replaced at each firing). */
  input?: string;
  /** SqsParameters.MessageGroupId (a FIFO queue). */
  messageGroupId?: string;
  /** EventBridgeParameters (a bus): the event's detail-type and source. */
  eventBridge?: { detailType: string; source: string };
  deadLetterArn?: string;
  /** RetryPolicy; AWS's defaults when absent (185 attempts, 86,400 s). */
  maximumRetryAttempts: number;
  maximumEventAgeInSeconds: number;
}

/** A schedule as the template declares it. */
export interface ScheduleSeed {
  /** `Stack/LogicalId`. */
  source: string;
  name: string;
  group: string;
  arn: string;
  expression: string;
  timezone: string;
  enabled: boolean;
  /** Epoch ms. */
  startDate?: number;
  endDate?: number;
  /** FlexibleTimeWindow FLEXIBLE's MaximumWindowInMinutes; undefined: OFF. */
  windowMinutes?: number;
  /** ActionAfterCompletion DELETE: a one-time schedule is gone once it fired. */
  deleteAfterCompletion: boolean;
  target: ScheduleTarget;
}

/** Why a schedule is not served. */
class NotServed extends Error {}

/** Refused for a reason of the template: said, naming the schedule. */
const notServed = (context: ValueContext, id: string, why: string) =>
  new NotServed(`${context.stackName}/${id}: schedule not served: ${why}`);

/** An object property of the template (Target, RetryPolicy, ...), empty when absent. */
const objectOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** `value` (the property `property`), evaluated to text; undefined when absent. */
const textOf = (value: unknown, context: ValueContext, id: string, property: string): string | undefined => {
  if (value === undefined) return undefined;
  try {
    const evaluated = evaluate(value, context);
    if (typeof evaluated === 'object' || typeof evaluated === 'symbol')
      throw notServed(context, id, `its ${property} is not text`);
    return String(evaluated);
  } catch (error) {
    if (error instanceof UnresolvableValueError)
      throw notServed(context, id, `its ${property} ${error.message} has no local value`);
    throw error;
  }
};

/** Target types the runner does not serve: refused by name. */
const unservedTargets = ['EcsParameters', 'KinesisParameters', 'SageMakerPipelineParameters'];

const targetOf = (given: Record<string, unknown>, context: ValueContext, id: string): ScheduleTarget => {
  const text = (value: unknown, property: string) => textOf(value, context, id, `Target.${property}`);
  const arn = text(given.Arn, 'Arn');
  if (arn === undefined) throw notServed(context, id, 'it has no Target.Arn');
  if (arn.startsWith('arn:aws:scheduler:::aws-sdk:'))
    throw notServed(
      context,
      id,
      `its universal target ${arn} (an AWS SDK call) is not served; a templated target (Lambda, SQS, SNS, EventBridge) is`,
    );
  const unserved = unservedTargets.find((key) => given[key] !== undefined);
  if (unserved) throw notServed(context, id, `its target's ${unserved} is not served locally`);
  const retry = objectOf(given.RetryPolicy);
  const sqs = objectOf(given.SqsParameters);
  const bus = objectOf(given.EventBridgeParameters);
  const input = text(given.Input, 'Input');
  const messageGroupId = text(sqs.MessageGroupId, 'SqsParameters.MessageGroupId');
  const deadLetterArn = text(objectOf(given.DeadLetterConfig).Arn, 'DeadLetterConfig.Arn');
  const detailType = text(bus.DetailType, 'EventBridgeParameters.DetailType');
  const source = text(bus.Source, 'EventBridgeParameters.Source');
  return {
    arn,
    ...(input !== undefined && { input }),
    ...(messageGroupId !== undefined && { messageGroupId }),
    ...(detailType !== undefined && source !== undefined && { eventBridge: { detailType, source } }),
    ...(deadLetterArn !== undefined && { deadLetterArn }),
    maximumRetryAttempts: Number(text(retry.MaximumRetryAttempts, 'RetryPolicy.MaximumRetryAttempts') ?? 185),
    maximumEventAgeInSeconds: Number(
      text(retry.MaximumEventAgeInSeconds, 'RetryPolicy.MaximumEventAgeInSeconds') ?? 86_400,
    ),
  };
};

/** A date property (ISO 8601, as CloudFormation takes StartDate and EndDate), as epoch ms. */
const dateOf = (value: string | undefined, context: ValueContext, id: string, property: string) => {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw notServed(context, id, `its ${property} ${JSON.stringify(value)} is not a date`);
  return time;
};

/** The expression and its time zone, checked as Scheduler checks them. */
const timingOf = (properties: Record<string, unknown>, context: ValueContext, id: string) => {
  const expression = textOf(properties.ScheduleExpression, context, id, 'ScheduleExpression');
  if (expression === undefined) throw notServed(context, id, 'it has no ScheduleExpression');
  const timezone = textOf(properties.ScheduleExpressionTimezone, context, id, 'ScheduleExpressionTimezone') ?? 'UTC';
  try {
    parseScheduleExpression(expression, 'scheduler');
    checkTimezone(timezone);
  } catch (error) {
    if (error instanceof ScheduleExpressionError) throw notServed(context, id, error.message);
    throw error;
  }
  return { expression, timezone };
};

const scheduleOf = (id: string, resource: CfnResource, context: ValueContext): ScheduleSeed => {
  const properties = props(resource);
  const text = (property: string) => textOf(properties[property], context, id, property);
  const name = text('Name') ?? generatedScheduleName(context.stackName, id);
  const group = text('GroupName') ?? 'default';
  const window = objectOf(properties.FlexibleTimeWindow);
  const mode = textOf(window.Mode, context, id, 'FlexibleTimeWindow.Mode') ?? 'OFF';
  const maximum = textOf(window.MaximumWindowInMinutes, context, id, 'FlexibleTimeWindow.MaximumWindowInMinutes');
  if (mode === 'FLEXIBLE' && maximum === undefined)
    throw notServed(context, id, 'FlexibleTimeWindow FLEXIBLE without MaximumWindowInMinutes');
  const startDate = dateOf(text('StartDate'), context, id, 'StartDate');
  const endDate = dateOf(text('EndDate'), context, id, 'EndDate');
  return {
    source: `${context.stackName}/${id}`,
    name,
    group,
    arn: localScheduleArn(group, name),
    ...timingOf(properties, context, id),
    enabled: (text('State') ?? 'ENABLED') === 'ENABLED',
    ...(startDate !== undefined && { startDate }),
    ...(endDate !== undefined && { endDate }),
    ...(mode === 'FLEXIBLE' && { windowMinutes: Number(maximum) }),
    deleteAfterCompletion: text('ActionAfterCompletion') === 'DELETE',
    target: targetOf(objectOf(properties.Target), context, id),
  };
};

/** Each AWS::Scheduler::Schedule of every stack; one that cannot be served is left out, its reason put in `notices`. */
export const schedulesOf = (stacks: ValueContext[], notices: string[]): ScheduleSeed[] =>
  stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::Scheduler::Schedule').flatMap(([id, resource]) => {
      try {
        return [scheduleOf(id, resource, context)];
      } catch (error) {
        if (!(error instanceof NotServed)) throw error;
        notices.push(error.message);
        return [];
      }
    }),
  );
