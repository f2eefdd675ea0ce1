// `cdk-local-runner start`: synthesizes the app (when cdk.out is stale) and serves it at http://127.0.0.1:PORT until it
// is stopped.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { UrlApi } from '../app/api.ts';
import { userPoolsOf } from '../app/assembly.ts';
import type { RestRoute } from '../app/rest-api.ts';
import { captureSynth } from '../app/synth-capture.ts';
import { RunnerError } from '../errors.ts';
import { devIssuerScope, signDevToken } from '../issuer/dev-issuer.ts';
import { type Runner, startRunner } from '../runner.ts';
import { announceRunner } from '../runner-socket.ts';
import { type ServiceValues, serviceValuesOf } from '../services/service-values.ts';
import type { TopicListing } from '../services/sns.ts';
import { apiReference } from './api-reference.ts';
import { readConfig } from './config.ts';
import {
  cloudAssemblyOf,
  commandFailed,
  dataDirOf,
  envVarsOf,
  idleTimeoutOf,
  inspectOf,
  layerDirsOf,
  maxWorkersOf,
  options,
  parseCommandLine,
  projectOf,
  runtimeSdkOf,
  wholeNumber,
} from './options.ts';
import { reloadOnChange } from './watch.ts';

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`);
/** How long stopping waits for requests in flight. */
const drainGraceMs = 15_000;
/**
 * Under npm, a signal sent to the whole group (a terminal's Ctrl-C, `kill -- -PGID`) reaches the runner twice: from
 * the sender, and forwarded by npm (which forwards SIGINT and SIGTERM to its script). Signals this close to the first
 * are that same stop; a later one is the user's second, which stops at once.
 */
const sameStopMs = 1_000;
/** How often the runner looks whether the process that started it is gone (Node offers no parent-death signal). */
const parentPollMs = 500;

/** The project's OpenAPI document, where it has one: what the banner says of the API it serves. */
interface OpenApiDocument {
  info?: { title?: string };
  paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown }> } }>>;
}

/** A ready-to-paste request for each route that the OpenAPI document gives a JSON example body for. */
const curlExamples = (
  openapi: OpenApiDocument,
  url: string,
  token: string,
  routes: { resourcePath: string; method: string }[],
) =>
  routes.flatMap(({ resourcePath, method }) => {
    const example =
      openapi.paths?.[resourcePath]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.example;
    if (example === undefined) return [];
    return [
      `curl -s -X ${method} ${url}${resourcePath} -H "Authorization: Bearer ${token}" -H 'Content-Type: application/json' -d '${JSON.stringify(example)}'`,
    ];
  });

/**
 * Stops the runner on a signal (SIGINT, SIGTERM, SIGHUP) or the end of `parent`, the process that started it: then it
 * stops accepting requests, lets those in flight finish, and exits. However the stop comes (the runner alone, npm
 * alone, the whole group, or npm killed), requests in flight are answered; only a second signal from the user, later
 * than `sameStopMs`, stops at once. `serving` is what to close; `stopAsked()` whether a stop has begun.
 */
const stopOnSignals = (parent: number) => {
  let stopAsked: number | undefined;
  const state: { serving: Promise<Runner | undefined>; stopWatching: () => void; stopAsked: () => boolean } = {
    serving: Promise.resolve(undefined),
    stopWatching: () => undefined,
    stopAsked: () => stopAsked !== undefined,
  };
  const stop = async (reason: string) => {
    stopAsked = performance.now();
    state.stopWatching();
    log(
      `${reason}: finishing requests in flight (for up to ${drainGraceMs / 1000} s; new ones are answered 503), then stopping`,
    );
    await (await state.serving.catch(() => undefined))?.close(drainGraceMs);
    log('stopped');
    process.exit(0);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopAsked === undefined) void stop(signal);
    else if (performance.now() - stopAsked > sameStopMs) {
      log(`${signal} again: stopping now`);
      process.exit(1);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  // npm killed on its own (SIGKILL, a crash) leaves the runner orphaned, which it sees by its parent changing; it then
  // stops as on SIGTERM instead of holding the port and the data folder. While it stops, this is not a second signal.
  setInterval(() => {
    if (process.ppid !== parent && stopAsked === undefined) void stop('the process that started it is gone');
  }, parentPollMs).unref();
  return state;
};

/** How the banner names each kind of API. */
/** What a REST method's banner line names: its function, its mock's statuses, or its non-proxy integration's target. */
const routeTarget = (route: RestRoute) => {
  if (route.integration === 'proxy') return route.functionId;
  if (route.integration === 'mock') {
    const statuses = route.responses.map(({ statusCode }) => statusCode).join(', ');
    return statuses === '' ? '(mock)' : `(mock: ${statuses})`;
  }
  const { target } = route;
  if (target.kind === 'lambda') return `${target.functionId} (non-proxy)`;
  if (target.kind === 'http') return `(${target.proxy ? 'HTTP_PROXY' : 'HTTP'} ${target.method} ${target.url})`;
  return `(${target.service} ${target.action ?? target.path})`;
};

const kindNames = { rest: 'REST API', http: 'HTTP API', url: 'Function URL', websocket: 'WebSocket API' } as const;

/** A function URL's settings, as the banner shows them. */
const urlTraits = (url: UrlApi) =>
  [
    `AuthType ${url.authType}${url.authType === 'AWS_IAM' ? ': SigV4 with access key id local, secret local' : ''}`,
    url.invokeMode,
    ...(url.cors ? ['CORS'] : []),
  ].join(', ');

/** Whether the local SSM Parameter Store and Secrets Manager hold anything: the template's or --service-values'. */
const servesValues = (api: Runner, serviceValues: ServiceValues | undefined) =>
  serviceValues !== undefined ||
  api.apis.some(({ app }) =>
    Object.values(app.resources).some(
      ({ Type }) => Type === 'AWS::SSM::Parameter' || Type === 'AWS::SecretsManager::Secret',
    ),
  );

/** The template's queues, each with its URL (the local SQS, the runner's credentials) and the functions it feeds. */
const queueLines = (api: Runner) => {
  const queues = api.queues();
  if (queues.length === 0) return [];
  return [
    `SQS: ${api.serviceUrls.sqs} (the runner's credentials, local/local)`,
    ...queues.map(
      ({ name, source, url, feeds }) =>
        `  queue ${name} (${source}): ${url}${feeds.length > 0 ? ` -> ${feeds.join(', ')}` : ''}`,
    ),
  ];
};

