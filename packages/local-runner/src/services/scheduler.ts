// Amazon EventBridge Scheduler, locally: the template's schedules (app/scheduler-resources.ts), timed by the runner's
// schedule clock (schedule-clock.ts), each firing delivered to its target through Targets (a Lambda function invoked
// asynchronously, an SQS queue, an SNS topic, an EventBridge bus), with Target.Input as given and its context
// attributes replaced ("Adding context attributes in EventBridge Scheduler",
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-context-attributes.html). A delivery the
// target's service refuses goes to the schedule's dead-letter queue, if it has one ("Configuring a schedule's
// dead-letter queue in EventBridge Scheduler",
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html). No schedule is created,
// changed or deleted through Scheduler's API: the template's are the ones served.
import { randomBytes } from 'node:crypto';
import type { ScheduleSeed } from '../app/scheduler-resources.ts';
import type { ScheduleClock, TimedSchedule } from './schedule-clock.ts';
import { type Delivery, TargetError, type Targets } from './targets.ts';

/** Target.Input with Scheduler's context attributes replaced for one attempt. */
const withContextAttributes = (
  input: string,
  values: { scheduleArn: string; scheduledTime: Date; executionId: string; attempt: number },
) =>
  input
    .replaceAll('<aws.scheduler.schedule-arn>', values.scheduleArn)
    .replaceAll('<aws.scheduler.scheduled-time>', values.scheduledTime.toISOString().replace(/\.\d{3}Z$/, 'Z'))
    .replaceAll('<aws.scheduler.execution-id>', values.executionId)
    .replaceAll('<aws.scheduler.attempt-number>', String(values.attempt));

/**
 * The message a bus target gets: an event whose detail is the input ("EventBridgeParameters", CreateSchedule); an
 * input that is not a JSON object is refused, as PutEvents refuses such a Detail.
 */
const busEvent = (seed: ScheduleSeed, body: string) => {
  let detail: unknown;
  try {
    detail = JSON.parse(body);
  } catch {
    detail = undefined;
  }
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail))
    throw new TargetError(
      `${seed.target.arn}: the Input of ${seed.arn} is not a JSON object, which an event's detail is`,
    );
  return JSON.stringify({
    source: seed.target.eventBridge?.source,
    'detail-type': seed.target.eventBridge?.detailType,
    detail,
    resources: [seed.arn],
  });
};

/** One firing: the input delivered once; a refusal sent to the dead-letter queue (when there is one) and said. */
const deliverer =
  (seed: ScheduleSeed, targets: Targets, log: (line: string) => void) => async (scheduledTime: Date) => {
    const executionId = randomBytes(8).toString('hex');
    const input = withContextAttributes(seed.target.input ?? '', {
      scheduleArn: seed.arn,
      scheduledTime,
      executionId,
      attempt: 1,
    });
    const source = `scheduler:${seed.group}/${seed.name}`;
    const isBus = /^arn:[^:]+:events:/.test(seed.target.arn);
    try {
      const delivery: Delivery = {
        body: isBus && seed.target.eventBridge ? busEvent(seed, input) : input,
        source,
        ...(seed.target.messageGroupId !== undefined && { messageGroupId: seed.target.messageGroupId }),
      };
      await targets.deliver(seed.target.arn, delivery);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (seed.target.deadLetterArn === undefined) throw error;
      const text = (value: string) => ({ DataType: 'String', StringValue: value });
      await targets.deliver(seed.target.deadLetterArn, {
        body: input,
        source,
        attributes: {
          ERROR_CODE: text(error instanceof Error ? error.name : 'Error'),
          ERROR_MESSAGE: text(message),
          EXECUTION_ID: text(executionId),
          SCHEDULE_ARN: text(seed.arn),
          SCHEDULED_TIME: text(scheduledTime.toISOString()),
          TARGET_ARN: text(seed.target.arn),
        },
      });
      log(`${source}: ${message}: sent to its dead-letter queue ${seed.target.deadLetterArn}`);
    }
  };

/** What the banner says a schedule reaches. */
const targetOf = (seed: ScheduleSeed) =>
  `${seed.target.arn}${seed.target.deadLetterArn ? ` (dead-letter queue ${seed.target.deadLetterArn})` : ''}`;

/** The template's schedules, each on `clock`; `seed` again (a reload) replaces them. */
export const localScheduler = (clock: ScheduleClock, targets: Targets, log: (line: string) => void) => ({
  seed: (seeds: ScheduleSeed[]) =>
    clock.set(
      'scheduler',
      seeds.map(
        (seed): TimedSchedule => ({
          key: `schedule ${seed.group}/${seed.name}`,
          owner: 'scheduler',
          names: [seed.name, seed.source, seed.source.slice(seed.source.indexOf('/') + 1), seed.arn],
          service: 'scheduler',
          expression: seed.expression,
          timezone: seed.timezone,
          enabled: seed.enabled,
          ...(seed.startDate !== undefined && { startDate: seed.startDate }),
          ...(seed.endDate !== undefined && { endDate: seed.endDate }),
          ...(seed.windowMinutes !== undefined && { windowMinutes: seed.windowMinutes }),
          target: targetOf(seed),
          fire: deliverer(seed, targets, log),
          deleteAfterCompletion: seed.deleteAfterCompletion,
        }),
      ),
    ),
});
