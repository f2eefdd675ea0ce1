// Parallel ("Parallel workflow state", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/state-parallel.html): each branch run by its own states on a
// copy of the variables; the first failure stops the others and fails the state with that error. What Parallel and
// Map share (map-state.ts): a branch's run, the state's end.
import { evaluatedFields, filled } from './data-flow.ts';
import { ExecutionStopped, StatesError } from './errors.ts';
import { effectiveInput, jsonataEnd, jsonPathEnd } from './flow-states.ts';
import { type Definition, nextOf, type Outcome, type Run, type Scope, type StateRun } from './run.ts';

export type RunStates = (definition: Definition, input: unknown, run: Run, scope: Scope) => Promise<unknown>;

/** A run whose signal also stops when `controller` aborts (a sibling branch failed). */
export const childRun = (run: Run, controller: AbortController): Run => ({
  ...run,
  signal: AbortSignal.any([run.signal, controller.signal]),
});

/** The state's result: ResultSelector, ResultPath, OutputPath (JSONPath) or Output (JSONata). */
export const finished = async (sr: StateRun, result: unknown): Promise<Outcome> => {
  const next = nextOf(sr.state);
  if (sr.language === 'JSONata') return { output: await jsonataEnd(sr, { result }, result), next };
  const selected =
    sr.state.ResultSelector === undefined
      ? result
      : filled(sr.state.ResultSelector, { value: result, context: sr.context, variables: sr.scope.variables });
  return { output: jsonPathEnd(sr, selected, selected), next };
};

const branchInput = async (sr: StateRun) =>
  sr.language === 'JSONata'
    ? sr.state.Arguments === undefined
      ? sr.input
      : evaluatedFields(sr.state.Arguments, { input: sr.input, context: sr.context }, sr.scope.variables, 'Arguments')
    : effectiveInput(sr, sr.state.Parameters);

export const parallelState = async (sr: StateRun, runStates: RunStates): Promise<Outcome> => {
  const branches = (Array.isArray(sr.state.Branches) ? sr.state.Branches : []) as Definition[];
  const input = await branchInput(sr);
  const controller = new AbortController();
  const run = childRun(sr.run, controller);
  sr.run.history.add('ParallelStateStarted');
  try {
    const results = await Promise.all(
      branches.map((branch, index) =>
        runStates(branch, input, run, {
          ...sr.scope,
          variables: { ...sr.scope.variables },
          path: `${sr.scope.path}${sr.name}[${index}]/`,
        }).catch((error: unknown) => {
          if (!(error instanceof ExecutionStopped)) controller.abort();
          throw error;
        }),
      ),
    );
    sr.run.history.add('ParallelStateSucceeded');
    return await finished(sr, results);
  } catch (error) {
    if (error instanceof StatesError) sr.run.history.add('ParallelStateFailed');
    throw error;
  }
};
