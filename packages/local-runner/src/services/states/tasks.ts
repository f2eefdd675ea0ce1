// What a Task's Resource calls ("Integrating services with Step Functions", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/integrate-services.html): a function by its ARN, or
// `arn:aws:states:::lambda:invoke` (the runner's Invoker); the optimized integrations of the services the runner
// serves (SQS sendMessage, SNS publish, EventBridge putEvents, DynamoDB getItem/putItem/updateItem/deleteItem, Step
// Functions startExecution with `.sync` and `.sync:2`), and `arn:aws:states:::aws-sdk:<service>:<action>` for the
// served services, S3's (s3-calls.ts), Kinesis's and SNS's among them, each over the service's local endpoint (wire-calls.ts);
// `.waitForTaskToken` on any of them but `.sync`; an activity of the template by its ARN (activities.ts: a worker
// takes the task with GetActivityTask and ends it with SendTaskSuccess or SendTaskFailure). Any other resource is
// refused at start (taskRefusal), naming the state and the resource.
import { randomUUID } from 'node:crypto';
import { type Invoker, TargetError } from '../targets.ts';
import type { Activities } from './activities.ts';
import { StatesError } from './errors.ts';
import type { TaskCall } from './run.ts';
import { s3Actions, s3Call } from './s3-calls.ts';
import type { TaskTokens } from './task-tokens.ts';
import { type WireEndpoints, WireError, type WireService, wireCall } from './wire-calls.ts';

/** An execution started by a task, once it has ended: its DescribeExecution answer. */
type FinishedExecution = Record<string, unknown> & { status: string };

export interface TaskServices {
  invoke: () => Invoker | undefined;
  endpoints: () => WireEndpoints;
  tokens: TaskTokens;
  activities: Activities;
  /** The end of an execution of this service (`states:startExecution.sync`). */
  finished: (executionArn: string) => Promise<FinishedExecution>;
}

interface Integration {
  kind: 'optimized' | 'sdk';
  service: string;
  action: string;
  pattern: string;
}
type Parsed = { kind: 'function'; arn: string } | { kind: 'activity'; arn: string } | Integration;

const functionArn = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:[^:]+(:[^:]+)?$/;
export const activityArnPattern = /^arn:[^:]+:states:[^:]*:[^:]*:activity:[^:]+$/;

const parsed = (resource: string): Parsed | undefined => {
  if (functionArn.test(resource)) return { kind: 'function', arn: resource };
  if (activityArnPattern.test(resource)) return { kind: 'activity', arn: resource };
  const found = /^arn:[^:]+:states:::(aws-sdk:)?([a-z0-9-]+):([A-Za-z0-9]+)(?:\.(sync(?::2)?|waitForTaskToken))?$/.exec(
    resource,
  );
  if (!found) return undefined;
  return {
    kind: found[1] ? 'sdk' : 'optimized',
    service: found[2] as string,
    action: found[3] as string,
    pattern: found[4] ?? '',
  };
};

/** The optimized integrations served, each with its patterns ('' request-response). */
const optimized: Record<string, string[]> = {
  'lambda:invoke': ['', 'waitForTaskToken'],
  'sqs:sendMessage': ['', 'waitForTaskToken'],
  'sns:publish': ['', 'waitForTaskToken'],
  'events:putEvents': ['', 'waitForTaskToken'],
  'dynamodb:getItem': [''],
  'dynamodb:putItem': [''],
  'dynamodb:updateItem': [''],
  'dynamodb:deleteItem': [''],
  'states:startExecution': ['', 'sync', 'sync:2', 'waitForTaskToken'],
};

/** The actions of the local SNS (sns.ts) and the local Kinesis (kinesis.ts), as a Task's resource names them. */
const snsActions = [
  'createTopic',
  'deleteTopic',
  'listTopics',
  'getTopicAttributes',
  'setTopicAttributes',
  'subscribe',
  'confirmSubscription',
  'unsubscribe',
  'listSubscriptions',
  'listSubscriptionsByTopic',
  'getSubscriptionAttributes',
  'setSubscriptionAttributes',
  'publish',
  'publishBatch',
];
const kinesisActions = [
  'createStream',
  'deleteStream',
  'describeStream',
  'describeStreamSummary',
  'listStreams',
  'listShards',
  'putRecord',
  'putRecords',
  'getShardIterator',
  'getRecords',
];

/** The AWS SDK integrations' services served: their local service and their errors' prefix. */
const sdkServices: Record<string, { wire?: WireService | 's3'; prefix: string; actions?: string[] }> = {
  sqs: { wire: 'sqs', prefix: 'Sqs' },
  sns: { wire: 'sns', prefix: 'Sns', actions: snsActions },
  kinesis: { wire: 'kinesis', prefix: 'Kinesis', actions: kinesisActions },
  eventbridge: { wire: 'events', prefix: 'EventBridge' },
  dynamodb: { wire: 'dynamodb', prefix: 'DynamoDb' },
  sfn: { wire: 'states', prefix: 'Sfn' },
  ssm: { wire: 'ssm', prefix: 'Ssm' },
  secretsmanager: { wire: 'secretsmanager', prefix: 'SecretsManager' },
  lambda: { prefix: 'Lambda', actions: ['invoke'] },
  s3: { wire: 's3', prefix: 'S3', actions: s3Actions.map((action) => `${action[0]?.toLowerCase()}${action.slice(1)}`) },
};

