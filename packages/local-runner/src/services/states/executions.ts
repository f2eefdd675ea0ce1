// A state machine's executions as the local Step Functions keeps them (in `<data folder>/services/states.json` once
// each has ended, the last 1000, so that DescribeExecution and GetExecutionHistory answer after a restart; one running
// when the runner stopped is kept ABORTED): each
// started with its name and input, run by the interpreter (interpreter.ts) with its context object, its history and its
// log lines, ended SUCCEEDED, FAILED, TIMED_OUT (the machine's TimeoutSeconds) or ABORTED (StopExecution), as
// DescribeExecution describes it ("DescribeExecution", AWS Step Functions API Reference,
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html).
import { randomUUID } from 'node:crypto';
import { localAws } from '../../app/local-aws.ts';
import type { StateMachineSeed } from '../../app/state-machine-resources.ts';
import { ServiceError } from '../json-protocol.ts';
import type { StateFile } from '../state-file.ts';
import { ExecutionStopped, StatesError } from './errors.ts';
import { History, type HistoryEvent, shownData } from './history.ts';
import { runStates } from './interpreter.ts';
import type { Definition, MapRunReport, Run } from './run.ts';

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface Execution {
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

/** A date as the JSON protocol gives one: seconds since the epoch. */
export const seconds = (date: Date) => date.getTime() / 1000;

/** DescribeExecution's answer. */
export const described = (execution: Execution) => ({
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

/** A standard execution's ARN names it; an express one's adds a unique part ("Execution ARN" in the guide). */
const executionArn = (machine: StateMachineSeed, name: string) =>
  machine.type === 'EXPRESS'
    ? `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}:express:${machine.name}:${name}:${randomUUID()}`
    : `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}:execution:${machine.name}:${name}`;

const inputOf = (input: unknown) => {
  const text = typeof input === 'string' ? input : '{}';
  try {
    JSON.parse(text);
  } catch {
    throw new ServiceError('InvalidExecutionInput', 'Invalid State Machine Execution Input: the input is not JSON');
  }
  return text;
};

/** An ended execution as the data folder keeps it. */
type KeptExecution = Omit<Execution, 'startDate' | 'stopDate' | 'history' | 'controller' | 'done'> & {
  startDate: string;
  stopDate?: string;
  events: HistoryEvent[];
};

export interface KeptExecutions {
  executions: KeptExecution[];
}

export const emptyExecutions = (): KeptExecutions => ({ executions: [] });

/** The ended executions kept, at most. */
const keptAtMost = 1000;

const kept = (execution: Execution): KeptExecution => {
  const { history, controller, done, startDate, stopDate, ...rest } = execution;
  return {
    ...rest,
    startDate: startDate.toISOString(),
    ...(stopDate && { stopDate: stopDate.toISOString() }),
    events: history.events,
  };
};

const restored = ({ events, startDate, stopDate, ...rest }: KeptExecution): Execution => ({
  ...rest,
  startDate: new Date(startDate),
  ...(stopDate !== undefined && { stopDate: new Date(stopDate) }),
  history: new History(events),
  controller: new AbortController(),
  done: Promise.resolve(),
});

export interface ExecutionsOptions {
  /** Where ended executions are kept (in memory without a data folder). */
  store: StateFile<KeptExecutions>;
  log: (line: string) => void;
  skipWaits: boolean;
  runTask: Run['runTask'];
  newToken: () => string;
}

export class Executions {
  readonly #byArn = new Map<string, Execution>();
  /** The Distributed Maps' runs, by ARN (in memory: DescribeMapRun answers them until the runner stops). */
  readonly mapRuns = new Map<string, MapRunReport>();
  readonly #options: ExecutionsOptions;

  constructor(options: ExecutionsOptions) {
    this.#options = options;
    for (const execution of options.store.read().executions) this.#byArn.set(execution.arn, restored(execution));
  }

  /** `execution`, ended, kept in the data folder with the others. */
  #keep(execution: Execution) {
    const { store } = this.#options;
    const others = store.read().executions.filter(({ arn }) => arn !== execution.arn);
    store.write({ executions: [...others, kept(execution)].slice(-keptAtMost) });
  }

  /** A new execution of `machine` (or the running one of that name and input), started. */
  start(machine: StateMachineSeed, givenName: unknown, input: unknown): Execution {
    const name = typeof givenName === 'string' && givenName !== '' ? givenName : randomUUID();
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new ServiceError('InvalidName', `Invalid Name: '${name}'`);
    const inputText = inputOf(input);
    const arn = executionArn(machine, name);
    const existing = this.#byArn.get(arn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === inputText) return existing;
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    const execution: Execution = {
      ...{ arn, name, machine, status: 'RUNNING', input: inputText, startDate: new Date() },
      ...{ history: new History(), controller: new AbortController(), done: Promise.resolve() },
    };
    this.#byArn.set(arn, execution);
    const run = this.#runOf(execution);
    execution.history.add('ExecutionStarted', {
      input: inputText,
      inputDetails: { truncated: false },
      ...(machine.roleArn && { roleArn: machine.roleArn }),
    });
    run.say(`execution started (${machine.type})`);
    execution.done = this.#timed(execution, run);
    return execution;
  }

  /** The execution `arn` names; ExecutionDoesNotExist when none. */
  get(arn: string) {
    const execution = this.#byArn.get(arn);
    if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  /** The executions of `machineArn`, the latest first. */
  of(machineArn: string) {
    return [...this.#byArn.values()].filter((execution) => execution.machine.arn === machineArn).reverse();
  }

  /** Stops `execution` if it runs (StopExecution, or the runner stopping). */
  stop(execution: Execution, details: { error?: string; cause?: string }) {
    if (execution.status !== 'RUNNING') return;
    Object.assign(execution, details);
    this.#ended(execution, 'ABORTED', 'ExecutionAborted', details);
    execution.controller.abort();
    this.#keep(execution);
  }

  /** DescribeExecution's answer once the execution `arn` names has ended (a `.sync` task's). */
  async finished(arn: string) {
    const execution = this.#byArn.get(arn);
    if (!execution) throw new StatesError('States.Runtime', `${arn}: no such execution`);
    await execution.done;
    return described(execution);
  }

  /** Every running execution aborted, once each has stopped. */
  async close() {
    const running = [...this.#byArn.values()].filter((execution) => execution.status === 'RUNNING');
    for (const execution of running) this.stop(execution, { cause: 'the runner stopped' });
    await Promise.all(running.map((execution) => execution.done));
  }

  #runOf(execution: Execution): Run {
    const { arn, name, machine } = execution;
    const { log, skipWaits, runTask, newToken } = this.#options;
    return {
      context: {
        Execution: {
          ...{ Id: arn, Input: JSON.parse(execution.input), Name: name, RoleArn: machine.roleArn ?? '' },
          ...{ StartTime: execution.startDate.toISOString(), RedriveCount: 0 },
        },
        StateMachine: { Id: machine.arn, Name: machine.name },
      },
      history: execution.history,
      signal: execution.controller.signal,
      say: (line) => log(`Step Functions ${machine.name} ${name}: ${line}`),
      skipWaits,
      runTask,
      newToken,
      mapRuns: this.mapRuns,
    };
  }

  /** The execution run, stopped when the machine's TimeoutSeconds pass (TIMED_OUT). */
  async #timed(execution: Execution, run: Run) {
    let timedOut = false;
    const limit = execution.machine.definition.TimeoutSeconds;
    const stop = () => {
      timedOut = true;
      execution.controller.abort();
    };
    const timer = typeof limit === 'number' ? setTimeout(stop, limit * 1000) : undefined;
    try {
      await this.#execute(execution, run, () => timedOut);
    } finally {
      clearTimeout(timer);
    }
    if (execution.status !== 'ABORTED') this.#keep(execution);
    const took = (execution.stopDate ?? new Date()).getTime() - execution.startDate.getTime();
    const failure = execution.error ? ` (${execution.error}: ${execution.cause})` : '';
    run.say(`execution ${execution.status.toLowerCase()}${failure} in ${took} ms`);
  }

  async #execute(execution: Execution, run: Run, timedOut: () => boolean) {
    const definition = execution.machine.definition as Definition;
    const language = definition.QueryLanguage === 'JSONata' ? 'JSONata' : 'JSONPath';
    try {
      const output = await runStates(definition, JSON.parse(execution.input), run, {
        language,
        variables: {},
        path: '',
      });
      execution.output = shownData(output);
      this.#ended(execution, 'SUCCEEDED', 'ExecutionSucceeded', {
        output: execution.output,
        outputDetails: { truncated: false },
      });
    } catch (error) {
      if (error instanceof ExecutionStopped && timedOut())
        this.#failed(
          execution,
          'TIMED_OUT',
          'ExecutionTimedOut',
          new StatesError('States.Timeout', 'The execution timed out'),
        );
      else if (error instanceof StatesError) this.#failed(execution, 'FAILED', 'ExecutionFailed', error);
      else if (!(error instanceof ExecutionStopped)) {
        // A bug of the interpreter's: said with its stack, the execution failed as AWS fails one it cannot run.
        this.#options.log(`Step Functions failed: ${(error as Error).stack ?? String(error)}`);
        this.#failed(
          execution,
          'FAILED',
          'ExecutionFailed',
          new StatesError('States.Runtime', (error as Error).message),
        );
      }
    }
  }

  #failed(execution: Execution, status: Status, event: string, failure: StatesError) {
    if (execution.status !== 'RUNNING') return;
    Object.assign(execution, { error: failure.error, cause: failure.cause });
    this.#ended(execution, status, event, { error: failure.error, cause: failure.cause });
  }

  #ended(execution: Execution, status: Status, event: string, details: Record<string, unknown>) {
    if (execution.status !== 'RUNNING') return;
    execution.status = status;
    execution.stopDate = new Date();
    execution.history.add(event, details);
  }
}
