// Serves a synthesized app on loopback: its tables in a local DynamoDB, its functions in processes of their own as
// Lambda runs them, its APIs behind gateways that behave as API Gateway does, and a development issuer its
// authorizers trust.

import { join } from 'node:path';
import { portInUse, portsFor, rememberPorts } from './api-ports.ts';
import type { Api } from './app/api.ts';
import { type Assembly, readAssembly } from './app/assembly.ts';
import { functionNameOf } from './app/aws-function-names.ts';
import type { NameKind } from './app/function-names.ts';
import type { FunctionDefinition, LayerDirs } from './app/functions.ts';
import { resolveValue, UnresolvableValueError, type ValueContext } from './app/intrinsics.ts';
import {
  functionNames,
  namedFunction,
  namedRef,
  type ServedFunction,
  servedFunctions,
} from './app/served-functions.ts';
import { serveUnservedServices } from './aws/unserved-services.ts';
import { type Database, startDatabase } from './database/database.ts';
import { RunnerError } from './errors.ts';
import { authorizersFor } from './gateway/authorizers/for-api.ts';
import { type Deployment, deploymentOf, type ServiceEndpoints } from './gateway/deployment.ts';
import { createGateway, type RunnerPages } from './gateway/listener.ts';
import { tokenVerifier } from './gateway/token-verification.ts';
import { domainNameOf } from './gateway/websocket/events.ts';
import { type DrainingServer, listenOnLoopback } from './http-server.ts';
import { type IssuerIdentity, loadSigningKey, type SigningKey, serveJwks } from './issuer/dev-issuer.ts';
import { AsyncInvocations, emptyAsyncQueue } from './lambda/async-invocations.ts';
import { machineNotices, type SdkFolders } from './lambda/bootstrap.ts';
import { freeInspectorPort } from './lambda/inspector-port.ts';
import { type Invocable, InvocableFunctions } from './lambda/invocable.ts';
import { serveInvokeApi } from './lambda/invoke-api.ts';
import { FunctionPool } from './lambda/pool.ts';
import { boto3FolderOf, provideBoto3 } from './lambda/python-sdk.ts';
import {
  defaultSdkCache,
  providePowertoolsLayers,
  provideRuntimeSdks,
  sdkCacheOf,
  sourceFolders,
} from './lambda/runtime-sdk.ts';
import { Spares } from './lambda/spares.ts';
import { endpointVariables, type LocalEndpoints, localVariables } from './lambda/variables.ts';
import { emptyPendingDeliveries } from './services/eventbridge.ts';
import { startLocalServices } from './services/local-services.ts';
import type { ScheduleClock } from './services/schedule-clock.ts';
import type { ServiceValues } from './services/service-values.ts';
import type { TopicListing } from './services/sns.ts';
import { stateFile } from './services/state-file.ts';
import { Targets } from './services/targets.ts';

