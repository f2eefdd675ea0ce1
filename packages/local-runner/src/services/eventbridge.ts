// Amazon EventBridge, locally: the default bus and the template's custom buses, the template's rules, and PutEvents
// over the JSON protocol the SDKs speak (AWS JSON 1.1, `X-Amz-Target: AWSEvents.<operation>`), as the Amazon
// EventBridge API Reference describes it (https://docs.aws.amazon.com/eventbridge/latest/APIReference/). An event put
// on a bus is matched against each enabled rule of that bus by the one event-pattern matcher (event-pattern.ts) and
// handed to each target through Targets (a function: an asynchronous invocation; a queue; a topic; another bus), its
// input made by event-input.ts. A failed delivery is retried as the target's RetryPolicy says, then sent to its
// dead-letter queue with the attributes "Using dead-letter queues to process undelivered events" lists
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html). Rules with a ScheduleExpression are
// timed by the schedules' clock (scheduledRules); each firing delivers the "Scheduled Event".
//
// Rules and buses come from the template (read at each start). A delivery accepted and not done (its first attempt, or
// a retry awaited) is kept in the data folder by the start command (`keep`), so a restart, even after SIGKILL, carries
// on with it: EventBridge acknowledges PutEvents once the event is durable ("PutEvents", API Reference).
import { randomUUID } from 'node:crypto';
import { UnsupportedTemplateError } from '../app/cfn.ts';
import type { BusSeed, EventSeeds, RuleSeed, RuleTarget } from '../app/eventbridge-resources.ts';
import { localAws } from '../app/local-aws.ts';
import { eventBusArn, ruleArn } from '../app/return-values.ts';
import { type EventEnvelope, isInputPath, targetInput } from './event-input.ts';
import { type CompiledPattern, compilePattern, matchesPattern, PatternError } from './event-pattern.ts';
import { type JsonInput, type JsonService, ServiceError } from './json-protocol.ts';
import type { TimedSchedule } from './schedule-clock.ts';
import type { StateFile } from './state-file.ts';
import { type Delivery, TargetError, type Targets } from './targets.ts';

/** A rule as served: its seed, ARN, compiled pattern, and the targets a local service takes. */
interface ServedRule {
  seed: RuleSeed;
  arn: string;
  pattern?: CompiledPattern;
  /** The targets delivered to; the others are said at start and left out. */
  targets: (RuleTarget & { arn: string })[];
}

