// AWS Step Functions, locally: the template's state machines (app/state-machine-resources.ts) and the Step Functions
// API over the JSON protocol the SDKs speak (AWS JSON 1.0, `X-Amz-Target: AWSStepFunctions.<Operation>`, AWS Step
// Functions API Reference, https://docs.aws.amazon.com/step-functions/latest/apireference/): StartExecution,
// StartSyncExecution (express machines), DescribeExecution, GetExecutionHistory, StopExecution, ListExecutions,
// ListStateMachines, DescribeStateMachine, SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat. Each execution runs
// in this process (interpreter.ts), its history kept and each state said in the log; executions live in memory (a
// restart forgets them, said in docs/step-functions.md). A rule's or a schedule's target that is a state machine
// starts an execution (the `states` receiver of Targets).
import { randomUUID } from 'node:crypto';
import { UnsupportedTemplateError } from '../../app/cfn.ts';
import { localAws } from '../../app/local-aws.ts';
import { queueEndpointMark, type StateMachineSeed } from '../../app/state-machine-resources.ts';
import { type JsonInput, type JsonService, ServiceError } from '../json-protocol.ts';
import { type Delivery, type Invoker, TargetError } from '../targets.ts';
import { ExecutionStopped, StatesError } from './errors.ts';
import { History, shownData } from './history.ts';
import { runStates } from './interpreter.ts';
import type { Definition, Run } from './run.ts';
import { TaskTokens } from './task-tokens.ts';
import { type FinishedExecution, taskRefusal, taskRunner } from './tasks.ts';
import type { WireEndpoints } from './wire-calls.ts';

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

interface Execution {
  arn: string;
  name: string;
  machine: StateMachineSeed;
  status: Status;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  startDate: Date;
  stopDate?: Date;
  history: History;
  controller: AbortController;
  done: Promise<void>;
}

const seconds = (date: Date) => date.getTime() / 1000;

const text = (input: JsonInput, name: string) => {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw new ServiceError('ValidationException', `${name} is required`);
  return value;
};

/** Each Task of `definition` (its branches' and processors' included), with its name. */
const tasksOf = (definition: Definition): [string, Record<string, unknown>][] =>
  Object.entries(definition.States ?? {}).flatMap(([name, state]) => {
    const nested = [
      ...(Array.isArray(state.Branches) ? (state.Branches as Definition[]) : []),
      ...[state.ItemProcessor, state.Iterator].filter(
        (inner): inner is Definition => typeof inner === 'object' && inner !== null,
      ),
    ];
    return [[name, state] as [string, Record<string, unknown>], ...nested.flatMap(tasksOf)];
  });

/** Refuses a machine with a state the runner does not reproduce, naming the state and what it uses. */
const checked = (seed: StateMachineSeed) => {
  for (const [name, state] of tasksOf(seed.definition as Definition)) {
    const refusal = state.Type === 'Task' ? taskRefusal(state.Resource) : undefined;
    if (refusal)
      throw new UnsupportedTemplateError(
        `${seed.source}: its state ${name}'s Resource ${String(state.Resource)}: ${refusal}`,
      );
    for (const field of ['ItemReader', 'ResultWriter', 'ItemBatcher'])
      if (state.Type === 'Map' && state[field] !== undefined)
        throw new UnsupportedTemplateError(
          `${seed.source}: its Map state ${name} has an ${field}, which the runner does not reproduce yet`,
        );
  }
  return seed;
};

const executionArn = (machine: StateMachineSeed, name: string) =>
  machine.type === 'EXPRESS'
    ? `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}:express:${machine.name}:${name}:${randomUUID()}`
    : `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}:execution:${machine.name}:${name}`;

