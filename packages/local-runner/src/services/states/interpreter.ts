// The Amazon States Language interpreter (https://states-language.net/spec.html; "State machine structure in Amazon
// States Language", Step Functions Developer Guide): an execution runs from StartAt, state by state, each of the eight
// types (Pass, Task, Choice, Wait, Succeed, Fail, Parallel, Map) in JSONPath or JSONata, its variables kept by Assign,
// its errors retried and caught by Retry and Catch as AWS backs off, its history recorded and each state said in the
// log. Tasks run through `Run.runTask` (tasks.ts); waits are skipped when the runner is asked to (--skip-waits).
import { parallelState } from './branch-states.ts';
import { ExecutionStopped, runtimeError, StatesError } from './errors.ts';
import { choiceState, failState, passState, succeedState, waitState } from './flow-states.ts';
import { mapState } from './map-state.ts';
import { retried, withRetryAndCatch } from './retry.ts';
import type { Definition, Outcome, Run, Scope, StateRun } from './run.ts';
import { taskState } from './task-state.ts';

const handlers: Record<string, (sr: StateRun) => Promise<Outcome>> = {
  Pass: passState,
  Choice: choiceState,
  Wait: waitState,
  Succeed: succeedState,
  Fail: failState,
  Task: (sr) => withRetryAndCatch(sr, () => taskState(sr)),
  Parallel: (sr) => withRetryAndCatch(sr, () => parallelState(sr, runStates)),
  Map: (sr) => withRetryAndCatch(sr, () => mapState(sr, runStates)),
};

/** The state `name` of `definition` run on `input`. */
const runState = async (name: string, state: Record<string, unknown>, input: unknown, run: Run, scope: Scope) => {
  const type = String(state.Type);
  const handler = handlers[type];
  if (!handler) throw runtimeError(`the state ${name} has the type ${type}, which is not a state type`);
  const context = {
    ...run.context,
    State: { EnteredTime: new Date().toISOString(), Name: name, RetryCount: 0 },
    ...(scope.mapItem && { Map: { Item: scope.mapItem } }),
  };
  const language =
    state.QueryLanguage === 'JSONata' || state.QueryLanguage === 'JSONPath' ? state.QueryLanguage : scope.language;
  run.history.entered(type, name, input);
  const outcome = await handler({ name, type, state, input, run, scope, language, context });
  if (type !== 'Fail') run.history.exited(type, name, outcome.output);
  if (!outcome.caught)
    run.say(
      `${scope.path}${name} (${type}) ${retried(context) ? 'succeeded after retries' : 'succeeded'}${outcome.next ? ` -> ${outcome.next}` : ''}`,
    );
  return outcome;
};

/** `definition` (a state machine, a Parallel branch, a Map's processor) run from its StartAt on `input`. */
export const runStates = async (definition: Definition, input: unknown, run: Run, scope: Scope): Promise<unknown> => {
  let name: string | undefined = definition.StartAt;
  let value = input;
  while (name !== undefined) {
    if (run.signal.aborted) throw new ExecutionStopped();
    const state = definition.States[name];
    if (!state) throw runtimeError(`the state ${name} is not in the definition`);
    try {
      const outcome = await runState(name, state, value, run, scope);
      value = outcome.output;
      name = outcome.next;
    } catch (error) {
      if (error instanceof StatesError)
        run.say(`${scope.path}${name} (${String(state.Type)}) failed: ${error.error}: ${error.cause}`);
      throw error;
    }
  }
  return value;
};