export interface RunnerOptions {
  cloudAssemblyDir: string;
  /** The stack to serve alone; by default every stack with an API. */
  stackName?: string;
  /** The API or function URL, by logical id, to serve alone; by default each one, each at its own address. */
  apiName?: string;
  /** Where the layers the app names by ARN are locally (`--layer ARN=DIR`). */
  layerDirs?: LayerDirs;
  /** A node_modules folder standing for the SDK Lambda's Node.js runtimes provide (`--runtime-sdk`), before the app's. */
  runtimeSdk?: string | undefined;
  /** The folder of the cache the SDK is installed into when the app has none (runtime-sdk.ts); else the user's. */
  sdkCache?: string | undefined;
  /**
   * The first API's port (0: each API any free one); the next ones' follow it. With a data folder, each API keeps the
   * port it had at the last start from the same `port` (api-ports.ts).
   */
  port: number;
  /** Where the database and the issuer's key live; undefined keeps both in memory. */
  dataDir: string | undefined;
  /** Execution environments per function at most. */
  maxWorkers: number;
  /**
   * An execution environment idle this long (ms) is stopped, as Lambda stops idle ones (`--idle-timeout`); none is
   * when undefined.
   */
  idleTimeoutMs?: number;
  /** The `iss` and `aud` of the development issuer's tokens; default `urn:local-runner:issuer`, `local-runner`. */
  tokenIssuer?: IssuerIdentity;
  /**
   * Per function (its logical id, or its name: ServedFunction), values that replace the template's and the runner's own local ones, such as
   * AWS_ENDPOINT_URL_DYNAMODB; `Parameters`: values of every function's template variables (the format of `sam local
   * --env-vars`: givenVariables).
   */
  envVars?: Record<string, Record<string, string>>;
  /** SSM parameters' and secrets' values over the template's (`--service-values`: services/service-values.ts). */
  serviceValues?: ServiceValues;
  /**
   * The delay (ms) before an asynchronous invocation's first retry, the second waiting twice as long
   * (`--async-retry-delay`: lambda/async-invocations.ts); AWS's, about a minute, by default.
   */
  asyncRetryDelayMs?: number;
  /** State machines' Wait states and Retry intervals pass at once (`--skip-waits`: services/states/). */
  skipWaits?: boolean;
  log: (line: string) => void;
  /**
   * Takes each line a function (by name: ServedFunction) writes to its log (as CloudWatch Logs gets it); without it,
   * they go to stdout/stderr.
   */
  functionLog?: (functionName: string, line: string) => void;
  /** Pages served besides the app's API, before the gateway sees a request (the API reference of the start command). */
  runnerPages?: RunnerPages;
  /**
   * Hosts the gateways serve besides loopback's (`--allowed-host`: a name, or `.name` for it and its subdomains);
   * a request naming another host is refused (http-server.ts, hostIsServed).
   */
  allowedHosts?: readonly string[];
  /**
   * Debugging (`--inspect[=FUNCTION]`): that function, or every Node.js function, with Node's inspector (pool.ts,
   * `debugged`); `wait`: its runtime waits for a debugger to attach before it starts (the invoke command's).
   */
  inspect?: { functionId?: string | undefined; firstPort?: number; wait?: boolean };
}

