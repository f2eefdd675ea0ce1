// AWS Step Functions, locally: the template's state machines (app/state-machine-resources.ts) and the Step Functions
// API over the JSON protocol the SDKs speak (AWS JSON 1.0, `X-Amz-Target: AWSStepFunctions.<Operation>`, AWS Step
// Functions API Reference, https://docs.aws.amazon.com/step-functions/latest/apireference/): StartExecution,
// StartSyncExecution (express machines), DescribeExecution, GetExecutionHistory, StopExecution, ListExecutions,
// DescribeMapRun, ListMapRuns, ListStateMachines, DescribeStateMachine, SendTaskSuccess, SendTaskFailure and
// SendTaskHeartbeat, and activities' CreateActivity, ListActivities, DescribeActivity and GetActivityTask
// (activities.ts). Each execution runs in this process (executions.ts, interpreter.ts), its history kept and each
// state said in the log. A rule's or a schedule's target that is a state machine starts an execution (the `states`
// receiver of Targets).
import { UnsupportedTemplateError } from '../../app/cfn.ts';
import { localAws } from '../../app/local-aws.ts';
import { type ActivitySeed, queueEndpointMark, type StateMachineSeed } from '../../app/state-machine-resources.ts';
import { type JsonInput, type JsonService, ServiceError } from '../json-protocol.ts';
import type { StateFile } from '../state-file.ts';
import { type Delivery, type Invoker, TargetError } from '../targets.ts';
import { Activities } from './activities.ts';
import { described, Executions, type KeptExecutions, seconds } from './executions.ts';
import { readerRefusal } from './item-reader.ts';
import { pathRefusal } from './path-checks.ts';
import { writerRefusal } from './result-writer.ts';
import type { Definition, MapRunReport } from './run.ts';
import { TaskTokens } from './task-tokens.ts';
import { taskRefusal, taskRunner } from './tasks.ts';
import type { WireEndpoints } from './wire-calls.ts';

const text = (input: JsonInput, name: string) => {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw new ServiceError('ValidationException', `${name} is required`);
  return value;
};

const optionalText = (input: JsonInput, name: string) => (typeof input[name] === 'string' ? input[name] : undefined);

const pageSize = (input: JsonInput, fallback: number) =>
  typeof input.maxResults === 'number' && input.maxResults > 0 ? input.maxResults : fallback;

/** Each state of `definition` (its branches' and processors' included), with its name. */
const statesOf = (definition: Definition): [string, Record<string, unknown>][] =>
  Object.entries(definition.States ?? {}).flatMap(([name, state]) => {
    const nested = [
      ...(Array.isArray(state.Branches) ? (state.Branches as Definition[]) : []),
      ...[state.ItemProcessor, state.Iterator].filter(
        (inner): inner is Definition => typeof inner === 'object' && inner !== null,
      ),
    ];
    return [[name, state] as [string, Record<string, unknown>], ...nested.flatMap(statesOf)];
  });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why the runner does not run the Map `state` as written, or undefined when it does. */
const mapRefusal = (state: Record<string, unknown>) => {
  const processor = isObject(state.ItemProcessor) ? state.ItemProcessor : {};
  const distributed = isObject(processor.ProcessorConfig) && processor.ProcessorConfig.Mode === 'DISTRIBUTED';
  for (const field of ['ItemReader', 'ItemBatcher', 'ResultWriter'])
    if (state[field] !== undefined && !distributed)
      return `${field} is for a Distributed Map (ItemProcessor.ProcessorConfig.Mode DISTRIBUTED)`;
  return (
    (state.ItemReader === undefined ? undefined : readerRefusal(state.ItemReader)) ??
    (state.ResultWriter === undefined ? undefined : writerRefusal(state.ResultWriter))
  );
};

