// The schedule clock: when a schedule fires at start, what a restart on the same data folder remembers (a one-time
// schedule's firing, ActionAfterCompletion DELETE), and firing by name. Timing as "Schedule types on EventBridge
// Scheduler" (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html) describes it: a rate without
// a StartDate starts at once; a one-time schedule fires once. What AWS does not document (a one-time schedule whose
// time had passed when it was first read) is the runner's choice, said in docs/services.md: not fired, said.
// Each test waits for a firing (a promise its fire resolves), never for time: what it fires is due already.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { type ClockState, emptyClock, ScheduleClock, type TimedSchedule } from '../../src/services/schedule-clock.ts';
import { stateFile } from '../../src/services/state-file.ts';

let dataDir = '';
const clocks: ScheduleClock[] = [];
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'schedule-clock-'));
});
afterEach(() => {
  for (const clock of clocks.splice(0)) clock.stop();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A clock on `folder`'s state, with its log. */
const clockOn = (folder: string) => {
  const log: string[] = [];
  const file = stateFile<ClockState>(join(dataDir, folder), 'schedules', emptyClock);
  const clock = new ScheduleClock(file, (line) => log.push(line));
  clocks.push(clock);
  return { clock, log, file };
};

/** A schedule, and the due times it was fired with, resolving `firstFiring` on its first. */
const scheduleOf = (key: string, expression: string, more: Partial<TimedSchedule> = {}) => {
  const fired: Date[] = [];
  let resolve: (time: Date) => void = () => undefined;
  const firstFiring = new Promise<Date>((done) => {
    resolve = done;
  });
  const schedule: TimedSchedule = {
    key,
    owner: 'test',
    names: [key.split('/')[1] as string],
    service: 'scheduler',
    expression,
    enabled: true,
    target: 'arn:aws:sqs:us-east-1:000000000000:q',
    fire: async (time) => {
      fired.push(time);
      resolve(time);
    },
    ...more,
  };
  return { schedule, fired, firstFiring };
};

const atOf = (time: number) => `at(${new Date(time).toISOString().slice(0, 19)})`;

test('a rate schedule of Scheduler without a StartDate fires at once, then every period', async () => {
  const { clock } = clockOn('rate');
  const { schedule, firstFiring } = scheduleOf('schedule default/every', 'rate(10 minutes)');
  const before = Date.now();
  clock.set('test', [schedule]);
  clock.start();
  const first = await firstFiring;
  expect(first.getTime()).toBeGreaterThanOrEqual(before - 1);
  await new Promise((resolve) => setImmediate(resolve));
  expect(clock.list()[0]?.next?.getTime()).toBe(first.getTime() + 600_000);
});

test('a one-time schedule due while the runner was stopped fires at start, once; a restart does not repeat it', async () => {
  const now = Date.now();
  const first = clockOn('missed');
  // The runner read it an hour ago, then stopped before its time came.
  first.file.write({ schedules: { 'schedule default/once': { seen: now - 3_600_000 } } });
  const once = scheduleOf('schedule default/once', atOf(now - 60_000));
  first.clock.set('test', [once.schedule]);
  first.clock.start();
  await once.firstFiring;
  first.clock.stop();
  expect(first.file.read().schedules['schedule default/once']).toMatchObject({ done: true });

  const again = clockOn('missed');
  const twice = scheduleOf('schedule default/once', atOf(now - 60_000));
  again.clock.set('test', [twice.schedule]);
  again.clock.start();
  expect(again.clock.list()[0]?.next).toBeUndefined();
  expect(twice.fired).toEqual([]);
});

test('a one-time schedule already past when first read is not fired, and says so', () => {
  const { clock, log } = clockOn('stale');
  const { schedule, fired } = scheduleOf('schedule default/stale', 'at(2020-01-01T00:00:00)');
  clock.set('test', [schedule]);
  clock.start();
  expect(fired).toEqual([]);
  expect(log).toEqual([
    'schedule default/stale: at(2020-01-01T00:00:00) had passed when the runner first read it: not fired (fire it by hand with `cdk-local-runner fire`)',
  ]);
});

test('ActionAfterCompletion DELETE: the fired one-time schedule is gone, at the next start too', async () => {
  const now = Date.now();
  const { clock, log, file } = clockOn('delete');
  file.write({ schedules: { 'schedule default/gone': { seen: now - 3_600_000 } } });
  const gone = scheduleOf('schedule default/gone', atOf(now - 1000), { deleteAfterCompletion: true });
  clock.set('test', [gone.schedule]);
  clock.start();
  await gone.firstFiring;
  await new Promise((resolve) => setImmediate(resolve));
  expect(clock.list()).toEqual([]);
  expect(log).toContain('schedule default/gone: completed, and deleted (ActionAfterCompletion DELETE)');
  const next = clockOn('delete');
  next.clock.set('test', [gone.schedule]);
  expect(next.clock.list()).toEqual([]);
});

test('fire: a disabled schedule fires by hand, by name; an unknown or shared name is refused, listing them', async () => {
  const { clock } = clockOn('by-hand');
  const paused = scheduleOf('schedule default/paused', 'cron(0 3 * * ? *)', { enabled: false });
  const rule = scheduleOf('rule default/paused', 'rate(1 day)', { owner: 'events', service: 'rule' });
  clock.set('test', [paused.schedule]);
  clock.set('events', [rule.schedule]);
  clock.start();
  expect(clock.list().map(({ key, next }) => [key, next])).toEqual([
    ['schedule default/paused', undefined],
    ['rule default/paused', expect.any(Date)],
  ]);
  expect(await clock.fire('schedule default/paused')).toBe('schedule default/paused');
  expect(paused.fired).toHaveLength(1);
  await expect(clock.fire('paused')).rejects.toThrow(
    'paused names schedule default/paused and rule default/paused: give the one meant',
  );
  await expect(clock.fire('nope')).rejects.toThrow(RangeError);
});

test("a rule's at(), or any malformed expression, is said and not timed; the others are", () => {
  const { clock, log } = clockOn('malformed');
  const rule = scheduleOf('rule default/once', 'at(2030-01-01T00:00:00)', { owner: 'events', service: 'rule' });
  const fine = scheduleOf('rule default/daily', 'cron(0 3 * * ? *)', { owner: 'events', service: 'rule' });
  clock.set('events', [rule.schedule, fine.schedule]);
  expect(clock.list().map(({ key }) => key)).toEqual(['rule default/daily']);
  expect(log).toEqual([
    'rule default/once: not timed: at(2030-01-01T00:00:00): an EventBridge rule takes rate(...) or cron(...); at(...) is Scheduler’s',
  ]);
});
