// Schedule expressions read as AWS documents them: "Setting a schedule pattern for scheduled rules (legacy) in Amazon
// EventBridge" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html: its cron
// examples table, its wildcards and limits, its rate rules), "Schedule types on EventBridge Scheduler"
// (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html: at(), time zones, daylight saving time,
// with "How can I adjust my Amazon EventBridge schedule for daylight saving?",
// https://repost.aws/knowledge-center/eventbridge-scheduler-adjust-dst).
import { describe, expect, test } from '@jest/globals';
import {
  chosenFireTime,
  nextFireTime,
  parseScheduleExpression,
  ScheduleExpressionError,
} from '../../src/services/schedule-expressions.ts';

const next = (expression: string, after: string, timezone?: string) =>
  nextFireTime(expression, new Date(after), timezone)?.toISOString();

describe("the EventBridge page's cron examples", () => {
  // Saturday 28 November 2026, 03:07 UTC.
  const after = '2026-11-28T03:07:00Z';
  test.each([
    ['cron(0 10 * * ? *)', '2026-11-28T10:00:00.000Z'], // 10:00 am every day
    ['cron(15 12 * * ? *)', '2026-11-28T12:15:00.000Z'], // 12:15 pm every day
    ['cron(0 18 ? * MON-FRI *)', '2026-11-30T18:00:00.000Z'], // 6:00 pm Monday to Friday
    ['cron(0 8 1 * ? *)', '2026-12-01T08:00:00.000Z'], // 8:00 am on the first day of the month
    ['cron(0/15 * * * ? *)', '2026-11-28T03:15:00.000Z'], // every 15 minutes
    ['cron(0/10 * ? * MON-FRI *)', '2026-11-30T00:00:00.000Z'], // every 10 minutes Monday to Friday
    ['cron(0/5 8-17 ? * MON-FRI *)', '2026-11-30T08:00:00.000Z'], // every 5 minutes, 8:00 to 17:55, weekdays
    ['cron(0 9 ? * 2#1 *)', '2026-12-07T09:00:00.000Z'], // 9:00 am on the first Monday of each month
  ])('%s fires next at %s', (expression, expected) => {
    expect(next(expression, after)).toBe(expected);
  });
});

describe('the wildcards', () => {
  test('L in Day-of-month is the last day of the month (February of a common year: the 28th)', () => {
    expect(next('cron(0 5 L * ? *)', '2026-02-03T00:00:00Z')).toBe('2026-02-28T05:00:00.000Z');
    expect(next('cron(0 5 L * ? *)', '2028-02-03T00:00:00Z')).toBe('2028-02-29T05:00:00.000Z');
  });

  test('W is the weekday nearest the day: 15 August 2026 is a Saturday, so Friday the 14th', () => {
    expect(next('cron(0 5 15W * ? *)', '2026-08-03T00:00:00Z')).toBe('2026-08-14T05:00:00.000Z');
  });

  test('L in Day-of-week is the last day of the week, SAT; names and 1-7 count SUN to SAT', () => {
    expect(next('cron(0 0 ? * L *)', '2026-11-23T00:00:00Z')).toBe('2026-11-28T00:00:00.000Z');
    expect(next('cron(0 0 ? * 1 *)', '2026-11-23T00:00:00Z')).toBe('2026-11-29T00:00:00.000Z');
    expect(next('cron(0 0 ? * sun *)', '2026-11-23T00:00:00Z')).toBe('2026-11-29T00:00:00.000Z');
  });

  test('a year, a list of months by name, and a step from a value', () => {
    expect(next('cron(30 6 1 JAN,JUL ? 2027)', '2026-11-28T00:00:00Z')).toBe('2027-01-01T06:30:00.000Z');
    expect(next('cron(1/10 * * * ? *)', '2026-11-28T00:12:00Z')).toBe('2026-11-28T00:21:00.000Z');
  });

  test('a cron that never matches again (31 February; a year gone by) has no next firing', () => {
    expect(next('cron(0 0 31 2 ? *)', '2026-01-01T00:00:00Z')).toBeUndefined();
    expect(next('cron(0 0 * * ? 2020)', '2026-01-01T00:00:00Z')).toBeUndefined();
  });
});