/** Refuses a machine with a state the runner does not reproduce, naming the state and what it uses. */
const checked = (seed: StateMachineSeed, activities: Activities) => {
  for (const [name, state] of statesOf(seed.definition as Definition)) {
    const refusal = state.Type === 'Task' ? taskRefusal(state.Resource, (arn) => activities.has(arn)) : undefined;
    if (refusal)
      throw new UnsupportedTemplateError(
        `${seed.source}: its state ${name}'s Resource ${String(state.Resource)}: ${refusal}`,
      );
    const mapRefused = state.Type === 'Map' ? mapRefusal(state) : undefined;
    if (mapRefused) throw new UnsupportedTemplateError(`${seed.source}: its Map state ${name}: ${mapRefused}`);
    const paths = pathRefusal(state);
    if (paths) throw new UnsupportedTemplateError(`${seed.source}: its state ${name}, ${paths}`);
  }
  return seed;
};

export interface StepFunctionsOptions {
  log: (line: string) => void;
  /** How a Task runs a function synchronously; absent until the runner serves its functions. */
  invoke: () => Invoker | undefined;
  /** The other local services' endpoints, for the service integrations. */
  endpoints: () => WireEndpoints;
  /** Wait states and Retry intervals pass at once (--skip-waits). */
  skipWaits: boolean;
  /** Where ended executions are kept. */
  store: StateFile<KeptExecutions>;
}

/** The template's state machines, by ARN, each with the local SQS's address in its queue URLs once it listens. */
class Machines {
  #byArn = new Map<string, StateMachineSeed>();
  readonly #endpoints: () => WireEndpoints;
  readonly #activities: Activities;
  readonly createdAt = new Date();

  constructor(endpoints: () => WireEndpoints, activities: Activities) {
    this.#endpoints = endpoints;
    this.#activities = activities;
  }

  replace(seeds: StateMachineSeed[]) {
    this.#byArn = new Map(seeds.map((seed) => [seed.arn, checked(seed, this.#activities)]));
  }

  all() {
    return [...this.#byArn.values()];
  }

  /** The machine `arn` names, or undefined. */
  find(arn: string) {
    const seed = this.#byArn.get(arn);
    if (!seed) return undefined;
    const definition = JSON.stringify(seed.definition);
    const sqs = this.#endpoints().sqs;
    return definition.includes(queueEndpointMark) && sqs !== undefined
      ? { ...seed, definition: JSON.parse(definition.replaceAll(queueEndpointMark, sqs)) as Record<string, unknown> }
      : seed;
  }

  /** The machine `arn` names; StateMachineDoesNotExist when none. */
  get(arn: string) {
    const machine = this.find(arn);
    if (!machine) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return machine;
  }
}

/** StartSyncExecution: an express machine's execution, answered once it has ended. */
const syncExecution = async (machines: Machines, executions: Executions, input: JsonInput) => {
  const machine = machines.get(text(input, 'stateMachineArn'));
  if (machine.type !== 'EXPRESS')
    throw new ServiceError(
      'StateMachineTypeNotSupported',
      'This operation is not supported by this type of state machine',
    );
  const execution = executions.start(machine, input.name, input.input);
  await execution.done;
  const took = (execution.stopDate ?? new Date()).getTime() - execution.startDate.getTime();
  const billedDurationInMilliseconds = Math.max(100, Math.ceil(took / 100) * 100);
  return { ...described(execution), billingDetails: { billedMemoryUsedInMB: 64, billedDurationInMilliseconds } };
};

/** GetExecutionHistory: its events, oldest first unless reverseOrder, a page at a time. */
const historyPage = (executions: Executions, input: JsonInput) => {
  const events = [...executions.get(text(input, 'executionArn')).history.events];
  if (input.reverseOrder === true) events.reverse();
  const from = Number(input.nextToken ?? 0) || 0;
  const size = pageSize(input, 1000);
  return {
    events: events.slice(from, from + size),
    ...(from + size < events.length && { nextToken: String(from + size) }),
  };
};

/** ListExecutions: the machine's executions, the latest first, those of `statusFilter` alone if given. */
const listed = (machines: Machines, executions: Executions, input: JsonInput) => {
  const arn = machines.get(text(input, 'stateMachineArn')).arn;
  const chosen = executions
    .of(arn)
    .filter(({ status }) => input.statusFilter === undefined || status === input.statusFilter)
    .map(({ arn: executionArn, name, status, startDate, stopDate }) => ({
      ...{ executionArn, stateMachineArn: arn, name, status, startDate: seconds(startDate) },
      ...(stopDate && { stopDate: seconds(stopDate) }),
    }));
  return { executions: chosen.slice(0, pageSize(input, 100)) };
};

const describedMachine = (machines: Machines, input: JsonInput) => {
  const machine = machines.get(text(input, 'stateMachineArn'));
  return {
    ...{ stateMachineArn: machine.arn, name: machine.name, status: 'ACTIVE', type: machine.type },
    definition: JSON.stringify(machine.definition),
    roleArn: machine.roleArn ?? `arn:${localAws.partition}:iam::${localAws.accountId}:role/local`,
    creationDate: seconds(machines.createdAt),
  };
};

const taskSuccess = (tokens: TaskTokens, input: JsonInput) => {
  const output = text(input, 'output');
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    throw new ServiceError('InvalidOutput', 'Invalid Output: the output is not JSON');
  }
  tokens.succeed(text(input, 'taskToken'), parsed);
  return {};
};

