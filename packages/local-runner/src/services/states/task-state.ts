// A Task state ("Task workflow state", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/state-task.html): its arguments (JSONPath InputPath and
// Parameters; JSONata Arguments), the call of its Resource through Run.runTask, its TimeoutSeconds (States.Timeout;
// none by default) and HeartbeatSeconds, its result (ResultSelector, ResultPath, OutputPath; JSONata Output) and
// Assign. Its history: a function's ARN as LambdaFunctionScheduled/Started/Succeeded/Failed/TimedOut, an activity's
// as ActivityScheduled/Started (when a worker takes it)/Succeeded/Failed/TimedOut, any other resource as TaskScheduled/Started/Submitted/Succeeded/Failed/TimedOut with its resourceType and resource
// (`arn:aws:states:::lambda:invoke` is type `lambda`, resource `invoke`).
import { localAws } from '../../app/local-aws.ts';
import { evaluatedFields, filled, pathValue } from './data-flow.ts';
import { StatesError } from './errors.ts';
import { effectiveInput, jsonataEnd, jsonPathEnd } from './flow-states.ts';
import { shownData } from './history.ts';
import { nextOf, type Outcome, type StateRun } from './run.ts';
import { activityArnPattern } from './tasks.ts';

type Kind = 'LambdaFunction' | 'Activity' | 'Task';

/**
 * How a Resource is named in the history: `arn:aws:states:::sqs:sendMessage` -> Task events, type `sqs`, resource
 * `sendMessage`; a function's ARN -> LambdaFunction events; an activity's ARN -> Activity events, the ARN.
 */
const resourceParts = (resource: string): { kind: Kind; named: Record<string, string> } => {
  const integration = /^arn:[^:]+:states:::(aws-sdk:[^:]+|[^:]+):(.+)$/.exec(resource);
  if (integration)
    return { kind: 'Task', named: { resourceType: integration[1] as string, resource: integration[2] as string } };
  return { kind: activityArnPattern.test(resource) ? 'Activity' : 'LambdaFunction', named: { resource } };
};

/** A number of seconds given as a value, a path (`...Path`) or JSONata. */
const secondsOf = async (sr: StateRun, field: string) => {
  const { state } = sr;
  const path = state[`${field}Path`];
  let value: unknown = state[field];
  if (typeof path === 'string')
    value = pathValue(path, { value: sr.input, context: sr.context, variables: sr.scope.variables }, `${field}Path`);
  else if (sr.language === 'JSONata' && typeof value === 'string')
    value = await evaluatedFields(value, { input: sr.input, context: sr.context }, sr.scope.variables, field);
  return typeof value === 'number' && value > 0 ? value : undefined;
};

/** `call` raced with the state's TimeoutSeconds: States.Timeout when it passes first. */
const timed = <T>(call: Promise<T>, seconds: number | undefined, name: string) => {
  if (seconds === undefined) return call;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StatesError('States.Timeout', `The task ${name} did not finish within ${seconds} seconds`)),
      seconds * 1000,
    );
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
};

const argumentsOf = async (sr: StateRun) => {
  if (sr.language === 'JSONata')
    return sr.state.Arguments === undefined
      ? sr.input
      : evaluatedFields(sr.state.Arguments, { input: sr.input, context: sr.context }, sr.scope.variables, 'Arguments');
  return effectiveInput(sr, sr.state.Parameters);
};

/** The task's call, its events recorded around it. */
const called = async (sr: StateRun, args: unknown, token: string | undefined) => {
  const { run, name } = sr;
  const resourceArn = String(sr.state.Resource);
  const parts = resourceParts(resourceArn);
  const timeout = await secondsOf(sr, 'TimeoutSeconds');
  const heartbeat = await secondsOf(sr, 'HeartbeatSeconds');
  const seconds = {
    ...(timeout !== undefined && { timeoutInSeconds: timeout }),
    ...(heartbeat !== undefined && { heartbeatInSeconds: heartbeat }),
  };
  const { kind, named } = parts;
  if (kind === 'Task')
    run.history.add('TaskScheduled', { ...named, region: localAws.region, parameters: shownData(args), ...seconds });
  else run.history.add(`${kind}Scheduled`, { ...named, input: shownData(args), ...seconds });
  // A function's and a task's start is their call's; an activity's, when a worker takes it (GetActivityTask).
  if (kind !== 'Activity') run.history.add(`${kind}Started`, kind === 'Task' ? named : undefined);
  const ended = kind === 'Task' ? named : {};
  // A call given up (timed out, or its state stopped) stops waiting: a callback's token is then no longer taken.
  const abandoned = new AbortController();
  try {
    const result = await timed(
      run.runTask({
        resource: resourceArn,
        args,
        state: name,
        ...(token !== undefined && { token }),
        ...(heartbeat !== undefined && { heartbeatMs: heartbeat * 1000 }),
        signal: AbortSignal.any([run.signal, abandoned.signal]),
        submitted: (output) => run.history.add('TaskSubmitted', { ...named, output: shownData(output) }),
        started: (workerName) => run.history.add('ActivityStarted', { workerName }),
      }),
      timeout,
      name,
    );
    run.history.add(`${kind}Succeeded`, { ...ended, output: shownData(result) });
    return result;
  } catch (error) {
    abandoned.abort();
    if (error instanceof StatesError) {
      const timedOut = error.error === 'States.Timeout' || error.error === 'States.HeartbeatTimeout';
      run.history.add(`${kind}${timedOut ? 'TimedOut' : 'Failed'}`, {
        ...ended,
        error: error.error,
        cause: error.cause,
      });
    }
    throw error;
  }
};

export const taskState = async (sr: StateRun): Promise<Outcome> => {
  const token = String(sr.state.Resource).endsWith('.waitForTaskToken') ? sr.run.newToken() : undefined;
  if (token !== undefined) Object.assign(sr.context, { Task: { Token: token } });
  const args = await argumentsOf(sr);
  const result = await called(sr, args, token);
  const next = nextOf(sr.state);
  if (sr.language === 'JSONata') return { output: await jsonataEnd(sr, { result }, result), next };
  const selected =
    sr.state.ResultSelector === undefined
      ? result
      : filled(sr.state.ResultSelector, { value: result, context: sr.context, variables: sr.scope.variables });
  return { output: jsonPathEnd(sr, selected, selected), next };
};
