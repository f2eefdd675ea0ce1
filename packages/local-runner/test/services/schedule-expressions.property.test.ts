// Random cron expressions at random times in random time zones: nextFireTime must agree with an oracle written apart
// from it, a brute-force scan that walks the real clock minute by minute (skipping ahead only within the hour or day
// it has seen fail) and tests each field of the wall time it reads, as "Setting a schedule pattern for scheduled rules
// (legacy) in Amazon EventBridge" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html)
// describes the fields and wildcards, and "Schedule types on EventBridge Scheduler"
// (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html) the time zones (a time the clock skips
// never fires, one it shows twice fires the first time). A failure prints fast-check's seed: replay it with
// FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { nextFireTime } from '../../src/services/schedule-expressions.ts';

const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Sydney'];
const dayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** A field's text: `*`, a value, a range, a step (not Day-of-week's: the page lists no `/` there), or a list. */
const field = (min: number, max: number, names?: string[], steps = true) => {
  const value = fc.integer({ min, max });
  const written = names
    ? fc.tuple(value, fc.boolean()).map(([v, named]) => (named ? (names[v - min] as string) : String(v)))
    : value.map(String);
  const stepped = [
    fc.tuple(value, fc.integer({ min: 1, max: Math.max(1, max - min) })).map(([a, step]) => `${a}/${step}`),
    fc.constant('*/7'),
  ];
  return fc.oneof(
    fc.constant('*'),
    written,
    fc.tuple(value, value).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    ...(steps ? stepped : []),
    fc.uniqueArray(written, { minLength: 2, maxLength: 4 }).map((list) => list.join(',')),
  );
};

const dayOfMonth = fc.oneof(
  { arbitrary: field(1, 31), weight: 4 },
  fc.constantFrom('L', 'LW'),
  fc.integer({ min: 1, max: 31 }).map((day) => `${day}W`),
);
const dayOfWeek = fc.oneof(
  { arbitrary: field(1, 7, dayNames, false), weight: 4 },
  fc.constant('L'),
  fc.tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 5 })).map(([d, n]) => `${d}#${n}`),
  fc.integer({ min: 1, max: 7 }).map((d) => `${d}L`),
);

const cron = fc
  .record({
    minutes: field(0, 59),
    hours: field(0, 23),
    days: fc.oneof(
      dayOfMonth.map((dom) => [dom, '?']),
      dayOfWeek.map((dow) => ['?', dow]),
    ),
    months: field(1, 12, monthNames),
    years: fc.constantFrom('*', '2026-2028', '2027', '2026/2'),
  })
  .map(
    ({ minutes, hours, days, months, years }) => `cron(${minutes} ${hours} ${days[0]} ${months} ${days[1]} ${years})`,
  );

// The oracle: its own reading of each field.
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
const formatIn = (zone: string) => {
  const format =
    formats.get(zone) ??
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
      hourCycle: 'h23',
    });
  formats.set(zone, format);
  return format;
};