/** EventBridge's retry policy when a target gives none: 24 hours and 185 attempts ("Event retry policy ..."). */
const defaultRetries = { maximumRetryAttempts: 185, maximumEventAgeInSeconds: 86_400 };
/** The local back-off before retry n (from 0): 1 s, doubling, at most a minute. AWS adds jitter; not documented. */
const backoff = (attempt: number) => Math.min(1000 * 2 ** attempt, 60_000);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An event time as EventBridge writes one: ISO 8601 to the second. */
const isoSecond = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A bus's name from its name or ARN (`arn:aws:events:<region>:<account>:event-bus/<name>`). */
const busNameOf = (given: unknown) =>
  typeof given === 'string' && given !== '' ? given.replace(/^arn:.*:event-bus\//, '') : 'default';

/** A PutEvents entry as an event, or the entry's error (PutEventsResultEntry's ErrorCode and ErrorMessage). */
const eventOf = (entry: JsonInput, now: Date): EventEnvelope | { ErrorCode: string; ErrorMessage: string } => {
  for (const name of ['Source', 'DetailType', 'Detail'])
    if (typeof entry[name] !== 'string' || entry[name] === '')
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${name} is not valid. Reason: ${name} is a required argument.`,
      };
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail as string);
  } catch {
    detail = undefined;
  }
  if (!isObject(detail)) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  if ((entry.Source as string).startsWith('aws.'))
    return { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' };
  const time = typeof entry.Time === 'number' ? new Date(entry.Time * 1000) : now;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: localAws.accountId,
    time: isoSecond(time),
    region: localAws.region,
    resources: Array.isArray(entry.Resources) ? entry.Resources.filter((r) => typeof r === 'string') : [],
    detail,
  };
};

/**
 * An event another service hands to a bus (a rule's bus target, a schedule's): a new id, its source, detail-type,
 * detail, resources and time kept, the envelope's other fields as PutEvents makes them.
 */
const envelopeOf = (event: Record<string, unknown>): EventEnvelope => ({
  version: '0',
  id: randomUUID(),
  'detail-type': event['detail-type'],
  source: event.source,
  account: localAws.accountId,
  time: typeof event.time === 'string' ? event.time : isoSecond(new Date()),
  region: localAws.region,
  resources: Array.isArray(event.resources) ? event.resources : [],
  detail: event.detail,
});

/** A delivery of an event to one rule's target, not yet done: kept (the start command's) until done or dead-lettered. */
interface PendingDelivery {
  id: string;
  bus: string;
  rule: string;
  target: string;
  event: EventEnvelope;
  /** When the bus took the event (ms): its age counts from there. */
  ingested: number;
  /** The attempts made so far. */
  attempt: number;
  /** When the next attempt is due (ms). */
  dueAt: number;
}

/** The deliveries EventBridge has accepted and not finished, kept in `<data>/services/events-pending.json`. */
export interface PendingDeliveries {
  pending: PendingDelivery[];
}
export const emptyPendingDeliveries = (): PendingDeliveries => ({ pending: [] });

/** How one target is delivered to, retried, and dead-lettered. */
interface Delivering {
  targets: Targets;
  log: (line: string) => void;
  /** Pending retry timers: cleared on close. */
  timers: Set<NodeJS.Timeout>;
  /** Where pending deliveries are kept, once `keep` is called (the start command); in memory before. */
  file?: StateFile<PendingDeliveries>;
  closed: boolean;
}

/** Notes `delivery` as pending in the kept file, or (`done`) takes it out. */
const note = (delivering: Delivering, delivery: PendingDelivery, done = false) => {
  if (!delivering.file) return;
  const others = delivering.file.read().pending.filter(({ id }) => id !== delivery.id);
  delivering.file.write({ pending: done ? others : [...others, delivery] });
};

/** Runs `attempt` once `delivery` is due, unless EventBridge closed first (the kept file keeps it then). */
const later = (delivering: Delivering, delivery: PendingDelivery, attempt: () => Promise<void>) => {
  if (delivering.closed) return;
  note(delivering, delivery);
  const timer = setTimeout(
    () => {
      delivering.timers.delete(timer);
      void attempt();
    },
    Math.max(0, delivery.dueAt - Date.now()),
  );
  delivering.timers.add(timer);
};
/** Sends `event` to the target's dead-letter queue, with the attributes AWS documents. */
const deadLetter = async (
  delivering: Delivering,
  rule: ServedRule,
  target: ServedRule['targets'][number],
  event: EventEnvelope,
  failure: { code: string; message: string; condition?: string; attempts: number },
) => {
  const said = `EventBridge: rule ${rule.seed.name}: event ${String(event.id)} to ${target.id} failed (${failure.message})`;
  if (target.deadLetterArn === undefined) {
    delivering.log(
      `${said}: dropped after ${failure.attempts} retries (${failure.condition ?? 'not retried'}); the target has no DLQ`,
    );
    return;
  }
  const text = (value: string) => ({ DataType: 'String', StringValue: value });
  try {
    await delivering.targets.deliver(target.deadLetterArn, {
      body: JSON.stringify(event),
      source: `events:rule/${rule.seed.name}`,
      attributes: {
        RULE_ARN: text(rule.arn),
        TARGET_ARN: text(target.arn),
        ERROR_CODE: text(failure.code),
        ERROR_MESSAGE: text(failure.message),
        ...(failure.condition !== undefined && { EXHAUSTED_RETRY_CONDITION: text(failure.condition) }),
        RETRY_ATTEMPTS: { DataType: 'Number', StringValue: String(failure.attempts) },
      },
    });
    delivering.log(
      `${said}: sent to its dead-letter queue ${target.deadLetterArn} (${failure.condition ?? 'not retried'})`,
    );
  } catch (error) {
    delivering.log(
      `${said}: and its dead-letter queue ${target.deadLetterArn} refused it too: ${(error as Error).message}`,
    );
  }
};

/**
 * Makes the next attempt of `delivery` to its target; a failure is retried as the target's RetryPolicy says (the
 * delivery kept meanwhile), then the DLQ (or the log) takes it.
 */
const attemptDelivery = async (
  delivering: Delivering,
  rule: ServedRule,
  target: ServedRule['targets'][number],
  delivery: PendingDelivery,
) => {
  const { event, attempt } = delivery;
  const { maximumRetryAttempts, maximumEventAgeInSeconds } = { ...defaultRetries, ...target.retryPolicy };
  const body = targetInput(event, target, {
    ruleArn: rule.arn,
    ruleName: rule.seed.name,
    ingestionTime: new Date(delivery.ingested).toISOString(),
  });
  try {
    await delivering.targets.deliver(target.arn, {
      body,
      source: `events:rule/${rule.seed.name}`,
      ...(target.messageGroupId !== undefined && { messageGroupId: target.messageGroupId }),
    });
    note(delivering, delivery, true);
    delivering.log(
      `EventBridge: rule ${rule.seed.name} (bus ${rule.seed.bus}): event ${String(event.id)} -> ${target.id} (${target.arn})${attempt > 0 ? ` on retry ${attempt}` : ''}`,
    );
    return;
  } catch (error) {
    const message = (error as Error).message;
    const delay = backoff(attempt);
    const condition =
      attempt >= maximumRetryAttempts
        ? 'MaximumRetryAttemptsExhausted'
        : Date.now() + delay - delivery.ingested > maximumEventAgeInSeconds * 1000
          ? 'MaximumEventAgeExhausted'
          : undefined;
    // A target's refusal (TargetError: no such resource, or its service refused the message) is the SDK's error, and
    // retried. An input the target cannot take at all (a text that is not JSON, to a function) would fail again:
    // not retried.
    const failure = !(error instanceof TargetError)
      ? { code: error instanceof SyntaxError ? 'INVALID_JSON' : 'INTERNAL_ERROR', message, attempts: attempt }
      : condition && { code: 'SDK_CLIENT_ERROR', message, condition, attempts: attempt };
    if (failure) {
      await deadLetter(delivering, rule, target, event, failure);
      note(delivering, delivery, true);
      return;
    }
    delivering.log(
      `EventBridge: rule ${rule.seed.name}: event ${String(event.id)} to ${target.id} failed (${message}): retry ${attempt + 1} in ${delay / 1000} s`,
    );
    const next = { ...delivery, attempt: attempt + 1, dueAt: Date.now() + delay };
    later(delivering, next, () => attemptDelivery(delivering, rule, target, next));
  }
};

/** Delivers `event` to one target now (kept until done), retrying as its RetryPolicy says. */
const deliverToTarget = (
  delivering: Delivering,
  rule: ServedRule,
  target: ServedRule['targets'][number],
  event: EventEnvelope,
  ingested: Date,
) => {
  const delivery: PendingDelivery = {
    id: randomUUID(),
    bus: rule.seed.bus,
    rule: rule.seed.name,
    target: target.id,
    event,
    ingested: ingested.getTime(),
    attempt: 0,
    dueAt: Date.now(),
  };
  note(delivering, delivery);
  return attemptDelivery(delivering, rule, target, delivery);
};

/** Each bus by name: the default one, and the template's. */
const busesOf = (seeds: BusSeed[]) =>
  new Map<string, BusSeed>([
    ['default', { name: 'default', source: 'default' }],
    ...seeds.map((bus) => [bus.name, bus] as const),
  ]);

/**
 * Refuses a target whose input EventBridge would refuse ("Target" and "InputTransformer", Amazon EventBridge API
 * Reference): an Input that is not JSON text, a path outside the documented subset, a variable named `aws.*`.
 */
const checkInput = (seed: RuleSeed, target: RuleTarget) => {
  const refuse = (why: string) => {
    throw new UnsupportedTemplateError(`${seed.source}: rule ${seed.name}'s target ${target.id}: ${why}`);
  };
  if (target.input !== undefined)
    try {
      JSON.parse(target.input);
    } catch {
      refuse(`its Input is not JSON text: ${target.input}`);
    }
  const paths = Object.entries(target.inputTransformer?.inputPathsMap ?? {});
  if (target.inputPath !== undefined) paths.push(['InputPath', target.inputPath]);
  for (const [name, path] of paths) {
    if (!isInputPath(path)) refuse(`${name}'s path ${path} is not one EventBridge takes ($, .name, [n], *)`);
    if (name.toLowerCase().startsWith('aws.')) refuse(`the variable ${name} is reserved (aws.*)`);
  }
};

