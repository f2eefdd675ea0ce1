// Parallel and Map ("Parallel workflow state", "Map workflow state", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/state-parallel.html, .../state-map.html): each branch, or each
// item (ItemsPath or JSONata Items; ItemSelector, or the older Parameters, with `$$.Map.Item.Index` and `.Value`), run
// by its own states (Branches; ItemProcessor, or the older Iterator) on a copy of the variables, at most MaxConcurrency
// at once; the first failure stops the others and fails the state with that error, unless a Map's
// ToleratedFailureCount/Percentage allows it (more fails it with States.ExceedToleratedFailureThreshold). A
// distributed Map runs as an inline one over the items its input gives (docs/step-functions.md).
import { evaluatedFields, filled, filtered, pathValue } from './data-flow.ts';
import { ExecutionStopped, runtimeError, StatesError } from './errors.ts';
import { effectiveInput, jsonataEnd, jsonPathEnd } from './flow-states.ts';
import { type Definition, nextOf, type Outcome, type Run, type Scope, type StateRun } from './run.ts';

type RunStates = (definition: Definition, input: unknown, run: Run, scope: Scope) => Promise<unknown>;

/** A run whose signal also stops when `controller` aborts (a sibling branch failed). */
const childRun = (run: Run, controller: AbortController): Run => ({
  ...run,
  signal: AbortSignal.any([run.signal, controller.signal]),
});

/** The state's result: ResultSelector, ResultPath, OutputPath (JSONPath) or Output (JSONata). */
const finished = async (sr: StateRun, result: unknown): Promise<Outcome> => {
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

/** The Map's items: ItemsPath of its effective input (JSONPath) or Items (JSONata); a list, else States.Runtime. */
const itemsOf = async (sr: StateRun) => {
  const { state } = sr;
  let items: unknown;
  if (sr.language === 'JSONata')
    items =
      state.Items === undefined
        ? sr.input
        : await evaluatedFields(state.Items, { input: sr.input, context: sr.context }, sr.scope.variables, 'Items');
  else {
    const input = filtered(sr.input, state.InputPath, 'InputPath');
    items =
      typeof state.ItemsPath === 'string'
        ? pathValue(state.ItemsPath, { value: input, context: sr.context, variables: sr.scope.variables }, 'ItemsPath')
        : input;
  }
  if (!Array.isArray(items)) throw runtimeError(`the Map state ${sr.name}'s items are not an array`);
  return items;
};

/** One item's input: ItemSelector (or Parameters) with `$$.Map.Item`, else the item. */
const itemInput = async (sr: StateRun, item: unknown, index: number) => {
  const selector = sr.state.ItemSelector ?? (sr.language === 'JSONPath' ? sr.state.Parameters : undefined);
  if (selector === undefined) return item;
  const context = { ...sr.context, Map: { Item: { Index: index, Value: item } } };
  if (sr.language === 'JSONata')
    return evaluatedFields(selector, { input: sr.input, context }, sr.scope.variables, 'ItemSelector');
  const input = filtered(sr.input, sr.state.InputPath, 'InputPath');
  return filled(selector, { value: input, context, variables: sr.scope.variables });
};

/** How many failed items the Map tolerates. */
const toleratedOf = (state: Record<string, unknown>, total: number) => {
  const count = typeof state.ToleratedFailureCount === 'number' ? state.ToleratedFailureCount : 0;
  const percentage = typeof state.ToleratedFailurePercentage === 'number' ? state.ToleratedFailurePercentage : 0;
  return Math.max(count, Math.floor((percentage / 100) * total));
};

export const mapState = async (sr: StateRun, runStates: RunStates): Promise<Outcome> => {
  const items = await itemsOf(sr);
  const processor = (sr.state.ItemProcessor ?? sr.state.Iterator) as Definition;
  const limit =
    typeof sr.state.MaxConcurrency === 'number' && sr.state.MaxConcurrency > 0 ? sr.state.MaxConcurrency : items.length;
  const tolerated = toleratedOf(sr.state, items.length);
  const controller = new AbortController();
  const run = childRun(sr.run, controller);
  const results: unknown[] = new Array(items.length);
  let failed = 0;
  let next = 0;
  sr.run.history.add('MapStateStarted', { length: items.length });
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const event = { name: sr.name, index };
      sr.run.history.add('MapIterationStarted', event);
      try {
        const input = await itemInput(sr, items[index], index);
        const scope = {
          ...sr.scope,
          variables: { ...sr.scope.variables },
          path: `${sr.scope.path}${sr.name}[${index}]/`,
          mapItem: { Index: index, Value: items[index] },
        };
        results[index] = await runStates(processor, input, run, scope);
        sr.run.history.add('MapIterationSucceeded', event);
      } catch (error) {
        if (!(error instanceof StatesError)) throw error;
        sr.run.history.add('MapIterationFailed', event);
        failed += 1;
        results[index] = { Error: error.error, Cause: error.cause };
        if (tolerated === 0) throw error;
        if (failed > tolerated)
          throw new StatesError(
            'States.ExceedToleratedFailureThreshold',
            `${failed} of ${items.length} items failed, over the tolerated ${tolerated}`,
          );
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker)).catch(
      (error: unknown) => {
        controller.abort();
        throw error;
      },
    );
  } catch (error) {
    if (error instanceof StatesError) sr.run.history.add('MapStateFailed');
    throw error;
  }
  sr.run.history.add('MapStateSucceeded');
  return finished(sr, results);
};