/** The Kinesis and DynamoDB stream mappings, each with the function it feeds. */
const streamMappingLines = (api: Runner) => {
  const mappings = api.streamMappings();
  return mappings.length === 0 ? [] : ['Stream mappings:', ...mappings.map((line) => `  ${line}`)];
};

/** Every schedule timed, with its next fire time and target (`fire` fires one now). */
const scheduleLines = (api: Runner) => {
  const schedules = api.schedules.list();
  if (schedules.length === 0) return [];
  return [
    'Schedules (fire one now with `npx cdk-local-runner fire <name>`):',
    ...schedules.map(
      ({ key, expression, timezone, enabled, next, target }) =>
        `  ${key}: ${expression}${timezone === 'UTC' ? '' : ` ${timezone}`}, ${enabled ? (next ? `next ${next.toISOString()}` : 'no firing to come') : 'DISABLED'} -> ${target}`,
    ),
  ];
};

/** The topics, each with its subscriptions (the local SNS, the runner's credentials). */
const topicLines = (api: Runner) => {
  const topics = api.topics();
  if (topics.length === 0) return [];
  const traits = ({ attributes, pending }: TopicListing['subscriptions'][number]) =>
    [
      ...(attributes.RawMessageDelivery === 'true' ? ['raw'] : []),
      ...(attributes.FilterPolicy ? [`filtered on ${attributes.FilterPolicyScope ?? 'MessageAttributes'}`] : []),
      ...(attributes.RedrivePolicy ? ['with a dead-letter queue'] : []),
      ...(pending ? ['pending confirmation'] : []),
    ].join(', ');
  return [
    `SNS: ${api.serviceUrls.sns} (the runner's credentials, local/local)`,
    ...topics.flatMap(({ name, arn, subscriptions }) => [
      `  topic ${name}: ${arn}`,
      ...subscriptions.map((s) => `    -> ${s.protocol} ${s.endpoint}${traits(s) ? ` (${traits(s)})` : ''}`),
    ]),
  ];
};