/** The rules of `seeds`, compiled; a malformed pattern or input refuses them, naming the rule. Lines to say at start. */
const servedRules = (seeds: RuleSeed[], buses: Map<string, BusSeed>, targets: Targets) => {
  const notices: string[] = [];
  const rules = seeds.map((seed): ServedRule => {
    if (!buses.has(seed.bus)) {
      notices.push(
        `${seed.source}: rule ${seed.name} is on bus ${seed.bus}, which the template does not declare: served on a bus of that name`,
      );
      buses.set(seed.bus, { name: seed.bus, source: seed.source });
    }
    let pattern: CompiledPattern | undefined;
    try {
      pattern = seed.pattern === undefined ? undefined : compilePattern(seed.pattern);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      throw new UnsupportedTemplateError(`${seed.source}: rule ${seed.name}: ${error.message}`);
    }
    const served = seed.targets.filter((target): target is RuleTarget & { arn: string } => {
      checkInput(seed, target);
      if (target.arn !== undefined && targets.serves(target.arn)) return true;
      notices.push(
        `${seed.source}: rule ${seed.name}'s target ${target.id} (${target.arn ?? target.unknown}) is not served locally: its events are not delivered`,
      );
      return false;
    });
    return { seed, arn: ruleArn(seed.bus, seed.name), ...(pattern && { pattern }), targets: served };
  });
  return { rules, notices };
};