export interface Runner {
  /** The first API's address (an app with no API has none: reading it throws; `apis` is empty). */
  readonly url: string;
  /** The first API being served (another after a reload); as `url`, none in an app with no API. */
  readonly app: Api;
  /**
   * Every function served, by name (ServedFunction), its name as Lambda knows it (Invoke's FunctionName), and whether an
   * API reaches it.
   */
  readonly functions: { name: string; lambdaName: string; reached: boolean }[];
  signingKey: SigningKey;
  /** Each API served (or the one `apiName` names), at its own address: `url` and `app` are the first's. */
  readonly apis: { url: string; app: Api }[];
  /** The local DynamoDB's endpoint (any credentials). */
  databaseEndpoint: string;
  /** Each local service's endpoint, by its name (`ssm`, `secretsmanager`, `sqs`; the runner's credentials: local-aws.ts). */
  serviceUrls: Readonly<
    Record<'ssm' | 'secretsmanager' | 'sqs' | 'sns' | 'events' | 's3' | 'states' | 'kinesis', string>
  >;
  /** The local Lambda's Invoke API (the runner's credentials: lambda/invoke-api.ts). */
  lambdaEndpoint: string;
  /** The endpoint variables of the local services, as its functions have them (`env` prints them for a shell). */
  endpointVariables: Record<string, string>;
  /**
   * The template's SQS queues, served by the local SQS at `serviceUrls.sqs`: name, `Stack/id`, URL, and the functions
   * their enabled event source mappings feed.
   */
  queues: () => { name: string; source: string; url: string; feeds: string[] }[];
  /** The Kinesis and DynamoDB stream mappings, each as the banner says it (`Stack/id: stream -> function`). */
  streamMappings: () => string[];
  /** Every schedule timed (Scheduler's, and rules' ScheduleExpression): `list` for the banner, `fire` one now. */
  schedules: Pick<ScheduleClock, 'list' | 'fire'>;
  /** The local SNS's topics, each with its subscriptions (services/sns.ts), served at `serviceUrls.sns`. */
  topics: () => TopicListing[];
  /** The EventBridge buses and rules, each rule with its targets: the banner's lines. */
  eventBridge: () => string[];
  /** The local S3's buckets (services/s3/), served at `serviceUrls.s3`: name, and `Stack/id` when the template has it. */
  buckets: () => { name: string; source?: string | undefined }[];
  /** The template's state machines, served by the local Step Functions at `serviceUrls.states`: the banner's. */
  stateMachines: () => { name: string; arn: string; type: string; source: string }[];
  /** The template's Kinesis streams (services/kinesis.ts), served at `serviceUrls.kinesis`: the banner's. */
  streams: () => { name: string; source: string; arn: string; shards: number | undefined }[];
  /** The S3 buckets' notifications, each with where it sends: the banner's lines. */
  s3Notifications: () => string[];
  /** The inspector's port of each function debugged (`inspect`). */
  inspectPorts: Map<string, number>;
  /** `envVars` keyed by each function's logical id (`Stack/id` where two stacks have it), whatever named it. */
  envVars: Record<string, Record<string, string>> | undefined;
  /** How often each function was invoked (since the last reload). */
  invocations(functionId: string): number;
  /** How many execution environments each function has running now, busy or idle. */
  environments(functionId: string): number;
  /**
   * Serves the app synthesized into `cloudAssemblyDir` instead (`start --watch`): the same database (its new tables
   * created), issuer and address; new execution environments with the new bundles. Requests that arrived before are
   * answered by the old ones, which stop once they have. Resolves true once the new app serves; false when its APIs
   * are not the ones served (one added or removed), which a reload cannot serve: it says to restart, and the previous
   * version goes on serving.
   */
  reload(cloudAssemblyDir: string): Promise<boolean>;
  /**
   * The functions whose code is in a folder `moved` names (by the folder) run the code in its new folder from their
   * next execution environment on (`start --watch`, a bundle rebuilt without a synth); the others go on as they are.
   * Returns the names of the functions moved.
   */
  replaceCode(moved: ReadonlyMap<string, string>): string[];
  /**
   * Finishes what is in flight, refusing new requests (503), and stops listening once every request that reached it
   * is answered (http-server.ts, drainingServer); then stops the functions and closes the database. Requests still in
   * flight after `graceMs` are cut off (their connections closed), and the runner says so.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * The gateway's 403 challenge names the scope the template says (a gateway response's header is fixed at deploy);
 * routes' scopes from `--env-vars` change the function alone, so the runner says where to change both.
 */
const warnOfOwnScope = (
  fn: FunctionDefinition,
  app: ValueContext,
  envVars: Record<string, string>,
  log: (line: string) => void,
) => {
  const name = fn.tokenIssuerVariables?.routeScopes;
  const given = name === undefined ? undefined : envVars[name];
  const template = name === undefined ? undefined : fn.variables[name];
  if (given === undefined || template === undefined || given === resolveValue(template, app)) return;
  log(
    `${fn.id}: ${name} is ${JSON.stringify(given)} from --env-vars, but the gateway's 403 challenge follows the ` +
      `template's ${JSON.stringify(resolveValue(template, app))}: set the scopes in openapi.yaml (and synth) to change both`,
  );
};

/**
 * The inspector's port of each function `inspect` names (by default every Node.js function), by name, in the
 * template's order: each the first free one from the one after the last (from `firstPort`, by default 9229, Node's,
 * which debuggers try first; 0: any free one), so that the banner names the port each inspector listens on. The
 * inspector is Node's: a function on another runtime is refused by name.
 */
const inspectPortsOf = async (assembly: Assembly, inspect: RunnerOptions['inspect'], log: (line: string) => void) => {
  const ports = new Map<string, number>();
  if (inspect === undefined) return ports;
  const { functionId, firstPort = 9229 } = inspect;
  const as = `--inspect=${functionId}`;
  const named = functionId === undefined ? undefined : namedFunction(assembly, functionId, as);
  if (named && named.fn.code.language !== 'nodejs')
    throw new RunnerError(
      `${as}: it runs ${named.fn.runtime}; the runner debugs Node.js functions alone (Node's inspector)`,
    );
  let next = firstPort;
  for (const { name, fn } of named ? [named] : servedFunctions(assembly)) {
    if (fn.code.language !== 'nodejs') continue;
    const port = await freeInspectorPort(next);
    if (next !== 0 && port !== next) log(`${name}: the inspector's port ${next} is in use; it listens on ${port}`);
    ports.set(name, port);
    next = firstPort === 0 ? 0 : port + 1;
  }
  return ports;
};

/** `variables()`, or the reason the template's values cannot be known locally. */
const variablesOrReason = (
  variables: () => Record<string, string>,
): { known: Record<string, string> } | { unknown: UnresolvableValueError } => {
  try {
    return { known: variables() };
  } catch (error) {
    if (error instanceof UnresolvableValueError) return { unknown: error };
    throw error;
  }
};

/** The `--env-vars` key whose variables are every function's, as `sam local` reads it (its "Parameters"). */
const everyFunction = 'Parameters';

/**
 * What `--env-vars` gives the function `served` (its keys as envVarsByFunction leaves them), as `sam local` reads the
 * file: `Parameters` for each variable its template declares, then its own entry (aws/aws-sam-cli,
 * samcli/commands/local/lib/local_lambda.py, `_make_env_vars`).
 */
const givenVariables = (
  envVars: Record<string, Record<string, string>> | undefined,
  { fn, context }: Pick<ServedFunction, 'fn' | 'context'>,
): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(envVars?.[everyFunction] ?? {}).filter(([variable]) => variable in fn.variables),
  ),
  ...envVars?.[fn.id],
  ...envVars?.[`${context.stackName}/${fn.id}`],
});