/** The EventBridge buses with rules, each rule with its targets (the local EventBridge, the runner's credentials). */
const eventBridgeLines = (api: Runner) => {
  const lines = api.eventBridge();
  if (lines.length === 0) return [];
  return [
    `EventBridge: ${api.serviceUrls.events} (the runner's credentials, local/local)`,
    ...lines.map((line) => `  ${line}`),
  ];
};

/** The buckets (the local S3, the runner's credentials; path-style, or `<bucket>.localhost`). */
const bucketLines = (api: Runner) => {
  const buckets = api.buckets();
  if (buckets.length === 0) return [];
  return [
    `S3: ${api.serviceUrls.s3} (the runner's credentials, local/local)`,
    ...buckets.map(({ name, source }) => `  bucket ${name}${source ? ` (${source})` : ''}`),
  ];
};

/** The state machines (the local Step Functions, the runner's credentials). */
const stateMachineLines = (api: Runner) => {
  const machines = api.stateMachines();
  if (machines.length === 0) return [];
  return [
    `Step Functions: ${api.serviceUrls.states} (the runner's credentials, local/local)`,
    ...machines.map(({ name, arn, type }) => `  state machine ${name} (${type}): ${arn}`),
  ];
};

/** The template's Kinesis streams, each with its shards and ARN (the local Kinesis, the runner's credentials). */
const streamLines = (api: Runner) => {
  const streams = api.streams();
  if (streams.length === 0) return [];
  return [
    `Kinesis: ${api.serviceUrls.kinesis} (HTTP/1.1 and HTTP/2; the runner's credentials, local/local)`,
    ...streams.map(
      ({ name, source, arn, shards }) =>
        `  stream ${name} (${source}): ${shards ?? 0} ${shards === 1 ? 'shard' : 'shards'}, ${arn}`,
    ),
  ];
};

/** The S3 buckets' notifications, each with where it sends. */
const s3NotificationLines = (api: Runner) => {
  const lines = api.s3Notifications();
  return lines.length === 0 ? [] : ['S3 notifications:', ...lines.map((line) => `  ${line}`)];
};