const described = (execution: Execution) => ({
  executionArn: execution.arn,
  stateMachineArn: execution.machine.arn,
  name: execution.name,
  status: execution.status,
  startDate: seconds(execution.startDate),
  ...(execution.stopDate && { stopDate: seconds(execution.stopDate) }),
  input: execution.input,
  inputDetails: { included: true },
  ...(execution.output !== undefined && { output: execution.output, outputDetails: { included: true } }),
  ...(execution.error !== undefined && { error: execution.error }),
  ...(execution.cause !== undefined && { cause: execution.cause }),
});

export interface StepFunctionsOptions {
  log: (line: string) => void;
  /** How a Task runs a function synchronously; absent until the runner serves its functions. */
  invoke: () => Invoker | undefined;
  /** The other local services' endpoints, for the service integrations. */
  endpoints: () => WireEndpoints;
  /** Wait states and Retry intervals pass at once (--skip-waits). */
  skipWaits: boolean;
}

export const stepFunctions = (options: StepFunctionsOptions) => {
  let machines = new Map<string, StateMachineSeed>();
  /** A machine with the local SQS's address in its queue URLs, once it listens (queueEndpointMark). */
  const served = (seed: StateMachineSeed): StateMachineSeed => {
    const text = JSON.stringify(seed.definition);
    const sqs = options.endpoints().sqs;
    return text.includes(queueEndpointMark) && sqs !== undefined
      ? { ...seed, definition: JSON.parse(text.replaceAll(queueEndpointMark, sqs)) as Record<string, unknown> }
      : seed;
  };
  const executions = new Map<string, Execution>();
  const tokens = new TaskTokens();
  const finished = async (arn: string): Promise<FinishedExecution> => {
    const execution = executions.get(arn);
    if (!execution) throw new StatesError('States.Runtime', `${arn}: no such execution`);
    await execution.done;
    return described(execution);
  };
  const runTask = taskRunner({ invoke: options.invoke, endpoints: options.endpoints, tokens, finished });

  const ended = (execution: Execution, status: Status, event: string, details: Record<string, unknown>) => {
    if (execution.status !== 'RUNNING') return;
    execution.status = status;
    execution.stopDate = new Date();
    execution.history.add(event, details);
  };

  const execute = async (execution: Execution, run: Run, timedOut: () => boolean) => {
    const { definition } = execution.machine;
    const language = definition.QueryLanguage === 'JSONata' ? 'JSONata' : 'JSONPath';
    try {
      const output = await runStates(definition as Definition, JSON.parse(execution.input), run, {
        language,
        variables: {},
        path: '',
      });
      execution.output = shownData(output);
      ended(execution, 'SUCCEEDED', 'ExecutionSucceeded', {
        output: execution.output,
        outputDetails: { truncated: false },
      });
    } catch (error) {
      if (error instanceof ExecutionStopped && timedOut()) {
        Object.assign(execution, { error: 'States.Timeout', cause: 'The execution timed out' });
        ended(execution, 'TIMED_OUT', 'ExecutionTimedOut', {
          error: 'States.Timeout',
          cause: 'The execution timed out',
        });
      } else if (error instanceof StatesError) {
        Object.assign(execution, { error: error.error, cause: error.cause });
        ended(execution, 'FAILED', 'ExecutionFailed', { error: error.error, cause: error.cause });
      } else if (!(error instanceof ExecutionStopped)) {
        options.log(`Step Functions failed: ${(error as Error).stack ?? String(error)}`);
        Object.assign(execution, { error: 'States.Runtime', cause: (error as Error).message });
        ended(execution, 'FAILED', 'ExecutionFailed', { error: 'States.Runtime', cause: (error as Error).message });
      }
    }
    const took = (execution.stopDate ?? new Date()).getTime() - execution.startDate.getTime();
    run.say(
      `execution ${execution.status.toLowerCase()}${execution.error ? ` (${execution.error}: ${execution.cause})` : ''} in ${took} ms`,
    );
  };

  const start = (machine: StateMachineSeed, givenName: unknown, input: unknown) => {
    const name = typeof givenName === 'string' && givenName !== '' ? givenName : randomUUID();
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new ServiceError('InvalidName', `Invalid Name: '${name}'`);
    const inputText = typeof input === 'string' ? input : '{}';
    try {
      JSON.parse(inputText);
    } catch {
      throw new ServiceError('InvalidExecutionInput', 'Invalid State Machine Execution Input: the input is not JSON');
    }
    const arn = executionArn(machine, name);
    const existing = executions.get(arn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === inputText) return existing;
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    const execution: Execution = {
      arn,
      name,
      machine,
      status: 'RUNNING',
      input: inputText,
      startDate: new Date(),
      history: new History(),
      controller: new AbortController(),
      done: Promise.resolve(),
    };
    executions.set(arn, execution);
    let timedOut = false;
    const limit = machine.definition.TimeoutSeconds;
    const timer =
      typeof limit === 'number'
        ? setTimeout(() => {
            timedOut = true;
            execution.controller.abort();
          }, limit * 1000)
        : undefined;
    const run: Run = {
      context: {
        Execution: {
          Id: arn,
          Input: JSON.parse(inputText),
          Name: name,
          RoleArn: machine.roleArn ?? '',
          StartTime: execution.startDate.toISOString(),
          RedriveCount: 0,
        },
        StateMachine: { Id: machine.arn, Name: machine.name },
      },
      history: execution.history,
      signal: execution.controller.signal,
      say: (line) => options.log(`Step Functions ${machine.name} ${name}: ${line}`),
      skipWaits: options.skipWaits,
      runTask,
      newToken: () => tokens.create(),
    };
    execution.history.add('ExecutionStarted', {
      input: inputText,
      inputDetails: { truncated: false },
      ...(machine.roleArn && { roleArn: machine.roleArn }),
    });
    run.say(`execution started (${machine.type})`);
    execution.done = execute(execution, run, () => timedOut).finally(() => clearTimeout(timer));
    return execution;
  };

  const machineOf = (arn: string) => {
    const machine = machines.get(arn);
    if (!machine) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return served(machine);
  };
  const executionOf = (arn: string) => {
    const execution = executions.get(arn);
    if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return execution;
  };

  const operations: Record<string, (input: JsonInput) => unknown> = {
    StartExecution: (input) => {
      const execution = start(machineOf(text(input, 'stateMachineArn')), input.name, input.input);
      return { executionArn: execution.arn, startDate: seconds(execution.startDate) };
    },
    StartSyncExecution: async (input) => {
      const machine = machineOf(text(input, 'stateMachineArn'));
      if (machine.type !== 'EXPRESS')
        throw new ServiceError(
          'StateMachineTypeNotSupported',
          'This operation is not supported by this type of state machine',
        );
      const execution = start(machine, input.name, input.input);
      await execution.done;
      const took = (execution.stopDate ?? new Date()).getTime() - execution.startDate.getTime();
      return {
        ...described(execution),
        billingDetails: {
          billedMemoryUsedInMB: 64,
          billedDurationInMilliseconds: Math.max(100, Math.ceil(took / 100) * 100),
        },
      };
    },
    DescribeExecution: (input) => ({
      ...described(executionOf(text(input, 'executionArn'))),
      redriveCount: 0,
      redriveStatus: 'NOT_REDRIVABLE',
    }),
    GetExecutionHistory: (input) => {
      const events = [...executionOf(text(input, 'executionArn')).history.events];
      if (input.reverseOrder === true) events.reverse();
      const from = Number(input.nextToken ?? 0) || 0;
      const size = typeof input.maxResults === 'number' && input.maxResults > 0 ? input.maxResults : 1000;
      const page = events.slice(from, from + size);
      return { events: page, ...(from + size < events.length && { nextToken: String(from + size) }) };
    },
    StopExecution: (input) => {
      const execution = executionOf(text(input, 'executionArn'));
      const details = {
        ...(typeof input.error === 'string' && { error: input.error }),
        ...(typeof input.cause === 'string' && { cause: input.cause }),
      };
      if (execution.status === 'RUNNING') {
        Object.assign(execution, details);
        ended(execution, 'ABORTED', 'ExecutionAborted', details);
        execution.controller.abort();
        options.log(`Step Functions ${execution.machine.name} ${execution.name}: execution aborted (StopExecution)`);
      }
      return { stopDate: seconds(execution.stopDate ?? new Date()) };
    },
    ListExecutions: (input) => {
      const arn = text(input, 'stateMachineArn');
      machineOf(arn);
      const listed = [...executions.values()]
        .filter((e) => e.machine.arn === arn && (input.statusFilter === undefined || e.status === input.statusFilter))
        .reverse()
        .map((e) => ({
          executionArn: e.arn,
          stateMachineArn: arn,
          name: e.name,
          status: e.status,
          startDate: seconds(e.startDate),
          ...(e.stopDate && { stopDate: seconds(e.stopDate) }),
        }));
      const size = typeof input.maxResults === 'number' && input.maxResults > 0 ? input.maxResults : 100;
      return { executions: listed.slice(0, size) };
    },
    ListStateMachines: () => ({
      stateMachines: [...machines.values()].map(({ arn, name, type }) => ({
        stateMachineArn: arn,
        name,
        type,
        creationDate: seconds(createdAt),
      })),
    }),
    DescribeStateMachine: (input) => {
      const machine = machineOf(text(input, 'stateMachineArn'));
      return {
        stateMachineArn: machine.arn,
        name: machine.name,
        status: 'ACTIVE',
        definition: JSON.stringify(machine.definition),
        roleArn: machine.roleArn ?? `arn:${localAws.partition}:iam::${localAws.accountId}:role/local`,
        type: machine.type,
        creationDate: seconds(createdAt),
      };
    },
    SendTaskSuccess: (input) => {
      const output = text(input, 'output');
      let parsed: unknown;
      try {
        parsed = JSON.parse(output);
      } catch {
        throw new ServiceError('InvalidOutput', 'Invalid Output: the output is not JSON');
      }
      tokens.succeed(text(input, 'taskToken'), parsed);
      return {};
    },
    SendTaskFailure: (input) => {
      tokens.fail(
        text(input, 'taskToken'),
        typeof input.error === 'string' ? input.error : '',
        typeof input.cause === 'string' ? input.cause : '',
      );
      return {};
    },
    SendTaskHeartbeat: (input) => {
      tokens.heartbeat(text(input, 'taskToken'));
      return {};
    },
  };
  const createdAt = new Date();

  return {
    service: {
      name: 'states',
      signingName: 'states',
      targetPrefix: 'AWSStepFunctions',
      operations,
    } satisfies JsonService,
    /** The template's state machines (again after a reload); one the runner cannot reproduce refuses the start. */
    seed: (seeds: StateMachineSeed[]) => {
      machines = new Map(seeds.map((seed) => [seed.arn, checked(seed)]));
      // Listed by the banner (cli/serve.ts); nothing to say here.
      return [] as string[];
    },
    /** The state machines, for the banner. */
    machines: () => [...machines.values()].map(({ name, arn, type, source }) => ({ name, arn, type, source })),
    /** What a rule's or schedule's target sends a state machine: an execution, its input the delivery's body. */
    receive: async (arn: string, delivery: Delivery) => {
      const machine = machines.get(arn);
      if (!machine) throw new TargetError(`${arn}: no state machine of that ARN is served`);
      const execution = start(served(machine), undefined, delivery.body);
      options.log(`Step Functions ${machine.name}: execution ${execution.name} started by ${delivery.source}`);
    },
    close: async () => {
      tokens.close();
      const running = [...executions.values()].filter((e) => e.status === 'RUNNING');
      for (const execution of running) {
        ended(execution, 'ABORTED', 'ExecutionAborted', { cause: 'the runner stopped' });
        execution.controller.abort();
      }
      await Promise.all(running.map((e) => e.done));
    },
  };
};