/** Several keys naming one function: the more specific kind's variables over the less specific's. */
const specificity: NameKind[] = [
  'construct id',
  'function name',
  'logical id',
  'construct path',
  'stack and logical id',
];

/**
 * `--env-vars` keyed as the user names functions (function-names.ts: served or not), keyed again by logical id (by
 * `Stack/id` where two stacks have that id). A key that names no function is refused, with the closest names: a
 * typo would leave the template's values in place silently (`sam local` ignores it; the runner fails closed).
 */
const envVarsByFunction = (envVars: Record<string, Record<string, string>>, assembly: Assembly) => {
  const byFunction: Record<string, Record<string, string>> = {};
  if (envVars[everyFunction]) byFunction[everyFunction] = envVars[everyFunction];
  const named = Object.entries(envVars)
    .filter(([key]) => key !== everyFunction)
    .map(([key, variables]) => ({ ...namedRef(assembly, key, `--env-vars ${key}`), variables }))
    .sort((a, b) => specificity.indexOf(a.kind) - specificity.indexOf(b.kind));
  for (const { ref, variables } of named) {
    const shared = assembly.functions.filter(({ id }) => id === ref.id).length > 1;
    const key = shared ? `${ref.stackName}/${ref.id}` : ref.id;
    byFunction[key] = { ...byFunction[key], ...variables };
  }
  return byFunction;
};

const neutralIssuer: IssuerIdentity = { issuer: 'urn:local-runner:issuer', audience: 'local-runner' };

/**
 * The servers functions reach besides the database: the issuer's JWKS, the endpoint of the services the runner does
 * not serve, and the local services (services/), seeded from `assembly`; one that cannot start closes the others.
 */
const startEndpoints = async (
  assembly: Assembly,
  signingKey: SigningKey,
  options: Pick<RunnerOptions, 'dataDir' | 'serviceValues' | 'log' | 'asyncRetryDelayMs' | 'skipWaits'>,
  functions: InvocableFunctions,
) => {
  const jwks = await serveJwks(() => [signingKey.publicJwk]);
  const unserved = await serveUnservedServices(options.log);
  // What the services send to a function by its ARN is an asynchronous invocation (Invoke with Event).
  const targets = new Targets();
  const asyncInvocations = new AsyncInvocations({
    functions,
    targets,
    log: options.log,
    ...(options.asyncRetryDelayMs !== undefined && { retryDelayMs: options.asyncRetryDelayMs }),
  });
  targets.register('lambda', asyncInvocations.receive);
  const lambda = await serveInvokeApi({ functions, asyncInvocations, log: options.log });
  const local = await startLocalServices({
    dataDir: options.dataDir,
    seeds: assembly.seeds,
    values: options.serviceValues,
    log: options.log,
    targets,
    invoke: functions.invoke,
    ...(options.skipWaits && { skipWaits: true }),
  }).catch(async (error: unknown) => {
    asyncInvocations.close();
    await Promise.all([jwks.close(), unserved.close(), lambda.close()]);
    throw error;
  });
  const closeEndpoints = () => {
    asyncInvocations.close();
    return Promise.all([jwks.close(), unserved.close(), local.close(), lambda.close()]);
  };
  return { jwks, unserved, local, lambda, asyncInvocations, closeEndpoints };
};