/** A Map Run's counts as DescribeMapRun gives them (`itemCounts`, `executionCounts`). */
const mapRunCounts = (report: MapRunReport, counts: MapRunReport['items']) => {
  const rest = counts.total - counts.succeeded - counts.failed;
  const running = report.status === 'RUNNING';
  return {
    ...{ pending: running ? rest : 0, running: 0, succeeded: counts.succeeded, failed: counts.failed, timedOut: 0 },
    ...{ aborted: running ? 0 : rest, total: counts.total, failuresNotRedrivable: 0, pendingRedrive: 0 },
    resultsWritten: report.written && report.status === 'SUCCEEDED' ? counts.succeeded + counts.failed : 0,
  };
};

/** DescribeMapRun ("DescribeMapRun", AWS Step Functions API Reference). */
const describedMapRun = (executions: Executions, input: JsonInput) => {
  const arn = text(input, 'mapRunArn');
  const report = executions.mapRuns.get(arn);
  if (!report) throw new ServiceError('ResourceNotFound', `Map Run Does Not Exist: '${arn}'`);
  const { mapRunArn, executionArn, status, startDate, stopDate } = report;
  return {
    ...{
      mapRunArn,
      executionArn,
      status,
      startDate: seconds(startDate),
      ...(stopDate && { stopDate: seconds(stopDate) }),
    },
    ...{ maxConcurrency: report.maxConcurrency, toleratedFailureCount: report.toleratedFailureCount },
    toleratedFailurePercentage: report.toleratedFailurePercentage,
    itemCounts: mapRunCounts(report, report.items),
    executionCounts: mapRunCounts(report, report.executions),
    redriveCount: 0,
  };
};

/** ListMapRuns: the execution's Map Runs, the first first. */
const listedMapRuns = (executions: Executions, input: JsonInput) => {
  const { arn } = executions.get(text(input, 'executionArn'));
  const runs = [...executions.mapRuns.values()].filter(({ executionArn }) => executionArn === arn);
  return {
    mapRuns: runs.map(({ executionArn, mapRunArn, stateMachineArn, startDate, stopDate }) => ({
      ...{ executionArn, mapRunArn, stateMachineArn, startDate: seconds(startDate) },
      ...(stopDate && { stopDate: seconds(stopDate) }),
    })),
  };
};

const activityShown = (activity: ReturnType<Activities['get']>) => ({
  activityArn: activity.arn,
  name: activity.name,
  creationDate: seconds(activity.creationDate),
});

/** The activities' operations (API Reference: CreateActivity, ListActivities, DescribeActivity, GetActivityTask). */
const activityOperations = (activities: Activities): Record<string, (input: JsonInput) => unknown> => ({
  CreateActivity: (input) => {
    const { arn, creationDate } = activities.create(text(input, 'name'));
    return { activityArn: arn, creationDate: seconds(creationDate) };
  },
  ListActivities: () => ({ activities: activities.list().map(activityShown) }),
  DescribeActivity: (input) => activityShown(activities.get(text(input, 'activityArn'))),
  GetActivityTask: (input) => activities.poll(text(input, 'activityArn'), optionalText(input, 'workerName')),
});

