// The states that call nothing: Pass, Choice, Wait, Succeed and Fail ("Pass", "Choice", "Wait", "Succeed", "Fail"
// workflow states, Step Functions Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/workflow-states.html),
// in JSONPath (InputPath, Parameters or Result, ResultPath, OutputPath) and JSONata (Output, Condition, Assign).
import { holds } from './choice-rules.ts';
import { evaluatedFields, filled, filtered, pathValue, withResult } from './data-flow.ts';
import { runtimeError, StatesError } from './errors.ts';
import { nextOf, type Outcome, pause, type StateRun } from './run.ts';

/** JSONata: the state's Assign and Output, both evaluated before either applies; Output by default `fallback`. */
export const jsonataEnd = async (sr: StateRun, extra: { result?: unknown }, fallback: unknown, rule = sr.state) => {
  const states = { input: sr.input, context: sr.context, ...extra };
  const { variables } = sr.scope;
  const assigned =
    rule.Assign === undefined ? undefined : await evaluatedFields(rule.Assign, states, variables, 'Assign');
  const output = rule.Output === undefined ? fallback : await evaluatedFields(rule.Output, states, variables, 'Output');
  if (assigned) Object.assign(variables, assigned);
  return output;
};

/** JSONPath: Assign (reading `assignFrom` as `$`) then ResultPath and OutputPath around `result`. */
export const jsonPathEnd = (sr: StateRun, result: unknown, assignFrom: unknown) => {
  const { state, scope, context } = sr;
  const assigned =
    state.Assign === undefined
      ? undefined
      : filled(state.Assign, { value: assignFrom, context, variables: scope.variables });
  const output = filtered(withResult(sr.input, result, state.ResultPath), state.OutputPath, 'OutputPath');
  if (assigned) Object.assign(scope.variables, assigned);
  return output;
};

/** The state's effective input in JSONPath: InputPath, then `template` (Parameters) filled. */
export const effectiveInput = (sr: StateRun, template: unknown) => {
  const selected = filtered(sr.input, sr.state.InputPath, 'InputPath');
  return template === undefined
    ? selected
    : filled(template, { value: selected, context: sr.context, variables: sr.scope.variables });
};

export const passState = async (sr: StateRun): Promise<Outcome> => {
  const next = nextOf(sr.state);
  if (sr.language === 'JSONata') return { output: await jsonataEnd(sr, {}, sr.input), next };
  const result = 'Result' in sr.state ? sr.state.Result : effectiveInput(sr, sr.state.Parameters);
  return { output: jsonPathEnd(sr, result, result), next };
};

export const succeedState = async (sr: StateRun): Promise<Outcome> => {
  if (sr.language === 'JSONata') return { output: await jsonataEnd(sr, {}, sr.input) };
  return { output: filtered(filtered(sr.input, sr.state.InputPath, 'InputPath'), sr.state.OutputPath, 'OutputPath') };
};

const textField = async (sr: StateRun, field: string) => {
  const { state } = sr;
  if (sr.language === 'JSONata') {
    const value =
      state[field] === undefined
        ? undefined
        : await evaluatedFields(state[field], { input: sr.input, context: sr.context }, sr.scope.variables, field);
    return value === undefined ? undefined : String(value);
  }
  const path = state[`${field}Path`];
  if (typeof path === 'string')
    return String(
      pathValue(path, { value: sr.input, context: sr.context, variables: sr.scope.variables }, `${field}Path`),
    );
  return state[field] === undefined ? undefined : String(state[field]);
};

export const failState = async (sr: StateRun): Promise<Outcome> => {
  const error = (await textField(sr, 'Error')) ?? 'States.Fail';
  const cause = (await textField(sr, 'Cause')) ?? '';
  throw new StatesError(error, cause);
};

/** The seconds a Wait state waits: Seconds, SecondsPath, Timestamp or TimestampPath (or their JSONata). */
const waitMs = async (sr: StateRun, input: unknown) => {
  const { state } = sr;
  let seconds: unknown;
  let timestamp: unknown;
  if (sr.language === 'JSONata') {
    const states = { input: sr.input, context: sr.context };
    if (state.Seconds !== undefined)
      seconds = await evaluatedFields(state.Seconds, states, sr.scope.variables, 'Seconds');
    if (state.Timestamp !== undefined)
      timestamp = await evaluatedFields(state.Timestamp, states, sr.scope.variables, 'Timestamp');
  } else {
    const scope = { value: input, context: sr.context, variables: sr.scope.variables };
    seconds =
      typeof state.SecondsPath === 'string' ? pathValue(state.SecondsPath, scope, 'SecondsPath') : state.Seconds;
    timestamp =
      typeof state.TimestampPath === 'string'
        ? pathValue(state.TimestampPath, scope, 'TimestampPath')
        : state.Timestamp;
  }
  if (typeof seconds === 'number' && seconds >= 0) return seconds * 1000;
  if (typeof timestamp === 'string' && !Number.isNaN(Date.parse(timestamp))) return Date.parse(timestamp) - Date.now();
  throw runtimeError(`the Wait state ${sr.name} has no valid Seconds or Timestamp`);
};

export const waitState = async (sr: StateRun): Promise<Outcome> => {
  const next = nextOf(sr.state);
  const input = sr.language === 'JSONata' ? sr.input : filtered(sr.input, sr.state.InputPath, 'InputPath');
  const ms = await waitMs(sr, input);
  if (sr.run.skipWaits && ms > 0)
    sr.run.say(`${sr.scope.path}${sr.name} (Wait) would wait ${Math.round(ms / 1000)} s: waits are skipped`);
  await pause(ms, sr.run);
  if (sr.language === 'JSONata') return { output: await jsonataEnd(sr, {}, sr.input), next };
  return { output: jsonPathEnd(sr, input, input), next };
};

/** The first Choice rule that holds (JSONPath rules or JSONata Conditions), else Default; none is States.NoChoiceMatched. */
export const choiceState = async (sr: StateRun): Promise<Outcome> => {
  const { state } = sr;
  const rules = (Array.isArray(state.Choices) ? state.Choices : []) as Record<string, unknown>[];
  const input = sr.language === 'JSONata' ? sr.input : filtered(sr.input, state.InputPath, 'InputPath');
  const scope = { value: input, context: sr.context, variables: sr.scope.variables };
  let chosen: Record<string, unknown> | undefined;
  for (const rule of rules) {
    const holding =
      sr.language === 'JSONata'
        ? (await evaluatedFields(
            rule.Condition,
            { input: sr.input, context: sr.context },
            sr.scope.variables,
            'Condition',
          )) === true
        : holds(rule, scope);
    if (holding) {
      chosen = rule;
      break;
    }
  }
  const next = chosen ? String(chosen.Next) : typeof state.Default === 'string' ? state.Default : undefined;
  if (next === undefined)
    throw new StatesError(
      'States.NoChoiceMatched',
      `No Choice rule matched and there is no Default in the state ${sr.name}`,
    );
  if (sr.language === 'JSONata') {
    // A rule's own Assign and Output come before the state's ("Choice workflow state").
    const output = await jsonataEnd(sr, {}, sr.input, {
      ...state,
      ...(chosen?.Assign !== undefined && { Assign: chosen.Assign }),
      ...(chosen?.Output !== undefined && { Output: chosen.Output }),
    });
    return { output, next };
  }
  const assign = chosen?.Assign ?? state.Assign;
  const assigned = assign === undefined ? undefined : filled(assign, scope);
  if (assigned) Object.assign(sr.scope.variables, assigned);
  return { output: filtered(input, state.OutputPath, 'OutputPath'), next };
};