/** A rule with a ScheduleExpression as the schedules' clock times it: each firing delivers the Scheduled Event. */
const timedRule = (rule: ServedRule, delivering: Delivering): TimedSchedule => ({
  key: `rule ${rule.seed.bus}/${rule.seed.name}`,
  owner: 'events',
  names: [rule.seed.name, rule.seed.source, rule.seed.source.slice(rule.seed.source.indexOf('/') + 1), rule.arn],
  service: 'rule',
  expression: rule.seed.scheduleExpression as string,
  enabled: rule.seed.state !== 'DISABLED',
  target: rule.targets.map(({ arn }) => arn).join(', ') || 'no target served',
  fire: async (scheduledTime: Date) => {
    const event = scheduledEvent(rule.arn, scheduledTime);
    await Promise.all(rule.targets.map((target) => deliverToTarget(delivering, rule, target, event, new Date())));
  },
});

/** Each bus with its rules and their targets: the banner's lines (the default bus only when it has rules). */
const bannerOf = (buses: Map<string, BusSeed>, rules: ServedRule[]) =>
  [...buses.keys()].flatMap((bus) => {
    const on = rules.filter(({ seed }) => seed.bus === bus);
    if (bus === 'default' && on.length === 0) return [];
    const ruleLine = ({ seed, targets }: ServedRule) =>
      `  rule ${seed.name}${seed.state === 'DISABLED' ? ' (disabled)' : ''}${seed.scheduleExpression ? ` ${seed.scheduleExpression}` : ''} -> ${targets.map(({ id, arn }) => `${id} ${arn}`).join(', ') || 'no target served'}`;
    return [`bus ${bus} (${eventBusArn(bus)})`, ...on.map(ruleLine)];
  });

/** What another service sends to a bus by its ARN (the `events` receiver: a rule's bus target, a schedule's). */
const receiverOf =
  (buses: () => Map<string, BusSeed>, put: (bus: string, event: EventEnvelope) => void) =>
  async (arn: string, delivery: Delivery) => {
    const bus = /:event-bus\/(.+)$/.exec(arn)?.[1];
    if (bus === undefined || !buses().has(bus)) throw new TargetError(`${arn}: no such event bus is served`);
    let event: unknown;
    try {
      event = JSON.parse(delivery.body);
    } catch {
      event = undefined;
    }
    // A sender that names the event's source and detail-type (a Lambda destination's invocation record: "Adding a
    // destination", invocation-async-retain-records.html) sends the detail alone.
    if (delivery.event && isObject(event))
      event = { source: delivery.event.source, 'detail-type': delivery.event.detailType, detail: event };
    if (!isObject(event) || !isObject(event.detail) || typeof event.source !== 'string')
      throw new TargetError(`${arn}: what ${delivery.source} sent is not an event`);
    put(bus, envelopeOf(event));
  };