/** What the runner prints once it serves: the routes, where things are, a token and the requests to try. */
const banner = async (
  api: Runner,
  openapi: OpenApiDocument | undefined,
  dataDir: string | undefined,
  envVars: Runner['envVars'],
  withServices: boolean,
) => {
  const scope = devIssuerScope(
    api.apis.map(({ app }) => app),
    envVars,
  );
  const token =
    scope === undefined
      ? undefined
      : await signDevToken(api.signingKey, { sub: options.sub.default, scope, expiresIn: '12h' });
  const [first] = api.apis;
  // An app none of whose functions takes the development issuer (one given with --app) gets no word of tokens.
  const takesDevIssuer = api.apis.some(({ app }) =>
    [...app.functions.values()].some((fn) => fn.tokenIssuerVariables !== undefined),
  );
  const examples =
    first === undefined
      ? []
      : curlExamples(
          openapi ?? {},
          first.url,
          token ?? '$TOKEN',
          first.app.kind === 'url' || first.app.kind === 'websocket' ? [] : first.app.routes,
        );
  const routesOf = ({ url, app }: Runner['apis'][number]) =>
    app.kind === 'url'
      ? [
          `  any method and path at ${url}/ -> ${app.functionId}${app.qualifier ? `:${app.qualifier}` : ''} (${urlTraits(app)})`,
        ]
      : app.kind === 'websocket'
        ? [
            ...app.stages.map(
              ({ name }) =>
                `  WebSocket ${url.replace(/^http:/, 'ws:')}/${name} (@connections at ${url}/${name}/@connections)`,
            ),
            ...app.routes.map((route) => `  ${route.routeKey} -> ${route.functionId}`),
          ]
        : app.kind === 'http'
          ? app.routes.map(
              (route) =>
                `  ${route.routeKey} at ${url} -> ${route.service ? `(${route.service.subtype})` : route.httpProxy ? `(HTTP_PROXY ${route.httpProxy.url})` : route.functionId}`,
            )
          : app.routes.map((route) => `  ${route.method} ${url}${route.resourcePath} -> ${routeTarget(route)}`);
  const several = api.apis.length > 1;
  const chosen = !several && first !== undefined && first.app.otherApiIds.length > 0;
  const stacks = [...new Set(api.apis.map(({ app }) => app.stackName))];
  const ready = `[ready in ${(performance.now() / 1000).toFixed(1)} s]`;
  const unreached = api.functions.filter(({ reached }) => !reached);
  return [
    '',
    first === undefined
      ? `The app has no API: its functions and services are serving  ${ready}`
      : `${openapi?.info?.title ?? 'The API'} (${stacks.length > 1 ? 'stacks' : 'stack'} ${stacks.join(', ')}${chosen ? `, ${kindNames[first.app.kind]} ${first.app.apiId}` : ''}) is serving at ${first.url}  ${ready}`,
    // Several APIs, each at its own address, each with its routes.
    ...api.apis.flatMap((served) => [
      ...(several
        ? [
            `${kindNames[served.app.kind]} ${served.app.apiId}${stacks.length > 1 ? ` of ${served.app.stackName}` : ''} at ${served.url}:`,
          ]
        : []),
      ...routesOf(served),
      ...(served.app.kind === 'rest' ? served.app.apiKeys : []).map(
        ({ id, value, generated, stages }) =>
          `  API key ${id}${generated ? ' (AWS generates its value; this is the local one)' : ''} for ${stages.join(', ')}: x-api-key: ${value}`,
      ),
      ...(served.app.stages.length > 1
        ? [`  stages ${served.app.stages.map(({ name }) => name).join(', ')}: the path's first segment chooses`]
        : []),
    ]),
    ...(chosen
      ? [
          `The stack's other REST APIs, not served: ${first?.app.otherApiIds.join(', ')} (without --api, all are served together; one the runner refuses stops the start)`,
        ]
      : []),
    `Data: ${dataDir ?? 'in memory (gone when stopped)'}`,
    `Database: ${api.databaseEndpoint} (the DynamoDB API and DynamoDB Streams, any credentials)`,
    ...(withServices
      ? [
          `SSM Parameter Store: ${api.serviceUrls.ssm}, Secrets Manager: ${api.serviceUrls.secretsmanager} (the runner's credentials, local/local)`,
        ]
      : []),
    `Lambda: ${api.lambdaEndpoint} (Invoke, by name, ARN or partial ARN; the runner's credentials, local/local)`,
    ...queueLines(api),
    ...streamMappingLines(api),
    ...scheduleLines(api),
    ...topicLines(api),
    ...eventBridgeLines(api),
    ...bucketLines(api),
    ...stateMachineLines(api),
    ...streamLines(api),
    ...s3NotificationLines(api),
    ...(unreached.length > 0
      ? [
          "Functions no API reaches (`npx cdk-local-runner invoke NAME`; Lambda's Invoke takes the name after it):",
          ...unreached.map(({ name, lambdaName }) => `  ${name}: ${lambdaName}`),
        ]
      : []),
    ...(openapi && first ? [`API reference: ${first.url}/docs (paste the token below under Authorize)`] : []),
    ...userPoolsOf(api.apis.map(({ app }) => app)).map(
      ({ logicalId }) =>
        `User pool ${logicalId}: its tokens with \`npx cdk-local-runner token --pool ${logicalId} [--token-use access]\``,
    ),
    ...[...api.inspectPorts].map(
      ([functionId, port]) =>
        `Debugger: ${functionId} on 127.0.0.1:${port} (attach to it; no timeout cuts a pause off)`,
    ),
    '',
    ...(token !== undefined
      ? ['A token (12 h; more with `npx cdk-local-runner token`):', token, '']
      : takesDevIssuer
        ? [
            'No development token: the authorizers trust the issuer --env-vars names,',
            'so its tokens are the ones that work here, as deployed. With one in $TOKEN:',
            '',
          ]
        : []),
    ...(examples.length > 0 ? ['Try:', ...examples, ''] : []),
  ].join('\n');
};