/**
 * The user's cache of the runtime's SDK, made only when `create` (before an install: a start that installs nothing
 * leaves no folder); undefined (said) when it is not this user's alone: nothing is installed in it or loaded from it.
 */
const sdkCacheRoot = (log: (line: string) => void, create: boolean) => {
  const { path, problem } = defaultSdkCache(create);
  if (problem === undefined) return path;
  log(`${path} is ${problem}: the runtime's AWS SDK is not installed there for functions whose app has none`);
  return undefined;
};

/**
 * Starts what the functions of `assembly` use (the database and the issuer), and their pools; `poolsFor` makes the
 * pools of another assembly on the same database and issuer (a reload). Used by the start and invoke commands.
 */
export const startServices = async (
  assembly: Assembly,
  options: Omit<RunnerOptions, 'port' | 'cloudAssemblyDir'> & {
    /** Use the database a running `start` serves the data folder with, if one does (the invoke command). */
    joinRunningDatabase?: boolean;
    /** The WebSocket APIs' @connections endpoints, filled once they listen (lambda/bootstrap.ts, `executeApi`). */
    executeApi?: ReadonlyMap<string, string>;
    /** That function (by name) alone gets a pool, and its notices alone are said (the invoke command's). */
    only?: string;
    /** Spare runtime processes for cold starts (lambda/spares.ts): the start command's, not a single invoke's. */
    spares?: boolean;
  },
) => {
  const spares = options.spares ? new Spares() : undefined;
  const envVars = options.envVars && envVarsByFunction(options.envVars, assembly);
  const inspectPorts = await inspectPortsOf(assembly, options.inspect, options.log);
  const identity = options.tokenIssuer ?? neutralIssuer;
  const signingKey = await loadSigningKey(options.dataDir, identity);
  const invocables = new InvocableFunctions();
  const { jwks, unserved, local, lambda, asyncInvocations, closeEndpoints } = await startEndpoints(
    assembly,
    signingKey,
    options,
    invocables,
  );
  let database: Database;
  try {
    database = await startDatabase(
      assembly.tables,
      options.dataDir,
      options.log,
      options.joinRunningDatabase ? 'join' : 'announce',
    );
  } catch (error) {
    await closeEndpoints();
    throw error;
  }
  local.useDatabase(database);
  // Each notice said once, however many reloads would say it again.
  const said = new Set<string>();
  const sayOnce = (key: string, line: string) => {
    if (!said.has(key)) options.log(line);
    said.add(key);
  };
  const endpoints: LocalEndpoints = {
    database: database.endpoint,
    unservedServices: unserved.url,
    services: { ...local.endpoints, AWS_ENDPOINT_URL_LAMBDA: lambda.url },
  };
  // Each function by name (ServedFunction), its values resolved in its own stack's app, and `--env-vars` given by its
  // logical id or its name (the name's over the id's). `only`: that function's pool alone (the invoke command's).
  const poolsFor = (served: Assembly) => {
    const pools = new Map<string, FunctionPool>();
    const invocable: Invocable[] = [];
    const functions = servedFunctions(served).filter(({ name }) => options.only === undefined || name === options.only);
    // A runtime's version here (runs on Node.js 24, not 22): one line for its functions.
    const byMachine = Map.groupBy(
      functions.flatMap(({ name, fn }) => machineNotices(fn).map((notice) => ({ notice, name }))),
      ({ notice }) => notice,
    );
    for (const [notice, named] of byMachine) sayOnce(notice, `${notice}: ${named.map(({ name }) => name).join(', ')}`);
    for (const { name, fn, context, reached } of functions) {
      const given = givenVariables(envVars, { fn, context });
      warnOfOwnScope(fn, context, given, options.log);
      const issuer = { identity, jwksUri: jwks.jwksUri };
      // A queue's URL in its environment names the local SQS, listening by now.
      const withQueues = { ...context, sqsEndpoint: local.urls.sqs };
      const variables = variablesOrReason(() => localVariables(fn, withQueues, issuer, endpoints, { [fn.id]: given }));
      // A function no API reaches whose variables have no local value is left out, said; one an API reaches (or the
      // one `only` names) stops the start.
      if ('unknown' in variables) {
        if (reached || options.only !== undefined) throw variables.unknown;
        sayOnce(`${name}: not served`, `${name} is not served: ${variables.unknown.message}`);
        continue;
      }
      for (const notice of fn.notices) sayOnce(`${name}: ${notice}`, `${name}: ${notice}`);
      const { functionLog } = options;
      const logLine = functionLog && ((line: string) => functionLog(name, line));
      const port = inspectPorts.get(name);
      const inspect = port === undefined ? undefined : { port, wait: options.inspect?.wait ?? false };
      pools.set(
        name,
        new FunctionPool(fn, variables.known, {
          maxWorkers: options.maxWorkers,
          ...(logLine && { logLine }),
          say: (line) => options.log(`${name}: ${line}`),
          ...(fn.code.language !== 'provided' && { runtimeSdk: sdkFoldersOf(fn) }),
          ...(inspect && { inspect }),
          ...(options.executeApi && { executeApi: options.executeApi }),
          ...(options.idleTimeoutMs !== undefined && { idleMs: options.idleTimeoutMs }),
          ...(spares && { spares }),
        }),
      );
      invocable.push({ pool: pools.get(name) as FunctionPool, fn, context });
    }
    invocables.replace(invocable);
    return pools;
  };
  // The runtime's SDK where the app has none, installed before the functions start (runtime-sdk.ts).
  const cacheRoot = options.sdkCache ?? sdkCacheRoot(options.log, false);
  const cacheReady = () => options.sdkCache !== undefined || sdkCacheRoot(options.log, true) !== undefined;
  const sdkFoldersOf = (fn: FunctionDefinition): SdkFolders => {
    const boto3 = boto3FolderOf(fn, cacheRoot);
    return {
      given: options.runtimeSdk,
      sources: sourceFolders(fn),
      ...(cacheRoot && { cache: join(sdkCacheOf(cacheRoot, fn.runtime), 'node_modules') }),
      ...(boto3 && { boto3: [boto3] }),
    };
  };
  const provideSdks = async (served: Assembly) => {
    const functions = servedFunctions(served).filter(({ name }) => options.only === undefined || name === options.only);
    const layered = functions.filter(({ fn }) => fn.powertoolsLayers.length > 0);
    // Powertools' layers are loaded from the cache: none from a folder another user could write.
    if (!cacheRoot && layered.length > 0)
      throw new RunnerError(
        `${layered.map(({ name }) => name).join(', ')}: Powertools' public layers are installed into the user's cache, which is not this user's alone (said above): give each with --layer ARN=DIR`,
      );
    await providePowertoolsLayers(layered, { log: options.log, ready: cacheReady });
    if (cacheRoot) {
      await provideRuntimeSdks(functions, {
        cacheRoot,
        given: options.runtimeSdk,
        log: options.log,
        ready: cacheReady,
      });
      await provideBoto3(functions, { cacheRoot, log: options.log, ready: cacheReady });
    }
  };
  let pools: Map<string, FunctionPool>;
  try {
    await provideSdks(assembly);
    pools = poolsFor(assembly);
  } catch (error) {
    spares?.close();
    await database.close();
    await closeEndpoints();
    throw error;
  }
  return {
    signingKey,
    database,
    local,
    lambdaEndpoint: lambda.url,
    /** Lambda's asynchronous invocations: `start` keeps their queue in the data folder once its functions serve. */
    asyncInvocations,
    pools,
    poolsFor,
    provideSdks,
    inspectPorts,
    endpoints,
    /** `--env-vars` by logical id (envVarsByFunction). */
    envVars,
    /** Resolves once the spare runtime processes started so far are ready for a cold start. */
    sparesReady: () => spares?.ready(),
    /** Stops `running` pools (by default the first ones), then the database, the issuer and the endpoints. */
    close: async (running: FunctionPool[] = [...pools.values()]) => {
      spares?.close();
      await Promise.all(running.map((pool) => pool.close()));
      await database.close();
      await closeEndpoints();
    },
  };
};