/** The API's operations, each on the machines, the executions and the task tokens. */
const operationsOf = (
  machines: Machines,
  executions: Executions,
  tokens: TaskTokens,
  log: (line: string) => void,
): Record<string, (input: JsonInput) => unknown> => ({
  StartExecution: (input) => {
    const execution = executions.start(machines.get(text(input, 'stateMachineArn')), input.name, input.input);
    return { executionArn: execution.arn, startDate: seconds(execution.startDate) };
  },
  StartSyncExecution: (input) => syncExecution(machines, executions, input),
  DescribeExecution: (input) => ({
    ...described(executions.get(text(input, 'executionArn'))),
    redriveCount: 0,
    redriveStatus: 'NOT_REDRIVABLE',
  }),
  GetExecutionHistory: (input) => historyPage(executions, input),
  DescribeMapRun: (input) => describedMapRun(executions, input),
  ListMapRuns: (input) => listedMapRuns(executions, input),
  StopExecution: (input) => {
    const execution = executions.get(text(input, 'executionArn'));
    if (execution.status === 'RUNNING') {
      const error = optionalText(input, 'error');
      const cause = optionalText(input, 'cause');
      executions.stop(execution, { ...(error !== undefined && { error }), ...(cause !== undefined && { cause }) });
      log(`Step Functions ${execution.machine.name} ${execution.name}: execution aborted (StopExecution)`);
    }
    return { stopDate: seconds(execution.stopDate ?? new Date()) };
  },
  ListExecutions: (input) => listed(machines, executions, input),
  ListStateMachines: () => ({
    stateMachines: machines.all().map(({ arn, name, type }) => ({
      ...{ stateMachineArn: arn, name, type },
      creationDate: seconds(machines.createdAt),
    })),
  }),
  DescribeStateMachine: (input) => describedMachine(machines, input),
  SendTaskSuccess: (input) => taskSuccess(tokens, input),
  SendTaskFailure: (input) => {
    tokens.fail(text(input, 'taskToken'), optionalText(input, 'error') ?? '', optionalText(input, 'cause') ?? '');
    return {};
  },
  SendTaskHeartbeat: (input) => {
    tokens.heartbeat(text(input, 'taskToken'));
    return {};
  },
});

export const stepFunctions = (options: StepFunctionsOptions) => {
  const activities = new Activities();
  const machines = new Machines(options.endpoints, activities);
  const tokens = new TaskTokens();
  const runTask = taskRunner({
    invoke: options.invoke,
    endpoints: options.endpoints,
    tokens,
    activities,
    finished: (arn) => executions.finished(arn),
  });
  const executions = new Executions({
    store: options.store,
    log: options.log,
    skipWaits: options.skipWaits,
    runTask,
    newToken: () => tokens.create(),
  });
  return {
    service: {
      name: 'states',
      signingName: 'states',
      targetPrefix: 'AWSStepFunctions',
      operations: { ...operationsOf(machines, executions, tokens, options.log), ...activityOperations(activities) },
    } satisfies JsonService,
    /** The template's state machines (again after a reload); one the runner cannot reproduce refuses the start. */
    seed: (seeds: StateMachineSeed[], activitySeeds: ActivitySeed[] = []): string[] => {
      activities.replace(activitySeeds);
      machines.replace(seeds);
      // Listed by the banner (cli/serve.ts); nothing to say here.
      return [];
    },
    /** The state machines, for the banner. */
    machines: () => machines.all().map(({ name, arn, type, source }) => ({ name, arn, type, source })),
    /** What a rule's or schedule's target sends a state machine: an execution, its input the delivery's body. */
    receive: async (arn: string, delivery: Delivery) => {
      const machine = machines.find(arn);
      if (!machine) throw new TargetError(`${arn}: no state machine of that ARN is served`);
      const execution = executions.start(machine, undefined, delivery.body);
      options.log(`Step Functions ${machine.name}: execution ${execution.name} started by ${delivery.source}`);
    },
    close: async () => {
      activities.close();
      tokens.close();
      await executions.close();
    },
  };
};