/** Serves the app until it is stopped (stopOnSignals). */
export const serve = async (parent: number) => {
  const stopping = stopOnSignals(parent);
  try {
    const { values } = parseCommandLine('cdk-local-runner start [options]', [
      'port',
      'data-dir',
      'in-memory',
      'max-workers',
      'idle-timeout',
      'async-retry-delay',
      'skip-waits',
      'env-vars',
      'service-values',
      'app',
      'context',
      'stack',
      'api',
      'layer',
      'runtime-sdk',
      'watch',
      'inspect',
      'inspect-port',
      'allowed-host',
    ]);
    if (values.app !== undefined && values.watch)
      throw new RunnerError('--watch synthesizes the project in this folder: not with --app');
    // A reload would start the debugged function's new environment while the old one holds the inspector's port.
    if (values.inspect !== undefined && values.watch) throw new RunnerError('--inspect is not taken with --watch');
    const inspect = inspectOf(values);
    const config = readConfig(process.cwd());
    // The project's document describes the project's app, not one given with --app.
    const openApiPath = values.app === undefined ? config.openapi : undefined;
    const openapi = openApiPath ? (parseYaml(readFileSync(openApiPath, 'utf8')) as OpenApiDocument) : undefined;
    const dataDir = dataDirOf(values, config);
    const envVars = envVarsOf(values['env-vars']);
    const serviceValues = serviceValuesOf(values['service-values']);
    // Watching, the first synth (when one runs) is captured: what it ran tells which bundles rebuild alone (watch.ts).
    const firstSynth = values.watch ? captureSynth() : undefined;
    stopping.stopWatching = () => firstSynth?.close();
    const starting = startRunner({
      cloudAssemblyDir: cloudAssemblyOf(values, log, [], firstSynth?.env),
      ...(values.stack && { stackName: values.stack }),
      ...(values.api && { apiName: values.api }),
      layerDirs: layerDirsOf(values),
      runtimeSdk: runtimeSdkOf(values),
      port: wholeNumber(values.port ?? process.env.PORT ?? '3000', '--port'),
      dataDir,
      maxWorkers: maxWorkersOf(values['max-workers'], log),
      idleTimeoutMs: idleTimeoutOf(values['idle-timeout']),
      asyncRetryDelayMs: wholeNumber(values['async-retry-delay'] ?? '60', '--async-retry-delay') * 1000,
      ...(values['skip-waits'] && { skipWaits: true }),
      tokenIssuer: config.tokenIssuer,
      ...(envVars && { envVars }),
      ...(serviceValues && { serviceValues }),
      log,
      ...(openApiPath && { runnerPages: apiReference(openApiPath) }),
      ...(values['allowed-host'] && { allowedHosts: values['allowed-host'] }),
      ...(inspect && { inspect }),
    });
    stopping.serving = starting;
    const api = await starting;
    // Asked to stop while starting: the stop closes it, and nothing is announced.
    if (stopping.stopAsked()) return;
    // `token` and `env`, run in this folder, ask it where it serves; in memory, also for its key (it is nowhere else).
    const key = dataDir === undefined ? api.signingKey : undefined;
    await announceRunner({
      url: api.apis[0]?.url ?? api.databaseEndpoint,
      variables: api.endpointVariables,
      key,
      fire: (name) => api.schedules.fire(name),
    }).catch((error: unknown) =>
      log(
        `\`token\` and \`env\` cannot ask this runner (${error instanceof Error ? error.message : String(error)})${key ? ": its tokens are the banner's" : ''}`,
      ),
    );
    console.log(await banner(api, openapi, dataDir, api.envVars, servesValues(api, serviceValues)));
    if (firstSynth) stopping.stopWatching = reloadOnChange(api, projectOf(values), log, firstSynth);
  } catch (error) {
    stopping.stopWatching();
    commandFailed('cdk-local-runner start', error);
    process.exit();
  }
};