/** The local EventBridge, delivering through `targets`; `seed` gives it the template's buses and rules. */
export const eventBridge = (targets: Targets, log: (line: string) => void) => {
  let buses = busesOf([]);
  let rules: ServedRule[] = [];
  const delivering: Delivering = { targets, log, timers: new Set(), closed: false };

  /** Puts `event` on `bus`: each enabled rule whose pattern matches delivers it to each of its targets. */
  const put = (bus: string, event: EventEnvelope) => {
    const ingested = new Date();
    const matched = rules.filter(
      ({ seed, pattern }) =>
        seed.bus === bus && seed.state !== 'DISABLED' && pattern !== undefined && matchesPattern(pattern, event),
    );
    if (matched.length === 0)
      log(
        `EventBridge: event ${String(event.id)} (${String(event.source)}, ${String(event['detail-type'])}) on bus ${bus}: no rule matched`,
      );
    for (const rule of matched)
      for (const target of rule.targets) void deliverToTarget(delivering, rule, target, event, ingested);
  };

  const operations = eventOperations(() => ({ buses, rules }), put, log);
  return {
    service: { name: 'events', signingName: 'events', targetPrefix: 'AWSEvents', operations } satisfies JsonService,
    /** The template's buses and rules (again, after a reload); lines to say at start. */
    seed: (seeds: EventSeeds | undefined) => {
      buses = busesOf(seeds?.buses ?? []);
      const served = servedRules(seeds?.rules ?? [], buses, targets);
      rules = served.rules;
      return served.notices;
    },
    receive: receiverOf(() => buses, put),
    /** The rules with a ScheduleExpression, as the schedules' clock times them. */
    scheduledRules: () =>
      rules.filter(({ seed }) => seed.scheduleExpression !== undefined).map((rule) => timedRule(rule, delivering)),
    banner: () => bannerOf(buses, rules),
    /**
     * Keeps pending deliveries in `file` from now on, and carries on with those a previous run left (each when due, at
     * once if past); one whose rule or target the template no longer has is said and dropped.
     */
    keep: (file: StateFile<PendingDeliveries>) => {
      delivering.file = file;
      for (const delivery of file.read().pending) {
        const rule = rules.find(({ seed }) => seed.bus === delivery.bus && seed.name === delivery.rule);
        const target = rule?.targets.find(({ id }) => id === delivery.target);
        const said = `EventBridge: event ${String(delivery.event.id)} to rule ${delivery.rule}'s target ${delivery.target} (bus ${delivery.bus}), kept from the last run`;
        if (!rule || !target) {
          log(`${said}, is dropped: the template no longer has that rule and target`);
          note(delivering, delivery, true);
          continue;
        }
        log(`${said}, is queued`);
        later(delivering, delivery, () => attemptDelivery(delivering, rule, target, delivery));
      }
    },
    close: () => {
      delivering.closed = true;
      for (const timer of delivering.timers) clearTimeout(timer);
      delivering.timers.clear();
    },
  };
};

/** The event a schedule rule delivers ("Scheduled Event", source aws.events, the rule's ARN as its resource). */
const scheduledEvent = (rule: string, time: Date): EventEnvelope => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: localAws.accountId,
  time: isoSecond(time),
  region: localAws.region,
  resources: [rule],
  detail: {},
});

interface Served {
  buses: Map<string, BusSeed>;
  rules: ServedRule[];
}

const text = (input: JsonInput, key: string) => {
  const value = input[key];
  if (typeof value !== 'string') throw new ServiceError('ValidationException', `${key} is a required argument`);
  return value;
};

const busDescription = (bus: BusSeed) => ({
  Name: bus.name,
  Arn: eventBusArn(bus.name),
  ...(bus.description !== undefined && { Description: bus.description }),
});

const ruleDescription = ({ seed, arn }: ServedRule) => ({
  Name: seed.name,
  Arn: arn,
  EventBusName: seed.bus,
  State: seed.state,
  ...(seed.pattern !== undefined && { EventPattern: JSON.stringify(seed.pattern) }),
  ...(seed.scheduleExpression !== undefined && { ScheduleExpression: seed.scheduleExpression }),
  ...(seed.description !== undefined && { Description: seed.description }),
});