/** `app` as its gateway serves it: with the pools of its functions (by name in `pools`: functionNames), by id. */
const deploymentFor = (
  app: Api,
  nameOf: ReturnType<typeof functionNames>,
  allPools: Map<string, FunctionPool>,
  signingKey: SigningKey,
  services: ServiceEndpoints,
): Deployment => {
  const pools = new Map(
    [...app.functions.keys()].flatMap((id) => {
      const pool = allPools.get(nameOf(app, id));
      return pool ? [[id, pool] as const] : [];
    }),
  );
  // One verifier for the deployment's token authorizers, REST and HTTP.
  return deploymentOf(app, pools, authorizersFor(app, pools, tokenVerifier(signingKey)), services);
};

/** What the start says it does not serve: functions that cannot run locally, stacks with no API, the notices. */
const sayWhatIsNotServed = (assembly: Assembly, log: (line: string) => void) => {
  for (const { stackName, id, reason } of assembly.unservable) log(`${stackName}/${id} is not served: ${reason}`);
  if (assembly.stacksWithoutApi.length > 0)
    log(
      `stacks with no API of their own: ${assembly.stacksWithoutApi.join(', ')} (served: their tables and functions)`,
    );
  for (const notice of assembly.notices) log(notice);
};

/** Each API's log: with several APIs, each request's line names the API it reached (and its stack, with several). */
const apiLog = (assembly: Assembly, log: (line: string) => void) => {
  const severalStacks = new Set(assembly.apis.map(({ stackName }) => stackName)).size > 1;
  return ({ stackName, apiId }: Api) =>
    assembly.apis.length === 1
      ? log
      : (line: string) => log(`[${severalStacks ? `${stackName}/` : ''}${apiId}] ${line}`);
};

