// When a schedule fires: the schedule expressions of EventBridge rules and of EventBridge Scheduler, read as AWS
// documents them.
// - "Setting a schedule pattern for scheduled rules (legacy) in Amazon EventBridge",
//   https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html: `rate(value unit)` (a
//   value of 1 takes the singular unit, a greater one the plural) and `cron(minutes hours day-of-month month
//   day-of-week year)` with `, - * ? / L W #`, names JAN-DEC and SUN-SAT, day-of-week 1-7 = SUN-SAT, and one of
//   day-of-month and day-of-week `?`; rules run in UTC.
// - "Schedule types on EventBridge Scheduler", https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html:
//   the same two, and `at(yyyy-mm-ddThh:mm:ss)`, each read in ScheduleExpressionTimezone (an IANA name, UTC by
//   default); a rate's days are 24 hours; a cron time that daylight saving time skips is skipped, and one it repeats
//   fires once ("How can I adjust my Amazon EventBridge schedule for daylight saving?", AWS re:Post Knowledge Center,
//   https://repost.aws/knowledge-center/eventbridge-scheduler-adjust-dst).
// Written here rather than taken from npm: aws-cron-parser (the one maintained AWS cron package) computes in UTC alone,
// so it cannot read Scheduler's time zones, and it has no `at()`.
import { RunnerError } from '../errors.ts';

/** A malformed expression or time zone; the message names the part and what is wrong. */
export class ScheduleExpressionError extends RunnerError {
  override name = 'ScheduleExpressionError';
  /** As Scheduler and EventBridge answer one: a ValidationException, 400. */
  readonly status = 400;
}

/** A field's values, or a day rule (L, W, #) that depends on the month. */
type DayRule =
  | { kind: 'last' }
  | { kind: 'lastWeekday' }
  | { kind: 'nearestWeekday'; day: number }
  | { kind: 'nth'; weekday: number; nth: number }
  | { kind: 'lastOf'; weekday: number };

interface CronFields {
  minutes: Set<number>;
  hours: Set<number>;
  /** Undefined: `?`. */
  daysOfMonth: Set<number> | DayRule | undefined;
  months: Set<number>;
  /** 1 (SUN) to 7 (SAT); undefined: `?`. */
  daysOfWeek: Set<number> | DayRule | undefined;
  years: Set<number>;
}

export type ScheduleExpression =
  | { kind: 'rate'; everyMs: number }
  | { kind: 'cron'; fields: CronFields }
  | { kind: 'at'; local: WallTime };

/** A time as a clock in a time zone shows it (month 1-12). */
interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const fail = (expression: string, why: string) => new ScheduleExpressionError(`${expression}: ${why}`);

const rateUnits: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

const parseRate = (expression: string, body: string): ScheduleExpression => {
  const match = /^(\d+) ([a-z]+)$/.exec(body);
  if (!match) throw fail(expression, 'a rate is `rate(value unit)`, a whole number and minute(s), hour(s) or day(s)');
  const value = Number(match[1]);
  const unit = match[2] as string;
  const singular = unit.replace(/s$/, '');
  const unitMs = rateUnits[singular];
  if (unitMs === undefined) throw fail(expression, `unit ${unit}: minute(s), hour(s) or day(s)`);
  if (value < 1) throw fail(expression, 'the value must be a positive whole number');
  if (value === 1 && unit !== singular) throw fail(expression, `a value of 1 takes the singular unit (${singular})`);
  if (value > 1 && unit === singular) throw fail(expression, `a value above 1 takes the plural unit (${singular}s)`);
  return { kind: 'rate', everyMs: value * unitMs };
};

const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const dayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** The characters this field takes besides digits and names (the page's "Wildcards" column). */
  wildcards: string;
}

const specs = {
  minutes: { name: 'Minutes', min: 0, max: 59, wildcards: ',-*/' },
  hours: { name: 'Hours', min: 0, max: 23, wildcards: ',-*/' },
  daysOfMonth: { name: 'Day-of-month', min: 1, max: 31, wildcards: ',-*?/LW' },
  months: { name: 'Month', min: 1, max: 12, names: monthNames, wildcards: ',-*/' },
  daysOfWeek: { name: 'Day-of-week', min: 1, max: 7, names: dayNames, wildcards: ',-*?L#' },
  years: { name: 'Year', min: 1970, max: 2199, wildcards: ',-*/' },
} satisfies Record<keyof CronFields, FieldSpec>;

