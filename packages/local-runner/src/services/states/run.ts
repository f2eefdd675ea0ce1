// What the interpreter's parts share: an execution as it runs (Run), where a state runs (Scope), one state's run
// (StateRun) and what it ends with (Outcome), a Task's call (TaskCall).
import type { Variables } from './data-flow.ts';
import { ExecutionStopped } from './errors.ts';
import type { History } from './history.ts';

export type Definition = Record<string, unknown> & { StartAt: string; States: Record<string, Record<string, unknown>> };

/** A Task's call, as the tasks module runs it. */
export interface TaskCall {
  resource: string;
  args: unknown;
  state: string;
  /** The token a `.waitForTaskToken` task waits for (`$$.Task.Token`). */
  token?: string;
  heartbeatMs?: number;
  signal: AbortSignal;
  /** Said when a callback or `.sync` task has been started and now waits (TaskSubmitted). */
  submitted: (output: unknown) => void;
  /** Said when a worker takes an activity's task (ActivityStarted), with the worker's name. */
  started?: (workerName: string) => void;
}

/** A Distributed Map's run, as DescribeMapRun and ListMapRuns describe it (counts of items and of children). */
export interface MapRunReport {
  mapRunArn: string;
  executionArn: string;
  stateMachineArn: string;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  startDate: Date;
  stopDate?: Date;
  maxConcurrency: number;
  toleratedFailureCount: number;
  toleratedFailurePercentage: number;
  written: boolean;
  items: { total: number; succeeded: number; failed: number };
  executions: { total: number; succeeded: number; failed: number };
}

/** One execution as it runs: its context object, history, log, and how its tasks and waits are made. */
export interface Run {
  context: { Execution: Record<string, unknown>; StateMachine: Record<string, unknown> };
  history: History;
  signal: AbortSignal;
  /** Says one line of the execution's log (prefixed with the machine and execution). */
  say: (line: string) => void;
  skipWaits: boolean;
  runTask: (call: TaskCall) => Promise<unknown>;
  /** A new task token for `.waitForTaskToken`. */
  newToken: () => string;
  /** Where its Distributed Maps' runs are told, by ARN. */
  mapRuns?: Map<string, MapRunReport>;
}

/** Where a state runs: its query language by default, its variables, its place in branches (for the log). */
export interface Scope {
  language: 'JSONPath' | 'JSONata';
  variables: Variables;
  path: string;
  mapItem?: { Index: number; Value: unknown };
}

export interface Outcome {
  output: unknown;
  next?: string;
  /** The state failed and its Catch chose `next` (said as such: not "succeeded"). */
  caught?: boolean;
}

/** A pause of `ms`, none when waits are skipped; rejects with ExecutionStopped when the execution stops. */
export const pause = (ms: number, run: Run) =>
  new Promise<void>((resolve, reject) => {
    if (run.signal.aborted) return reject(new ExecutionStopped());
    if (run.skipWaits || ms <= 0) return resolve();
    const stop = () => {
      clearTimeout(timer);
      reject(new ExecutionStopped());
    };
    const timer = setTimeout(() => {
      run.signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    run.signal.addEventListener('abort', stop, { once: true });
  });

/** One state as it runs: its name, type, definition, input, execution, scope, query language and context object. */
export interface StateRun {
  name: string;
  type: string;
  state: Record<string, unknown>;
  input: unknown;
  run: Run;
  scope: Scope;
  language: 'JSONPath' | 'JSONata';
  context: Record<string, unknown> & { State: { EnteredTime: string; Name: string; RetryCount: number } };
}

/** A state's `Next`, or none when it ends its branch (`End: true`). */
export const nextOf = (state: Record<string, unknown>) => (typeof state.Next === 'string' ? state.Next : undefined);