/**
 * Each gateway listening on its port (api-ports.ts): their URLs. One that cannot listen closes them all and the
 * services (`closeServices`); a port in use is refused, naming the API or URL that wanted it.
 */
const listenAll = async (
  gateways: DrainingServer[],
  apis: Api[],
  ports: number[],
  options: Pick<RunnerOptions, 'port' | 'dataDir'>,
  closeServices: () => Promise<void>,
) => {
  const urls: string[] = [];
  try {
    for (const [index, { server }] of gateways.entries()) urls.push(await listenOnLoopback(server, ports[index]));
  } catch (error) {
    for (const { server } of gateways) server.close();
    await closeServices();
    const { code } = error as NodeJS.ErrnoException;
    const failed = apis[urls.length];
    if (code === 'EADDRINUSE' && failed)
      throw portInUse(failed, ports[urls.length] ?? 0, options.port, options.dataDir);
    throw error;
  }
  return urls;
};

export const startRunner = async (options: RunnerOptions): Promise<Runner> => {
  const readAll = (dir: string) =>
    readAssembly(dir, {
      stackName: options.stackName,
      apiName: options.apiName,
      layerDirs: options.layerDirs,
      packageCache: options.sdkCache,
    });
  const assembly = readAll(options.cloudAssemblyDir);
  sayWhatIsNotServed(assembly, options.log);
  // Each API at its own address: the one it had at the last start with this data folder and port, else the first on
  // `port`, the next ones on the ports after it (any free one with 0): api-ports.ts.
  const ports = portsFor(assembly.apis, options.port, options.dataDir);
  // Each WebSocket API's execute-api host name to its address, once it listens: its functions' SDK calls reach it.
  const executeApi = new Map<string, string>();
  const services = await startServices(assembly, { ...options, executeApi, spares: true });
  let pools = services.pools;
  // The services an AWS integration of a REST API calls, at their local endpoints.
  const local = services.local.urls;
  const integrated = {
    sqs: local.sqs,
    sns: local.sns,
    events: local.events,
    kinesis: local.kinesis,
    s3: local.s3,
    dynamodb: services.database.endpoint,
    // Step Functions' endpoint, once the runner serves it (its service's own change); until then such a method answers
    // 500, naming the service, and a state machine's ARN in a template refuses the app at start.
    states: (local as Partial<Record<string, string>>).states,
  };
  /** The assembly served (another after a reload). */
  let served = assembly;
  let deployments = assembly.apis.map((api) =>
    deploymentFor(api, functionNames(assembly), pools, services.signingKey, integrated),
  );
  /** Pools replaced by a reload, finishing what they had. */
  const draining = new Set<Promise<void>>();
  const logOf = apiLog(assembly, options.log);
  const gateways = assembly.apis.map((api, index) =>
    createGateway({
      deployment: () => deployments[index] as Deployment,
      log: logOf(api),
      ...(index === 0 && options.runnerPages && { runnerPages: options.runnerPages }),
      ...(options.allowedHosts && { allowedHosts: options.allowedHosts }),
    }),
  );
  // Served once a first request's cold start can take a spare (lambda/spares.ts).
  const [urls] = await Promise.all([
    listenAll(gateways, assembly.apis, ports, options, services.close),
    services.sparesReady(),
  ]);
  rememberPorts(assembly.apis, urls, { base: options.port, dataDir: options.dataDir, log: options.log });
  services.local.pollQueues();
  services.asyncInvocations.keep(stateFile(options.dataDir, 'lambda-async', emptyAsyncQueue));
  services.local.events.keep(stateFile(options.dataDir, 'events-pending', emptyPendingDeliveries));
  for (const [index, api] of assembly.apis.entries())
    if (api.kind === 'websocket') executeApi.set(domainNameOf(api.apiId).toLowerCase(), urls[index] as string);
  const poolOf = (functionId: string) => {
    const pool = pools.get(namedFunction(served, functionId).name);
    if (!pool) throw new Error(`no function ${functionId} served`);
    return pool;
  };
  const first = () => {
    const [deployment] = deployments;
    if (!deployment) throw new RunnerError('the app has no API: it serves its functions and services alone');
    return deployment;
  };
  // Schedules fire once everything they reach serves.
  services.local.clock.start();
  return {
    get url() {
      first();
      return urls[0] as string;
    },
    get app() {
      return first().api;
    },
    get functions() {
      return servedFunctions(served).flatMap(({ name, fn, context, reached }) =>
        pools.has(name) ? [{ name, lambdaName: functionNameOf(context, fn.id), reached }] : [],
      );
    },
    get apis() {
      return deployments.map((deployment, index) => ({ url: urls[index] as string, app: deployment.api }));
    },
    signingKey: services.signingKey,
    databaseEndpoint: services.database.endpoint,
    serviceUrls: services.local.urls,
    lambdaEndpoint: services.lambdaEndpoint,
    endpointVariables: endpointVariables(services.endpoints),
    queues: services.local.queues,
    streamMappings: services.local.streamMappings,
    schedules: services.local.clock,
    topics: services.local.topics,
    eventBridge: () => services.local.events.banner(),
    buckets: services.local.buckets,
    stateMachines: () => services.local.stateMachines(),
    streams: services.local.kinesis.streams,
    s3Notifications: services.local.s3Notifications,
    inspectPorts: services.inspectPorts,
    envVars: services.envVars,
    invocations: (functionId) => poolOf(functionId).invocations,
    environments: (functionId) => poolOf(functionId).environments,
    reload: async (cloudAssemblyDir) => {
      const next = readAll(cloudAssemblyDir);
      const ids = (list: Api[]) => list.map(({ stackName, apiId }) => `${stackName}/${apiId}`).join(', ');
      if (ids(next.apis) !== ids(deployments.map(({ api }) => api))) {
        options.log(
          `the app's APIs are now ${ids(next.apis)}: restart the runner to serve them; still serving the previous version`,
        );
        return false;
      }
      await services.database.createTables(next.tables);
      services.local.seed(next.seeds);
      served = next;
      const previous = pools;
      await services.provideSdks(next);
      pools = services.poolsFor(next);
      deployments = next.apis.map((api) =>
        deploymentFor(api, functionNames(next), pools, services.signingKey, integrated),
      );
      for (const pool of previous.values()) {
        const drained = pool.drain().finally(() => draining.delete(drained));
        draining.add(drained);
      }
      return true;
    },
    replaceCode: (moved) =>
      [...pools].flatMap(([name, pool]) => {
        const assetDir = moved.get(pool.assetDir);
        if (assetDir === undefined) return [];
        pool.replaceCode(assetDir);
        return [name];
      }),
    close: async (graceMs = Number.POSITIVE_INFINITY) => {
      const drained = Promise.all(gateways.map((gateway) => gateway.stop()));
      const cutOff = Number.isFinite(graceMs)
        ? setTimeout(() => {
            options.log(`requests still in flight after ${graceMs / 1000} s: stopping anyway`);
            for (const gateway of gateways) gateway.cutOff();
          }, graceMs)
        : undefined;
      await drained;
      clearTimeout(cutOff);
      await Promise.all(draining);
      await services.close([...pools.values()]);
    },
  };
};