const wallOf = (instant: number, zone: string): Wall => {
  const parts = Object.fromEntries(
    formatIn(zone)
      .formatToParts(new Date(instant))
      .map(({ type, value }) => [type, value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: dayNames.indexOf(String(parts.weekday).toUpperCase()) + 1,
  };
};

const valueIn = (text: string, names?: string[], min = 0) => {
  const index = names?.indexOf(text.toUpperCase()) ?? -1;
  return index >= 0 ? index + min : Number(text);
};

/** Whether `value` is one `text` (a field without L, W or #) takes, read term by term. */
const fieldTakes = (text: string, value: number, min: number, max: number, names?: string[]) =>
  text.split(',').some((term) => {
    if (term === '*') return true;
    const [range = '', step] = term.split('/');
    let [low, high] = range === '*' ? [min, max] : range.split('-').map((part) => valueIn(part, names, min));
    high ??= step === undefined ? (low as number) : max;
    if (low === undefined || value < low || value > high) return false;
    return step === undefined || (value - low) % Number(step) === 0;
  });

const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const weekdayOn = (year: number, month: number, day: number) =>
  new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1;
const isWeekday = (year: number, month: number, day: number) =>
  day >= 1 && day <= lastDay(year, month) && ![1, 7].includes(weekdayOn(year, month, day));

const domTakes = (text: string, { year, month, day }: Wall) => {
  const last = lastDay(year, month);
  if (text === 'L') return day === last;
  if (text === 'LW') {
    const weekdays = Array.from({ length: last }, (_, i) => i + 1).filter((d) => isWeekday(year, month, d));
    return day === weekdays.at(-1);
  }
  if (text.endsWith('W')) {
    const target = Number(text.slice(0, -1));
    if (target > last) return false;
    // The weekday of the month nearest the target day.
    const weekdays = Array.from({ length: last }, (_, i) => i + 1).filter((d) => isWeekday(year, month, d));
    const nearest = weekdays.reduce((best, d) => (Math.abs(d - target) < Math.abs(best - target) ? d : best));
    return day === nearest;
  }
  return fieldTakes(text, day, 1, 31);
};

const dowTakes = (text: string, { year, month, day, weekday }: Wall) => {
  if (text === 'L') return weekday === 7;
  if (text.includes('#')) {
    const [d, n] = text.split('#').map(Number);
    return weekday === d && day > 7 * ((n as number) - 1) && day <= 7 * (n as number);
  }
  if (text.endsWith('L')) return weekday === Number(text.slice(0, -1)) && day > lastDay(year, month) - 7;
  return fieldTakes(text, weekday, 1, 7, dayNames);
};

const minute = 60_000;

/** The first minute after `after` (to `limit`) whose wall time the fields take, seen for the first time. */
const oracle = (expression: string, after: number, zone: string, limit: number): number | undefined => {
  const [minutes, hours, dom, months, dow, years] = expression.slice(5, -1).split(' ') as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  let instant = Math.floor(after / minute) * minute + minute;
  while (instant <= limit) {
    const wall = wallOf(instant, zone);
    const dayTaken =
      fieldTakes(years, wall.year, 1970, 2199) &&
      fieldTakes(months, wall.month, 1, 12, monthNames) &&
      (dom === '?' ? dowTakes(dow, wall) : domTakes(dom, wall));
    if (!dayTaken) {
      // Ahead to the next hour's start (never past a minute of another day).
      instant += (60 - wall.minute) * minute;
      continue;
    }
    if (!fieldTakes(hours, wall.hour, 0, 23)) {
      instant += (60 - wall.minute) * minute;
      continue;
    }
    // A wall time shown an hour earlier too (the clock turned back) fired then.
    const earlier = wallOf(instant - 60 * minute, zone);
    const repeated = earlier.day === wall.day && earlier.hour === wall.hour && earlier.minute === wall.minute;
    if (fieldTakes(minutes, wall.minute, 0, 59) && !repeated) return instant;
    instant += minute;
  }
  return undefined;
};

/** Daylight saving time changes of 2026 in the zones above, where clocks skip and repeat. */
const changes: [string, string][] = [
  ['America/New_York', '2026-03-08T07:00Z'],
  ['America/New_York', '2026-11-01T06:00Z'],
  ['Europe/Berlin', '2026-03-29T01:00Z'],
  ['Europe/Berlin', '2026-10-25T01:00Z'],
  ['Australia/Sydney', '2026-04-04T16:00Z'],
  ['Australia/Sydney', '2026-10-03T16:00Z'],
];

test('nextFireTime agrees with a minute-by-minute scan of the clock', () => {
  const start = Date.UTC(2026, 0, 1);
  const year = 365 * 24 * 60 * minute;
  // Any time in two years in any zone, or within hours of a zone's clock change.
  const when = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 2 * year }), fc.constantFrom(...zones)).map(([offset, zone]) => ({
      after: start + offset,
      zone,
    })),
    fc
      .tuple(fc.constantFrom(...changes), fc.integer({ min: -60, max: 3 * 60 }))
      .map(([[zone, change], minutes]) => ({ after: Date.parse(change) - minutes * minute, zone })),
  );
  fc.assert(
    fc.property(cron, when, (expression, { after, zone }) => {
      const limit = after + 40 * 24 * 60 * minute;
      const expected = oracle(expression, after, zone, limit);
      const actual = nextFireTime(expression, new Date(after), zone)?.getTime();
      if (expected !== undefined) expect(actual).toBe(expected);
      else expect(actual === undefined || actual > limit).toBe(true);
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 2_000 : 200 },
  );
});