const sdkPrefixes = new Set(Object.values(sdkServices).map(({ prefix }) => prefix));

/** Why the runner does not serve `resource` (`activities`: the ARNs of the activities served), or undefined. */
export const taskRefusal = (resource: unknown, activities: (arn: string) => boolean): string | undefined => {
  if (typeof resource !== 'string') return 'it is not a text';
  const found = parsed(resource);
  if (!found) return 'the runner serves no such resource (a service it does not serve)';
  if (found.kind === 'function') return undefined;
  if (found.kind === 'activity')
    return activities(found.arn) ? undefined : 'no AWS::StepFunctions::Activity of the template has that ARN';
  if (found.kind === 'optimized') {
    const patterns = optimized[`${found.service}:${found.action}`];
    if (!patterns) return `the optimized integration ${found.service}:${found.action} is not served locally`;
    return patterns.includes(found.pattern)
      ? undefined
      : `its pattern .${found.pattern} is not served for ${found.service}:${found.action}`;
  }
  const service = sdkServices[found.service];
  if (!service) return `the AWS SDK integration's service ${found.service} is not served locally`;
  if (service.actions && !service.actions.includes(found.action))
    return `${found.service}:${found.action} is not served locally`;
  return found.pattern === '' || found.pattern === 'waitForTaskToken'
    ? undefined
    : `its pattern .${found.pattern} is not served`;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asText = (value: unknown) => (value === undefined || typeof value === 'string' ? value : JSON.stringify(value));
const pascal = (action: string) => `${action[0]?.toUpperCase()}${action.slice(1)}`;

/** A function run with RequestResponse: its result, or its error as Step Functions names it. */
const invoked = async (services: TaskServices, target: string, payload: unknown) => {
  const invoke = services.invoke();
  if (!invoke) throw new StatesError('Lambda.ResourceNotFoundException', `${target}: no function is served`);
  let report: Awaited<ReturnType<Invoker>>;
  try {
    report = await invoke(target, payload ?? {});
  } catch (error) {
    if (error instanceof TargetError) throw new StatesError('Lambda.ResourceNotFoundException', error.message);
    throw error;
  }
  const { invocation } = report;
  if (invocation.outcome === 'result') return invocation.result;
  if (invocation.outcome === 'error')
    throw new StatesError(
      invocation.errorType,
      JSON.stringify({ errorType: invocation.errorType, errorMessage: invocation.message, trace: [] }),
    );
  if (invocation.outcome === 'refused') throw new StatesError(`Lambda.${invocation.errorType}`, invocation.message);
  if (invocation.outcome === 'failure') throw new StatesError('Lambda.Unknown', invocation.reason);
  invocation.body.destroy();
  throw new StatesError(
    'Lambda.Unknown',
    'the function answered with a response stream, which a state machine does not read',
  );
};

/** `arn:aws:states:::lambda:invoke`: Lambda's Invoke output, the function's result as its Payload. */
const lambdaInvoke = async (services: TaskServices, args: unknown) => {
  const input = isObject(args) ? args : {};
  const name = String(input.FunctionName ?? '');
  const qualifier = typeof input.Qualifier === 'string' ? input.Qualifier : undefined;
  const payload = typeof input.Payload === 'string' ? safeJson(input.Payload) : input.Payload;
  const result = await invoked(services, qualifier === undefined ? name : `${name}:${qualifier}`, payload);
  const requestId = randomUUID();
  return {
    ExecutedVersion: qualifier ?? '$LATEST',
    Payload: result,
    SdkHttpMetadata: {
      HttpHeaders: { 'Content-Type': 'application/json', 'x-amzn-RequestId': requestId },
      HttpStatusCode: 200,
    },
    SdkResponseMetadata: { RequestId: requestId },
    StatusCode: 200,
  };
};

const safeJson = (text: string) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** The optimized integrations' input as the service's API takes it (a message body given as JSON made text). */
const serviceInput = (key: string, args: unknown): Record<string, unknown> => {
  const input = isObject(args) ? { ...args } : {};
  if (key === 'sqs:sendMessage') input.MessageBody = asText(input.MessageBody);
  if (key === 'sns:publish') input.Message = asText(input.Message);
  if (key === 'states:startExecution') input.Input = asText(input.Input);
  if (key === 'events:putEvents' && Array.isArray(input.Entries))
    input.Entries = input.Entries.map((entry) =>
      isObject(entry) ? { ...entry, Detail: asText(entry.Detail) } : entry,
    );
  return input;
};

const optimizedPrefixes: Record<string, string> = {
  sqs: 'SQS',
  sns: 'SNS',
  events: 'EventBridge',
  dynamodb: 'DynamoDB',
  states: 'StepFunctions',
};

/** `record`'s keys with their first letter changed by `change` (one level: the API's members). */
const rekeyed = (record: Record<string, unknown>, change: (first: string) => string) =>
  Object.fromEntries(
    Object.entries(record).map(([key, value]) => [`${change(key.slice(0, 1))}${key.slice(1)}`, value]),
  );

/**
 * A wire call whose service error is the task's error, named `<prefix>.<type>`. Step Functions' own API names its
 * members in camel case (`stateMachineArn`); a task writes them, and reads its answer, in Pascal case
 * (`StateMachineArn`, `ExecutionArn`), as for every other service.
 */
const wired = async (
  services: TaskServices,
  service: WireService | 's3',
  action: string,
  input: Record<string, unknown>,
  prefix: string,
) => {
  try {
    if (service === 's3') return await s3Call(services.endpoints().s3, action, input);
    if (service !== 'states') return await wireCall(services.endpoints(), service, action, input);
    const answer = await wireCall(
      services.endpoints(),
      service,
      action,
      rekeyed(input, (c) => c.toLowerCase()),
    );
    return rekeyed(answer, (c) => c.toUpperCase());
  } catch (error) {
    if (error instanceof WireError) throw new StatesError(`${prefix}.${errorName(error.type, prefix)}`, error.message);
    throw error;
  }
};

/**
 * An AWS SDK integration's error: `<Service>.<Error>`, the error ending in `Exception` even where the service's does
 * not ("Learning to use AWS service SDK integrations in Step Functions",
 * https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html); an optimized integration's as
 * the service names it.
 */
const errorName = (type: string, prefix: string) =>
  sdkPrefixes.has(prefix) && !type.endsWith('Exception') ? `${type}Exception` : type;

/** `states:startExecution.sync` (Output as text) or `.sync:2` (Output as JSON): the child's end; a failure fails the task. */
const startedSync = async (services: TaskServices, started: Record<string, unknown>, pattern: string) => {
  const finished = rekeyed(await services.finished(String(started.ExecutionArn)), (c) => c.toUpperCase());
  if (finished.Status !== 'SUCCEEDED') throw new StatesError('States.TaskFailed', JSON.stringify(finished));
  return pattern === 'sync:2' ? { ...finished, Output: safeJson(String(finished.Output)) } : finished;
};

const optimizedCall = async (
  services: TaskServices,
  found: Integration,
  args: unknown,
  submitted: TaskCall['submitted'],
) => {
  const key = `${found.service}:${found.action}`;
  if (key === 'lambda:invoke') return lambdaInvoke(services, args);
  const service = found.service as WireService;
  const output = await wired(
    services,
    service,
    pascal(found.action),
    serviceInput(key, args),
    optimizedPrefixes[found.service] ?? found.service,
  );
  if (!found.pattern.startsWith('sync')) return output;
  submitted(output);
  return startedSync(services, output, found.pattern);
};

const sdkCall = async (services: TaskServices, found: Integration, args: unknown) => {
  const service = sdkServices[found.service];
  if (!service?.wire) return lambdaInvoke(services, args);
  return wired(services, service.wire, pascal(found.action), isObject(args) ? args : {}, service.prefix);
};

/** The call `resource` names, made once (a callback task's: its waiting not included). */
const callOnce = (services: TaskServices, call: TaskCall) => {
  const found = parsed(call.resource);
  if (!found) throw new StatesError('States.Runtime', `${call.resource} is not served locally`);
  if (found.kind === 'function') return invoked(services, found.arn, call.args);
  if (found.kind === 'activity') throw new StatesError('States.Runtime', `${call.resource} is an activity`);
  if (found.kind === 'sdk') return sdkCall(services, found, call.args);
  return optimizedCall(services, found, call.args, call.submitted);
};

/** An activity's task: scheduled for a worker, its token's outcome (SendTaskSuccess, SendTaskFailure) its end. */
const activityTask = (services: TaskServices, call: TaskCall) => {
  if (!services.activities.has(call.resource))
    throw new StatesError('States.Runtime', `the activity ${call.resource} is no longer served`);
  const token = services.tokens.create();
  const waiting = services.tokens.wait(token, call.heartbeatMs, call.signal);
  services.activities.schedule(call.resource, {
    token,
    input: JSON.stringify(call.args ?? null),
    started: (workerName) => call.started?.(workerName),
    signal: call.signal,
  });
  return waiting;
};

/** The runner of Task states (Run.runTask): the call, and for `.waitForTaskToken` its token's outcome. */
export const taskRunner = (services: TaskServices) => async (call: TaskCall) => {
  if (activityArnPattern.test(call.resource)) return activityTask(services, call);
  if (call.token === undefined) return callOnce(services, call);
  const waiting = services.tokens.wait(call.token, call.heartbeatMs, call.signal);
  waiting.catch(() => undefined);
  let output: unknown;
  try {
    output = await callOnce(services, call);
  } catch (error) {
    services.tokens.discard(call.token);
    throw error;
  }
  call.submitted(output);
  return waiting;
};
