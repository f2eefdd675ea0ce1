// The one clock of every schedule the runner times: EventBridge Scheduler's schedules (scheduler.ts) and EventBridge
// rules' ScheduleExpression (the events service registers its rules here: `clock.set('events', [...])`). One timer
// for the nearest fire time, re-armed after each firing; each schedule's last firing (and a one-time schedule's being
// done) kept in the data folder (`<data>/services/schedules.json`), so that a restart neither repeats a firing nor
// forgets a one-time schedule that came due while the runner was stopped. `fire(name)` fires one now (the `fire`
// command, through the runner's socket).
//
// Timing, as "Schedule types on EventBridge Scheduler" describes it
// (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html): a rate schedule of Scheduler without a
// StartDate starts at once, then every period; a rule's rate first fires a period after the runner first read it; a
// cron fires at its next matching minute; nothing fires before StartDate or from EndDate on (both ignored for `at`); a
// FLEXIBLE window moves each firing to a random time within it (chosenFireTime).
import {
  atInstant,
  chosenFireTime,
  nextOf,
  parseScheduleExpression,
  type ScheduleExpression,
  ScheduleExpressionError,
} from './schedule-expressions.ts';
import type { StateFile } from './state-file.ts';

/** A schedule the clock times, and how it fires. */
export interface TimedSchedule {
  /** Unique among all: `schedule default/MyName`, `rule default/MyRule`. */
  key: string;
  /** Whoever registered it (`scheduler`, `events`): `set` replaces that owner's schedules. */
  owner: string;
  /** The names `fire` takes for it: its name, `Stack/LogicalId`, its ARN. */
  names: string[];
  /** rule: an EventBridge rule (rate and cron, UTC); scheduler: a Scheduler schedule. */
  service: 'rule' | 'scheduler';
  expression: string;
  timezone?: string;
  enabled: boolean;
  startDate?: number;
  endDate?: number;
  windowMinutes?: number;
  /** What the banner says it reaches. */
  target: string;
  /** Delivers one firing; `scheduledTime` is the time it was due (now, fired by hand). Rejects on failure. */
  fire: (scheduledTime: Date) => Promise<void>;
  /** ActionAfterCompletion DELETE: a one-time schedule is gone once it fired (and stays gone at the next start). */
  deleteAfterCompletion?: boolean;
}

interface Fired {
  /** The first time the runner read this schedule (epoch ms). */
  seen: number;
  /** The due time of its last firing by the clock. */
  lastFired?: number;
  /** A one-time schedule that fired, or was skipped for good. */
  done?: boolean;
  /** Deleted once done (ActionAfterCompletion DELETE). */
  deleted?: boolean;
}

export interface ClockState {
  schedules: { [key: string]: Fired };
}

export const emptyClock = (): ClockState => ({ schedules: {} });

/** The longest delay setTimeout takes; a later time is looked at again then. */
const longestDelay = 2 ** 31 - 1;

interface Armed {
  schedule: TimedSchedule;
  parsed: ScheduleExpression;
  /** The due time (epoch ms), and when it fires (later, within a flexible window); undefined: never again. */
  due?: number;
  firesAt?: number;
}

const zoneOf = (schedule: TimedSchedule) => schedule.timezone ?? 'UTC';

/** The first due time of `schedule` after `after`, within its StartDate and EndDate; undefined: none. */
const dueAfter = ({ schedule, parsed }: Armed, after: number, fired: Fired): number | undefined => {
  if (parsed.kind === 'at') return fired.done ? undefined : atInstant(parsed, zoneOf(schedule));
  const { startDate, endDate } = schedule;
  const from = startDate !== undefined && startDate - 1 > after ? startDate - 1 : after;
  let due: number | undefined;
  if (parsed.kind === 'rate') {
    // A rate counts from its last firing; a Scheduler schedule's first is at StartDate, or at once without one; a
    // rule's, a period after the runner first read it.
    const anchor = fired.lastFired ?? fired.seen;
    due =
      fired.lastFired === undefined && schedule.service === 'scheduler'
        ? Math.max(startDate ?? fired.seen, fired.seen)
        : anchor + Math.max(1, Math.floor((from - anchor) / parsed.everyMs) + 1) * parsed.everyMs;
  } else due = nextOf(parsed, from, zoneOf(schedule));
  return due !== undefined && endDate !== undefined && due >= endDate ? undefined : due;
};

