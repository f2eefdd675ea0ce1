// What a Scheduler schedule's firing hands to its target, through the runner's Targets: the Input with its context
// attributes replaced ("Adding context attributes in EventBridge Scheduler",
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-context-attributes.html), a FIFO queue's
// MessageGroupId (SqsParameters), a bus's event of EventBridgeParameters' Source and DetailType ("CreateSchedule",
// EventBridge Scheduler API Reference, https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateSchedule.html),
// and a refused delivery sent to the dead-letter queue ("Configuring a schedule's dead-letter queue in EventBridge
// Scheduler", https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html).
import { afterEach, expect, test } from '@jest/globals';
import type { ScheduleSeed } from '../../src/app/scheduler-resources.ts';
import { emptyClock, ScheduleClock } from '../../src/services/schedule-clock.ts';
import { localScheduler } from '../../src/services/scheduler.ts';
import { stateFile } from '../../src/services/state-file.ts';
import { type Delivery, TargetError, Targets } from '../../src/services/targets.ts';

const clocks: ScheduleClock[] = [];
afterEach(() => {
  for (const clock of clocks.splice(0)) clock.stop();
});

const queue = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const arnOf = (name: string) => `arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}`;

/** A schedule that fires only by hand, to `target`. */
const seedOf = (name: string, target: Partial<ScheduleSeed['target']> & { arn: string }): ScheduleSeed => ({
  source: `Timed/${name}`,
  name,
  group: 'default',
  arn: arnOf(name),
  expression: 'cron(0 3 * * ? 2199)',
  timezone: 'UTC',
  enabled: false,
  deleteAfterCompletion: false,
  target: { maximumRetryAttempts: 185, maximumEventAgeInSeconds: 86_400, ...target },
});

/** Targets that take queues (keeping what they get) and no function; a scheduler of `seeds` on them. */
const schedulerOf = (seeds: ScheduleSeed[]) => {
  const received: { arn: string; delivery: Delivery }[] = [];
  const targets = new Targets();
  const keep = async (arn: string, delivery: Delivery) => {
    received.push({ arn, delivery });
  };
  targets.register('sqs', keep);
  targets.register('events', keep);
  targets.register('lambda', async (arn) => {
    throw new TargetError(`${arn}: no function of that name (and qualifier) is served`);
  });
  const log: string[] = [];
  const clock = new ScheduleClock(stateFile(undefined, 'schedules', emptyClock), (line) => log.push(line));
  clocks.push(clock);
  localScheduler(clock, targets, (line) => log.push(line)).seed(seeds);
  return { clock, received, log };
};

test('the Input reaches a FIFO queue with its MessageGroupId, every context attribute replaced', async () => {
  const input =
    '<aws.scheduler.schedule-arn>|<aws.scheduler.scheduled-time>|<aws.scheduler.execution-id>|<aws.scheduler.attempt-number>';
  const { clock, received } = schedulerOf([
    seedOf('fifo', { arn: queue('jobs.fifo'), input, messageGroupId: 'nightly' }),
  ]);
  await clock.fire('fifo');
  expect(received).toEqual([
    {
      arn: queue('jobs.fifo'),
      delivery: {
        body: expect.stringMatching(
          new RegExp(`^${arnOf('fifo')}\\|\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\|[0-9a-f]{16}\\|1$`),
        ),
        source: 'scheduler:default/fifo',
        messageGroupId: 'nightly',
      },
    },
  ]);
});

test("a bus gets an event of EventBridgeParameters' Source and DetailType, the Input its detail", async () => {
  const bus = 'arn:aws:events:us-east-1:000000000000:event-bus/default';
  const { clock, received } = schedulerOf([
    seedOf('to-bus', { arn: bus, input: '{"job":"report"}', eventBridge: { source: 'my.app', detailType: 'Tick' } }),
  ]);
  await clock.fire('to-bus');
  expect(received.map(({ arn, delivery }) => [arn, JSON.parse(delivery.body)])).toEqual([
    [bus, { source: 'my.app', 'detail-type': 'Tick', detail: { job: 'report' }, resources: [arnOf('to-bus')] }],
  ]);
});

test('a delivery refused goes to the dead-letter queue, with what failed in its message attributes, and is said', async () => {
  const fn = 'arn:aws:lambda:us-east-1:000000000000:function:Gone';
  const { clock, received, log } = schedulerOf([
    seedOf('orphan', { arn: fn, input: '{"at":"<aws.scheduler.scheduled-time>"}', deadLetterArn: queue('dlq') }),
  ]);
  await clock.fire('orphan');
  const [dead] = received;
  expect(dead?.arn).toBe(queue('dlq'));
  expect(dead?.delivery.body).toMatch(/^\{"at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\}$/);
  const text = (value: unknown) => ({ DataType: 'String', StringValue: value });
  expect(dead?.delivery.attributes).toEqual({
    ERROR_CODE: text('TargetError'),
    ERROR_MESSAGE: text(`${fn}: no function of that name (and qualifier) is served`),
    EXECUTION_ID: text(expect.stringMatching(/^[0-9a-f]{16}$/)),
    SCHEDULE_ARN: text(arnOf('orphan')),
    SCHEDULED_TIME: text(expect.stringMatching(/Z$/)),
    TARGET_ARN: text(fn),
  });
  expect(log).toContain(
    `scheduler:default/orphan: ${fn}: no function of that name (and qualifier) is served: sent to its dead-letter queue ${queue('dlq')}`,
  );
});

test('without a dead-letter queue, a refused delivery fails the firing', async () => {
  const { clock } = schedulerOf([seedOf('lost', { arn: 'arn:aws:lambda:us-east-1:000000000000:function:Gone' })]);
  await expect(clock.fire('lost')).rejects.toThrow(TargetError);
});