describe('what AWS refuses, named', () => {
  test.each([
    ['cron(0 0 * * * *)', /one of Day-of-month and Day-of-week must be \?/], // "You can't use * in both"
    ['cron(0 0 ? * ? *)', /one of Day-of-month and Day-of-week must be \?/],
    ['cron(0 0 ? * 3#1,6#3 *)', /Day-of-week "3#1,6#3": # and L take one day alone/], // the page's own example
    ['cron(60 0 * * ? *)', /Minutes "60": 60 is outside 0-59/],
    ['cron(0 0 * * ? 2200)', /Year "2200": 2200 is outside 1970-2199/],
    ['cron(0 0 * * ?)', /six fields/],
    ['cron(0 ? * * ? *)', /Hours "\?": \? is not taken in this field/],
    ['rate(1 minutes)', /a value of 1 takes the singular unit \(minute\)/], // "rate(1 hours) ... are invalid"
    ['rate(5 hour)', /a value above 1 takes the plural unit \(hours\)/],
    ['rate(0 minutes)', /positive whole number/],
    ['rate(5 weeks)', /unit weeks/],
    ['at(2026-02-30T00:00:00)', /not a date and time that exists/],
    ['every day', /a schedule is at\(...\), rate\(...\) or cron\(...\)/],
  ])('%s', (expression, message) => {
    expect(() => parseScheduleExpression(expression)).toThrow(message);
    expect(() => parseScheduleExpression(expression)).toThrow(ScheduleExpressionError);
  });

  test("an EventBridge rule takes no at(), which is Scheduler's", () => {
    expect(() => parseScheduleExpression('at(2027-01-01T00:00:00)', 'rule')).toThrow(/at\(\.\.\.\) is Scheduler/);
  });

  test('a time zone that is not an IANA name', () => {
    expect(() => nextFireTime('rate(5 minutes)', new Date(), 'Mars/Olympus')).toThrow(
      /ScheduleExpressionTimezone "Mars\/Olympus" is not a time zone/,
    );
  });
});

describe('rate and at', () => {
  test("a rate's days are 24 hours, whatever the clock does (Scheduler's DST section)", () => {
    expect(next('rate(1 day)', '2026-03-08T06:00:00Z', 'America/New_York')).toBe('2026-03-09T06:00:00.000Z');
    expect(next('rate(5 minutes)', '2026-11-28T03:07:00Z')).toBe('2026-11-28T03:12:00.000Z');
  });

  test('at() is read in its time zone, and fires once', () => {
    expect(next('at(2026-12-01T09:00:00)', '2026-11-01T00:00:00Z', 'Europe/Berlin')).toBe('2026-12-01T08:00:00.000Z');
    expect(next('at(2026-12-01T09:00:00)', '2026-12-01T08:00:00Z', 'Europe/Berlin')).toBeUndefined();
  });
});

describe('time zones and daylight saving time', () => {
  test("a cron is read on the time zone's clock: 09:00 in New York is 14:00 UTC in winter, 13:00 in summer", () => {
    expect(next('cron(0 9 * * ? *)', '2026-01-10T00:00:00Z', 'America/New_York')).toBe('2026-01-10T14:00:00.000Z');
    expect(next('cron(0 9 * * ? *)', '2026-07-10T00:00:00Z', 'America/New_York')).toBe('2026-07-10T13:00:00.000Z');
  });

  test('a time the clock skips in spring is skipped (02:30 on 8 March 2026 in New York)', () => {
    expect(next('cron(30 2 * * ? *)', '2026-03-08T00:00:00Z', 'America/New_York')).toBe('2026-03-09T06:30:00.000Z');
  });

  test('a time the clock shows twice in autumn fires once (01:30 on 1 November 2026 in New York)', () => {
    expect(next('cron(30 1 * * ? *)', '2026-11-01T00:00:00Z', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(next('cron(30 1 * * ? *)', '2026-11-01T05:30:00Z', 'America/New_York')).toBe('2026-11-02T06:30:00.000Z');
  });
});

describe('flexible time windows', () => {
  // "Configuring flexible time windows in EventBridge Scheduler",
  // https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-flexible-time-windows.html
  test('OFF fires at the scheduled time; FLEXIBLE within MaximumWindowInMinutes after it', () => {
    expect(chosenFireTime(1_000_000, undefined)).toBe(1_000_000);
    expect(chosenFireTime(1_000_000, 15, () => 0)).toBe(1_000_000);
    expect(chosenFireTime(1_000_000, 15, () => 0.999_999)).toBeLessThan(1_000_000 + 15 * 60_000);
    expect(chosenFireTime(1_000_000, 15, () => 0.5)).toBe(1_000_000 + 7.5 * 60_000);
  });
});