export class ScheduleClock {
  readonly #file: StateFile<ClockState>;
  readonly #log: (line: string) => void;
  readonly #armed = new Map<string, Armed>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(file: StateFile<ClockState>, log: (line: string) => void) {
    this.#file = file;
    this.#log = log;
  }

  /** `owner`'s schedules are now `schedules` (a reload replaces them); one whose expression is malformed is said. */
  set(owner: string, schedules: TimedSchedule[]) {
    for (const [key, armed] of this.#armed) if (armed.schedule.owner === owner) this.#armed.delete(key);
    const state = this.#file.read();
    const now = Date.now();
    for (const schedule of schedules) {
      state.schedules[schedule.key] ??= { seen: now };
      if (state.schedules[schedule.key]?.deleted) continue;
      try {
        const parsed = parseScheduleExpression(schedule.expression, schedule.service);
        this.#armed.set(schedule.key, { schedule, parsed });
      } catch (error) {
        if (!(error instanceof ScheduleExpressionError)) throw error;
        this.#log(`${schedule.key}: not timed: ${error.message}`);
      }
    }
    this.#file.write(state);
    if (this.#running) this.#rearm();
  }

  /** Starts timing (the start command's; `invoke` never does): one-time schedules due while stopped fire now. */
  start() {
    this.#running = true;
    this.#rearm(true);
  }

  stop() {
    this.#running = false;
    clearTimeout(this.#timer);
  }

  /** Each schedule with its next fire time (undefined: none), for the banner. */
  list() {
    return [...this.#armed.values()].map(({ schedule, firesAt }) => ({
      key: schedule.key,
      expression: schedule.expression,
      timezone: zoneOf(schedule),
      enabled: schedule.enabled,
      target: schedule.target,
      next: firesAt === undefined ? undefined : new Date(firesAt),
    }));
  }

  /** The schedule `name` names (its key, name, `Stack/Id` or ARN); a RangeError listing them when none or several. */
  find(name: string) {
    const found = [...this.#armed.values()].filter(
      ({ schedule }) => schedule.key === name || schedule.names.includes(name),
    );
    if (found.length === 1) return (found[0] as Armed).schedule;
    const all = [...this.#armed.keys()].join(', ') || 'none';
    throw new RangeError(
      found.length === 0
        ? `no schedule or scheduled rule is named ${name}; the runner times: ${all}`
        : `${name} names ${found.map(({ schedule }) => schedule.key).join(' and ')}: give the one meant`,
    );
  }

  /** Fires `name` now, whatever its timing (which it leaves as it was): the `fire` command. */
  async fire(name: string) {
    const schedule = this.find(name);
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    this.#log(`${schedule.key}: fired by hand -> ${schedule.target}`);
    await schedule.fire(now);
    return schedule.key;
  }

  /** Computes every schedule's next firing and arms the timer for the nearest; `starting` says what was missed. */
  #rearm(starting = false) {
    clearTimeout(this.#timer);
    const state = this.#file.read();
    const now = Date.now();
    for (const armed of this.#armed.values()) {
      const fired = state.schedules[armed.schedule.key] ?? { seen: now };
      const due = armed.schedule.enabled ? this.#dueOf(armed, fired, now, starting) : undefined;
      // A time chosen within a flexible window stays chosen until that firing is done.
      if (due !== armed.due || armed.firesAt === undefined)
        armed.firesAt = due === undefined ? undefined : chosenFireTime(due, armed.schedule.windowMinutes);
      armed.due = due;
    }
    const nearest = Math.min(...[...this.#armed.values()].map(({ firesAt }) => firesAt ?? Number.POSITIVE_INFINITY));
    if (!this.#running || !Number.isFinite(nearest)) return;
    this.#timer = setTimeout(() => void this.#tick(), Math.min(Math.max(0, nearest - now), longestDelay));
    this.#timer.unref();
  }

  /** The next due time of an enabled schedule; what it skips (missed firings, an `at` passed before) is said. */
  #dueOf(armed: Armed, fired: Fired, now: number, starting: boolean) {
    const { key, expression } = armed.schedule;
    const due = dueAfter(armed, fired.lastFired ?? now - 1, fired);
    if (due === undefined) return undefined;
    if (armed.parsed.kind === 'at' && due < fired.seen) {
      this.#log(
        `${key}: ${expression} had passed when the runner first read it: not fired (fire it by hand with \`cdk-local-runner fire\`)`,
      );
      const state = this.#file.read();
      state.schedules[key] = { ...fired, done: true };
      this.#file.write(state);
      return undefined;
    }
    // A recurring schedule's firings missed (the runner stopped, or busy) are not made up: the next one after now.
    if (armed.parsed.kind !== 'at' && fired.lastFired !== undefined && due <= now) {
      if (starting) this.#log(`${key}: its firings due while the runner was stopped are not made up`);
      return dueAfter(armed, now, fired);
    }
    return due;
  }

  /** Fires every schedule whose time has come, records it, and re-arms. */
  async #tick() {
    const now = Date.now();
    const firing = [...this.#armed.values()].filter(({ firesAt }) => firesAt !== undefined && firesAt <= now);
    await Promise.all(firing.map((armed) => this.#fireDue(armed)));
    if (this.#running) this.#rearm();
  }

  async #fireDue({ schedule, parsed, due }: Armed) {
    if (due === undefined) return;
    const state = this.#file.read();
    const fired = state.schedules[schedule.key] ?? { seen: due };
    const oneTime = parsed.kind === 'at';
    // Recorded first: a firing is never repeated, even if the runner is killed while it delivers.
    const deleted = oneTime && schedule.deleteAfterCompletion === true;
    state.schedules[schedule.key] = {
      ...fired,
      lastFired: due,
      ...(oneTime && { done: true }),
      ...(deleted && { deleted }),
    };
    this.#file.write(state);
    this.#log(`${schedule.key}: fired (due ${new Date(due).toISOString()}) -> ${schedule.target}`);
    try {
      await schedule.fire(new Date(due));
    } catch (error) {
      this.#log(`${schedule.key}: its firing failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!deleted) return;
    this.#armed.delete(schedule.key);
    this.#log(`${schedule.key}: completed, and deleted (ActionAfterCompletion DELETE)`);
  }
}