const targetDescription = (target: RuleTarget & { arn: string }) => ({
  Id: target.id,
  Arn: target.arn,
  ...(target.input !== undefined && { Input: target.input }),
  ...(target.inputPath !== undefined && { InputPath: target.inputPath }),
  ...(target.inputTransformer && {
    InputTransformer: {
      InputPathsMap: target.inputTransformer.inputPathsMap,
      InputTemplate: target.inputTransformer.inputTemplate,
    },
  }),
  ...(target.deadLetterArn !== undefined && { DeadLetterConfig: { Arn: target.deadLetterArn } }),
  ...(target.retryPolicy && {
    RetryPolicy: {
      ...(target.retryPolicy.maximumRetryAttempts !== undefined && {
        MaximumRetryAttempts: target.retryPolicy.maximumRetryAttempts,
      }),
      ...(target.retryPolicy.maximumEventAgeInSeconds !== undefined && {
        MaximumEventAgeInSeconds: target.retryPolicy.maximumEventAgeInSeconds,
      }),
    },
  }),
  ...(target.messageGroupId !== undefined && { SqsParameters: { MessageGroupId: target.messageGroupId } }),
});

const ruleNamed = (served: Served, input: JsonInput) => {
  const name = text(input, 'Name');
  const bus = busNameOf(input.EventBusName);
  const rule = served.rules.find(({ seed }) => seed.name === name && seed.bus === bus);
  if (!rule) throw new ServiceError('ResourceNotFoundException', `Rule ${name} does not exist on EventBus ${bus}.`);
  return rule;
};

/** PutEvents: each entry answered with its EventId, or its ErrorCode and ErrorMessage; FailedEntryCount. */
const putEvents =
  (served: () => Served, put: (bus: string, event: EventEnvelope) => void, log: (line: string) => void) =>
  (input: JsonInput) => {
    const entries = Array.isArray(input.Entries) ? (input.Entries as unknown[]) : [];
    if (entries.length === 0 || entries.length > 10)
      throw new ServiceError(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and 10`,
      );
    const now = new Date();
    const answers = entries.map((entry) => {
      const event = eventOf(isObject(entry) ? entry : {}, now);
      if ('ErrorCode' in event) return event;
      const bus = busNameOf((entry as JsonInput).EventBusName);
      // AWS accepts an event for a bus that does not exist, and it goes nowhere (aws/aws-cli #9186): said here.
      if (!served().buses.has(bus))
        log(`EventBridge: event ${String(event.id)} put on bus ${bus}, which is not served: it goes nowhere`);
      else put(bus, event);
      return { EventId: event.id };
    });
    return { FailedEntryCount: answers.filter((answer) => 'ErrorCode' in answer).length, Entries: answers };
  };

const eventOperations = (
  served: () => Served,
  put: (bus: string, event: EventEnvelope) => void,
  log: (line: string) => void,
): JsonService['operations'] => ({
  PutEvents: putEvents(served, put, log),
  ListEventBuses: (input) => {
    const prefix = typeof input.NamePrefix === 'string' ? input.NamePrefix : '';
    return {
      EventBuses: [...served().buses.values()].filter(({ name }) => name.startsWith(prefix)).map(busDescription),
    };
  },
  DescribeEventBus: (input) => {
    const name = busNameOf(input.Name);
    const bus = served().buses.get(name);
    if (!bus) throw new ServiceError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
    return busDescription(bus);
  },
  ListRules: (input) => {
    const prefix = typeof input.NamePrefix === 'string' ? input.NamePrefix : '';
    const bus = busNameOf(input.EventBusName);
    return {
      Rules: served()
        .rules.filter(({ seed }) => seed.bus === bus && seed.name.startsWith(prefix))
        .map(ruleDescription),
    };
  },
  DescribeRule: (input) => ruleDescription(ruleNamed(served(), input)),
  ListTargetsByRule: (input) => ({
    Targets: ruleNamed(served(), { ...input, Name: input.Rule }).targets.map(targetDescription),
  }),
  TestEventPattern: (input) => {
    let pattern: CompiledPattern;
    try {
      pattern = compilePattern(JSON.parse(text(input, 'EventPattern')));
    } catch (error) {
      if (error instanceof PatternError || error instanceof SyntaxError)
        throw new ServiceError('InvalidEventPatternException', error.message);
      throw error;
    }
    let event: unknown;
    try {
      event = JSON.parse(text(input, 'Event'));
    } catch {
      throw new ServiceError('InvalidEventPatternException', 'Event is not valid JSON');
    }
    return { Result: matchesPattern(pattern, event) };
  },
});
