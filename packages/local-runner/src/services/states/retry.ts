// Retry and Catch of Task, Parallel and Map states ("Handling errors in Step Functions workflows", Step Functions
// Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html): the first
// retrier whose ErrorEquals names the error retries it up to MaxAttempts (3) times, waiting IntervalSeconds (1) times
// BackoffRate (2.0) to the power of its retries so far, at most MaxDelaySeconds, a random part of that with
// JitterStrategy FULL; then the first catcher naming it moves to its Next with the error output
// (`{"Error", "Cause"}`) put by its ResultPath (JSONPath) or made by its Output (JSONata), its Assign applied.
// States.ALL names every error but States.Runtime and States.DataLimitExceeded; States.TaskFailed every one but
// those and States.Timeout ("Error names", same page).
import { evaluatedFields, filled, withResult } from './data-flow.ts';
import { StatesError } from './errors.ts';
import { type Outcome, pause, type StateRun } from './run.ts';

type Handler = Record<string, unknown>;

const terminal = new Set(['States.Runtime', 'States.DataLimitExceeded']);

/** Whether `names` (a retrier's or catcher's ErrorEquals) takes `error`. */
export const takes = (names: unknown, error: string) => {
  const listed = Array.isArray(names) ? names : [];
  if (listed.includes(error)) return true;
  if (terminal.has(error)) return false;
  if (listed.includes('States.ALL')) return true;
  return listed.includes('States.TaskFailed') && error !== 'States.Timeout';
};

const numberOr = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

/** The wait before retry `count` (from 0) of `retrier`, in milliseconds. */
export const retryDelayMs = (retrier: Handler, count: number, random = Math.random) => {
  const interval = numberOr(retrier.IntervalSeconds, 1);
  const rate = numberOr(retrier.BackoffRate, 2);
  const ceiling =
    retrier.MaxDelaySeconds === undefined ? Number.POSITIVE_INFINITY : numberOr(retrier.MaxDelaySeconds, 0);
  const seconds = Math.min(interval * rate ** count, ceiling);
  return (retrier.JitterStrategy === 'FULL' ? random() * seconds : seconds) * 1000;
};

/** Whether the state was retried (its context's RetryCount). */
export const retried = (context: StateRun['context']) => context.State.RetryCount > 0;

const caught = async (sr: StateRun, catcher: Handler, failure: StatesError): Promise<Outcome> => {
  const errorOutput = { Error: failure.error, Cause: failure.cause };
  const { input, context, scope } = sr;
  let output: unknown;
  let assigned: unknown;
  if (sr.language === 'JSONata') {
    const states = { input, context, errorOutput };
    assigned = catcher.Assign && (await evaluatedFields(catcher.Assign, states, scope.variables, 'Assign'));
    output =
      catcher.Output === undefined
        ? errorOutput
        : await evaluatedFields(catcher.Output, states, scope.variables, 'Output');
  } else {
    assigned = catcher.Assign && filled(catcher.Assign, { value: errorOutput, context, variables: scope.variables });
    output = withResult(input, errorOutput, catcher.ResultPath);
  }
  if (assigned) Object.assign(scope.variables, assigned);
  sr.run.say(`${scope.path}${sr.name} (${sr.type}) failed: ${failure.error}: caught -> ${String(catcher.Next)}`);
  return { output, next: String(catcher.Next), caught: true };
};

/** `attempt` run, again as the state's Retry says, its last error caught as its Catch says. */
export const withRetryAndCatch = async (sr: StateRun, attempt: () => Promise<Outcome>): Promise<Outcome> => {
  const retriers = (Array.isArray(sr.state.Retry) ? sr.state.Retry : []) as Handler[];
  const counts = retriers.map(() => 0);
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StatesError)) throw error;
      const index = retriers.findIndex((retrier) => takes(retrier.ErrorEquals, error.error));
      const retrier = retriers[index];
      const count = counts[index] ?? 0;
      if (retrier && count < numberOr(retrier.MaxAttempts, 3)) {
        const delay = retryDelayMs(retrier, count);
        counts[index] = count + 1;
        sr.context.State.RetryCount += 1;
        sr.run.say(
          `${sr.scope.path}${sr.name} (${sr.type}) failed: ${error.error}: retry ${count + 1} of ${numberOr(retrier.MaxAttempts, 3)} in ${delay / 1000} s${sr.run.skipWaits ? ' (waits skipped: now)' : ''}`,
        );
        await pause(delay, sr.run);
        continue;
      }
      const catcher = ((Array.isArray(sr.state.Catch) ? sr.state.Catch : []) as Handler[]).find((c) =>
        takes(c.ErrorEquals, error.error),
      );
      if (catcher) return caught(sr, catcher, error);
      throw error;
    }
  }
};