/** One value of a field: a number in range, or (month, day-of-week) a name. */
const fieldValue = (text: string, spec: FieldSpec, fault: (why: string) => Error) => {
  const named = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  const value = named >= 0 ? named + spec.min : /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value)) throw fault(`${JSON.stringify(text)} is not a value`);
  if (value < spec.min || value > spec.max) throw fault(`${value} is outside ${spec.min}-${spec.max}`);
  return value;
};

/** A list of values, ranges and steps (`1,5-9,10/5,*`), each in range. */
const valuesOf = (text: string, spec: FieldSpec, fault: (why: string) => Error): Set<number> => {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    if (part.split('/').length > 2) throw fault(`${JSON.stringify(part)} has two steps`);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (stepText !== undefined && !(/^\d+$/.test(stepText) && step > 0))
      throw fault(`the step ${JSON.stringify(stepText)} is not a positive whole number`);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [spec.min, spec.max];
    else if (range.includes('-')) {
      const [start = '', end = '', ...more] = range.split('-');
      if (more.length > 0) throw fault(`${JSON.stringify(range)} is not a range`);
      [from, to] = [fieldValue(start, spec, fault), fieldValue(end, spec, fault)];
      if (from > to) throw fault(`the range ${range} runs backwards`);
    } else {
      from = fieldValue(range, spec, fault);
      to = stepText === undefined ? from : spec.max;
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return values;
};

/** Day-of-month: `?`, `L`, `LW`, `nW`, or values. */
const daysOfMonthOf = (text: string, fault: (why: string) => Error): CronFields['daysOfMonth'] => {
  if (text === '?') return undefined;
  if (text === 'L') return { kind: 'last' };
  if (text === 'LW') return { kind: 'lastWeekday' };
  const weekday = /^(\d+)W$/.exec(text);
  if (weekday) return { kind: 'nearestWeekday', day: fieldValue(weekday[1] as string, specs.daysOfMonth, fault) };
  if (/[LW]/.test(text)) throw fault(`L and W stand alone (L, LW, or a day and W as 15W)`);
  return valuesOf(text, specs.daysOfMonth, fault);
};

/** Day-of-week: `?`, `L` (the week's last day, SAT), `nL` (the month's last such day), `n#k`, or values. */
const daysOfWeekOf = (text: string, fault: (why: string) => Error): CronFields['daysOfWeek'] => {
  if (text === '?') return undefined;
  if (text === 'L') return new Set([7]);
  const last = /^(\w+)L$/.exec(text);
  if (last) return { kind: 'lastOf', weekday: fieldValue(last[1] as string, specs.daysOfWeek, fault) };
  const nth = /^(\w+)#(\d+)$/.exec(text);
  if (nth) {
    const k = Number(nth[2]);
    if (k < 1 || k > 5) throw fault(`${text}: the week of the month (after #) is 1 to 5`);
    return { kind: 'nth', weekday: fieldValue(nth[1] as string, specs.daysOfWeek, fault), nth: k };
  }
  if (/[L#]/.test(text)) throw fault(`# and L take one day alone (3#2, 5L), not a list`);
  return valuesOf(text, specs.daysOfWeek, fault);
};

const parseCron = (expression: string, body: string): ScheduleExpression => {
  const parts = body.split(' ');
  if (parts.length !== 6 || parts.some((part) => part === ''))
    throw fail(expression, `a cron expression has six fields separated by one space (it has ${parts.length})`);
  const [minutes, hours, dom, months, dow, years] = parts as [string, string, string, string, string, string];
  const faultOf = (spec: FieldSpec, text: string) => (why: string) =>
    fail(expression, `${spec.name} ${JSON.stringify(text)}: ${why}`);
  for (const [key, text] of Object.entries({ minutes, hours, daysOfMonth: dom, months, daysOfWeek: dow, years })) {
    const spec = specs[key as keyof typeof specs] as FieldSpec;
    const stray = [...text.replace(/[A-Za-z0-9]/g, '')].find((char) => !spec.wildcards.includes(char));
    if (stray !== undefined) throw faultOf(spec, text)(`${stray} is not taken in this field`);
  }
  if ((dom === '?') === (dow === '?'))
    throw fail(expression, 'one of Day-of-month and Day-of-week must be ?, and only one (the other a value or *)');
  return {
    kind: 'cron',
    fields: {
      minutes: valuesOf(minutes, specs.minutes, faultOf(specs.minutes, minutes)),
      hours: valuesOf(hours, specs.hours, faultOf(specs.hours, hours)),
      daysOfMonth: daysOfMonthOf(dom, faultOf(specs.daysOfMonth, dom)),
      months: valuesOf(months, specs.months, faultOf(specs.months, months)),
      daysOfWeek: daysOfWeekOf(dow, faultOf(specs.daysOfWeek, dow)),
      years: valuesOf(years, specs.years, faultOf(specs.years, years)),
    },
  };
};

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
/** 1 (SUN) to 7 (SAT), as cron's day-of-week counts. */
const weekdayOf = (year: number, month: number, day: number) =>
  new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1;

const parseAt = (expression: string, body: string): ScheduleExpression => {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(body);
  if (!match) throw fail(expression, 'a one-time schedule is `at(yyyy-mm-ddThh:mm:ss)`');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
    throw fail(expression, 'not a date and time that exists');
  return { kind: 'at', local: { year, month, day, hour, minute, second } };
};

/**
 * Reads `expression`; `rule` (an EventBridge rule's ScheduleExpression) takes rate and cron alone, Scheduler's also
 * `at`. Throws ScheduleExpressionError naming what is malformed.
 */
export const parseScheduleExpression = (
  expression: string,
  service: 'rule' | 'scheduler' = 'scheduler',
): ScheduleExpression => {
  const match = /^(rate|cron|at)\((.*)\)$/s.exec(expression);
  if (!match)
    throw fail(
      expression,
      service === 'rule' ? 'a schedule is rate(...) or cron(...)' : 'a schedule is at(...), rate(...) or cron(...)',
    );
  const [, kind, body = ''] = match;
  if (kind === 'rate') return parseRate(expression, body);
  if (kind === 'cron') return parseCron(expression, body);
  if (service === 'rule')
    throw fail(expression, 'an EventBridge rule takes rate(...) or cron(...); at(...) is Scheduler’s');
  return parseAt(expression, body);
};

const formats = new Map<string, Intl.DateTimeFormat>();

/** The formatter of `timezone`; ScheduleExpressionError when it is not a time zone Node knows (IANA's names). */
const formatOf = (timezone: string) => {
  let format = formats.get(timezone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new ScheduleExpressionError(`ScheduleExpressionTimezone ${JSON.stringify(timezone)} is not a time zone`);
    }
    formats.set(timezone, format);
  }
  return format;
};

/** Checks that `timezone` names a time zone (IANA's, as Scheduler takes); throws ScheduleExpressionError if not. */
export const checkTimezone = (timezone: string) => void formatOf(timezone);

/** `instant` as `timezone`'s clock shows it. */
const wallTimeOf = (instant: number, timezone: string): WallTime => {
  const parts = Object.fromEntries(
    formatOf(timezone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
};

const asUtc = ({ year, month, day, hour, minute, second }: WallTime) =>
  Date.UTC(year, month - 1, day, hour, minute, second);

/** `timezone`'s offset from UTC at `instant`, in milliseconds (whole seconds). */
const offsetAt = (instant: number, timezone: string) => {
  const whole = Math.floor(instant / 1000) * 1000;
  return asUtc(wallTimeOf(whole, timezone)) - whole;
};

/**
 * The instants at which `timezone`'s clock shows `local`, earliest first: none when daylight saving time skips it,
 * two when it repeats it.
 */
const instantsOf = (local: WallTime, timezone: string): number[] => {
  const utc = asUtc(local);
  if (timezone === 'UTC') return [utc];
  const offsets = new Set([-86_400_000, 0, 86_400_000].map((shift) => offsetAt(utc + shift, timezone)));
  return [...offsets]
    .map((offset) => utc - offset)
    .filter((instant) => asUtc(wallTimeOf(instant, timezone)) === utc)
    .sort((a, b) => a - b);
};

const isWeekend = (year: number, month: number, day: number) => [1, 7].includes(weekdayOf(year, month, day));

/** The weekday (MON-FRI) nearest to `day` within its month (Quartz's `W`, which AWS's cron follows). */
const nearestWeekday = (year: number, month: number, day: number) => {
  const last = daysIn(year, month);
  if (day > last) return undefined;
  const weekday = weekdayOf(year, month, day);
  if (weekday === 7) return day === 1 ? 3 : day - 1;
  if (weekday === 1) return day === last ? day - 2 : day + 1;
  return day;
};

const ruleMatches = (rule: DayRule, year: number, month: number, day: number) => {
  const last = daysIn(year, month);
  switch (rule.kind) {
    case 'last':
      return day === last;
    case 'lastWeekday': {
      let weekday = last;
      while (isWeekend(year, month, weekday)) weekday -= 1;
      return day === weekday;
    }
    case 'nearestWeekday':
      return nearestWeekday(year, month, rule.day) === day;
    case 'nth':
      return weekdayOf(year, month, day) === rule.weekday && Math.ceil(day / 7) === rule.nth;
    case 'lastOf':
      return weekdayOf(year, month, day) === rule.weekday && day + 7 > last;
  }
};

/** Whether a cron's day fields take this date. */
const dayMatches = (fields: CronFields, year: number, month: number, day: number) => {
  const { daysOfMonth, daysOfWeek } = fields;
  if (daysOfMonth !== undefined)
    return daysOfMonth instanceof Set ? daysOfMonth.has(day) : ruleMatches(daysOfMonth, year, month, day);
  if (daysOfWeek === undefined) return false;
  return daysOfWeek instanceof Set
    ? daysOfWeek.has(weekdayOf(year, month, day))
    : ruleMatches(daysOfWeek, year, month, day);
};

const sorted = (values: Set<number>) => [...values].sort((a, b) => a - b);

/** The first minute strictly after `after` (epoch ms) that `fields` take in `timezone`; undefined after 2199. */
const nextCronTime = (fields: CronFields, after: number, timezone: string): number | undefined => {
  // Begin a day early: in a zone behind UTC, `after`'s local date may be the day before its UTC one.
  const start = wallTimeOf(after - 86_400_000, timezone);
  const hours = sorted(fields.hours);
  const minutes = sorted(fields.minutes);
  for (const year of sorted(fields.years)) {
    if (year < start.year) continue;
    for (const month of sorted(fields.months)) {
      if (year === start.year && month < start.month) continue;
      const firstDay = year === start.year && month === start.month ? start.day : 1;
      for (let day = firstDay; day <= daysIn(year, month); day += 1) {
        if (!dayMatches(fields, year, month, day)) continue;
        for (const hour of hours)
          for (const minute of minutes) {
            // No zone is more than 12 hours behind UTC: a clock time this early is before `after` in every one.
            if (Date.UTC(year, month - 1, day, hour, minute) + 13 * 3_600_000 <= after) continue;
            // A time the clock skips is skipped; one it shows twice fires at its first instant alone.
            const [instant] = instantsOf({ year, month, day, hour, minute, second: 0 }, timezone);
            if (instant !== undefined && instant > after) return instant;
          }
      }
    }
  }
  return undefined;
};

/**
 * The next time `expression` fires strictly after `after`, read in `timezone` (UTC by default); undefined when it
 * never fires again (an `at` passed, a cron past its last year). A rate fires every period from `after` (pass the
 * last firing, or the start). Throws ScheduleExpressionError on a malformed expression or time zone.
 */
export const nextFireTime = (expression: string, after: Date, timezone = 'UTC'): Date | undefined => {
  checkTimezone(timezone);
  const parsed = parseScheduleExpression(expression);
  const next = nextOf(parsed, after.getTime(), timezone);
  return next === undefined ? undefined : new Date(next);
};

/** nextFireTime on an expression read already. */
export const nextOf = (parsed: ScheduleExpression, after: number, timezone: string): number | undefined => {
  switch (parsed.kind) {
    case 'rate':
      return after + parsed.everyMs;
    case 'cron':
      return nextCronTime(parsed.fields, after, timezone);
    case 'at': {
      // A time daylight saving time skips has no instant: it is taken as the clock before the change reads it (an hour
      // later by the new clock). AWS does not document this case.
      const utc = asUtc(parsed.local);
      const instant = instantsOf(parsed.local, timezone)[0] ?? utc - offsetAt(utc - 86_400_000, timezone);
      return instant > after ? instant : undefined;
    }
  }
};

/** When a one-time schedule is due: its instant in `timezone`, whether passed or not. */
export const atInstant = (parsed: Extract<ScheduleExpression, { kind: 'at' }>, timezone: string) =>
  nextOf(parsed, Number.NEGATIVE_INFINITY, timezone) as number;

/**
 * Scheduler's FlexibleTimeWindow ("Configuring flexible time windows in EventBridge Scheduler",
 * https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-flexible-time-windows.html): OFF fires at
 * the scheduled time; FLEXIBLE at a time within MaximumWindowInMinutes after it, chosen at random.
 */
export const chosenFireTime = (scheduled: number, windowMinutes: number | undefined, random = Math.random) =>
  windowMinutes === undefined ? scheduled : scheduled + Math.floor(random() * windowMinutes * 60_000);
