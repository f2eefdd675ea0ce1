// The AWS services the runner serves locally besides DynamoDB, each a module of this folder, each served on a loopback
// port of its own (json-protocol.ts: SSM Parameter Store, Secrets Manager, SQS, EventBridge), their state in the data folder
// (state-file.ts), encrypted with its key (data-key.ts), and seeded at start from the template's resources
// (app/service-resources.ts) and the --service-values file (service-values.ts). Functions reach each through its
// `AWS_ENDPOINT_URL_<SERVICE>` variable ("Service-specific endpoints", AWS SDKs and Tools Reference Guide).
import type { IncomingMessage } from 'node:http';
import type { ServiceSeeds } from '../app/service-resources.ts';
import { type DataKey, loadDataKey } from './data-key.ts';
import { eventBridge } from './eventbridge.ts';
import { type JsonService, serveJsonServices } from './json-protocol.ts';
import { emptyStreams, kinesisDataStreams, streamArn } from './kinesis.ts';
import { logGroupReceiver } from './log-groups.ts';
import { emptyParameters, parameterStore } from './parameter-store.ts';
import { pipeInvoker } from './pipes.ts';
import { serveQueryServices } from './query-protocol.ts';
import { startQueuePollers } from './queue-poller.ts';
import { simpleStorageService } from './s3/index.ts';
import { emptyTested, s3Notifications } from './s3-notifications.ts';
import { emptyClock, ScheduleClock } from './schedule-clock.ts';
import { localScheduler } from './scheduler.ts';
import { generatedSecretString } from './secret-generator.ts';
import { emptySecrets, secretsManager } from './secrets-manager.ts';
import type { ServiceValues } from './service-values.ts';
import { emptyTopics, simpleNotificationService } from './sns.ts';
import { emptySigning, snsSigningKey } from './sns-signing.ts';
import { emptyQueues, queueArn, simpleQueueService } from './sqs.ts';
import { sqsQueryAnswer } from './sqs-query.ts';
import { stateFile } from './state-file.ts';
import { emptyExecutions } from './states/executions.ts';
import { stepFunctions } from './states/step-functions.ts';
import { emptyCheckpoints, streamMappingLine, streamPolling } from './stream-poller.ts';
import { type Invoker, Targets } from './targets.ts';

/** What the seeds of the template and of the --service-values file put, each with the fingerprint of its source. */
const seedsOf = (seeds: ServiceSeeds, values: ServiceValues | undefined, key: DataKey) => {
  const print = (...parts: unknown[]) => key.fingerprint(JSON.stringify(parts));
  const given = values ?? { parameters: [], secrets: [] };
  const parameters = new Map(
    seeds.parameters.map(({ name, type, value, source }) => [
      name,
      {
        name,
        type,
        value,
        source,
        fingerprint: print('template', type, value),
      },
    ]),
  );
  for (const { name, value, type } of given.parameters) {
    const chosen = type ?? parameters.get(name)?.type ?? 'String';
    parameters.set(name, {
      name,
      type: chosen,
      value,
      source: '--service-values',
      fingerprint: print('file', chosen, value),
    });
  }
  const secrets = new Map(
    seeds.secrets.map(({ name, secretString, generate, source }) => [
      name,
      {
        name,
        source,
        // A generated value is made once: the same generator again leaves it (its fingerprint is the generator's).
        value: () => (generate ? generatedSecretString(generate, source) : secretString),
        fingerprint: print('template', secretString ?? null, generate ?? null),
      },
    ]),
  );
  for (const { name, value } of given.secrets)
    secrets.set(name, {
      name,
      source: '--service-values',
      value: () => value,
      fingerprint: print('file', value),
    });
  const queues = (seeds.queues ?? []).map(({ name, attributes }) => ({
    name,
    attributes,
    fingerprint: print('template', attributes),
  }));
  const topics = (seeds.sns?.topics ?? []).map((topic) => ({ ...topic, fingerprint: print('template', topic) }));
  const subscriptions = (seeds.sns?.subscriptions ?? []).map((subscription) => ({
    ...subscription,
    fingerprint: print('template', subscription),
  }));
  const streams = (seeds.kinesis ?? []).map((stream) => ({ ...stream, fingerprint: print('template', stream) }));
  return {
    parameters: [...parameters.values()],
    secrets: [...secrets.values()],
    queues,
    topics,
    subscriptions,
    streams,
  };
};

/** Starts the local services on `dataDir` (in memory without one), seeded; their endpoints, by variable name. */
export const startLocalServices = async (options: {
  dataDir: string | undefined;
  seeds: ServiceSeeds;
  values?: ServiceValues | undefined;
  log: (line: string) => void;
  /** How the services send to each other by ARN: each registers what it takes (by default, among themselves). */
  targets?: Targets;
  /** How a service runs a function synchronously (an event source mapping's poller); by default, none is served. */
  invoke?: Invoker;
  /** State machines' Wait states and Retry intervals pass at once (--skip-waits). */
  skipWaits?: boolean;
}) => {
  const { dataDir, log, targets = new Targets() } = options;
  const key = loadDataKey(dataDir);
  const parameters = parameterStore(stateFile(dataDir, 'ssm', emptyParameters), key);
  const secrets = secretsManager(stateFile(dataDir, 'secretsmanager', emptySecrets), key);
  // A queue's URL names the server's address, known once it listens (before any request).
  let address = '';
  const queues = simpleQueueService(stateFile(dataDir, 'sqs', emptyQueues), () => address, log);
  targets.register('sqs', queues.receive);
  // Every schedule's one clock (Scheduler's, and EventBridge rules' ScheduleExpression); started by `start` alone.
  const clock = new ScheduleClock(stateFile(dataDir, 'schedules', emptyClock), log);
  const scheduler = localScheduler(clock, targets, log);
  // The event source mappings' pollers, once the runner asks (its functions served), again after each seeding.
  let polling = false;
  let mappings = options.seeds.mappings ?? [];
  let pollers: ReturnType<typeof startQueuePollers> | undefined;
  // The stream mappings' pollers read each stream over its service's API, at its URL (known once it listens).
  let streamMappings = options.seeds.streamMappings ?? [];
  let databaseAppend: AppendListener = () => () => undefined;
  // Kinesis's appends, and the database's stream writes (once the runner gives the database).
  const onAppend: AppendListener = (arn, listener) =>
    arn.startsWith('arn:aws:kinesis:') ? kinesis.onAppend(arn, listener) : databaseAppend(arn, listener);
  const streams = streamPolling({
    targets,
    log,
    checkpoints: stateFile(dataDir, 'stream-checkpoints', emptyCheckpoints),
    onAppend,
  });
  // The pipes' sources, read by pollers of their own whose "function" is the pipe (pipes.ts).
  let pipes = options.seeds.pipes ?? [];
  let pipePollers: ReturnType<typeof startQueuePollers> | undefined;
  const pipeStreams = streamPolling({
    targets,
    log,
    checkpoints: stateFile(dataDir, 'pipe-checkpoints', emptyCheckpoints),
    onAppend,
  });
  const poll = () => {
    const { invoke } = options;
    if (!polling || !invoke) return;
    void pollers?.stop();
    pollers = startQueuePollers(mappings, { consumer: queues.consumer, invoke, log });
    const dynamodb = urls.dynamodbstreams;
    streams.restart(streamMappings, invoke, { kinesis: urls.kinesis, dynamodb });
    const running = pipes.filter((pipe) => pipe.running);
    for (const pipe of pipes.filter((candidate) => !candidate.running))
      log(`${pipe.source}: pipe ${pipe.name}: DesiredState is STOPPED: its source is not read`);
    const pipeInvoke = pipeInvoker({ pipes: () => pipes, invoke, targets, endpoints: stateEndpoints, log });
    void pipePollers?.stop();
    const pipeQueues = running.flatMap(({ queue }) => (queue ? [queue] : []));
    pipePollers = startQueuePollers(pipeQueues, { consumer: queues.consumer, invoke: pipeInvoke, log });
    const pipeStreamMappings = running.flatMap(({ stream }) => (stream ? [stream] : []));
    pipeStreams.restart(pipeStreamMappings, pipeInvoke, { kinesis: urls.kinesis, dynamodb });
  };
  // SNS speaks the query protocol, on a port of its own; its links (SubscribeURL, SigningCertURL) name that address.
  const signingKey = snsSigningKey(stateFile(dataDir, 'sns-signing', emptySigning));
  let snsAddress = '';
  const topics = simpleNotificationService(stateFile(dataDir, 'sns', emptyTopics), {
    targets,
    key: signingKey,
    url: () => snsAddress,
    log,
  });
  targets.register('sns', topics.receive);
  const sns = await serveQueryServices([topics.service], log);
  snsAddress = sns.url;
  const events = eventBridge(targets, log);
  targets.register('events', events.receive);
  // A log group target's events, written to the runner's log (log-groups.ts).
  targets.register('logs', logGroupReceiver(log));
  const kinesis = kinesisDataStreams(stateFile(dataDir, 'kinesis', emptyStreams));
  const s3 = simpleStorageService(dataDir, log);
  // Step Functions calls the other services over their endpoints (the database's, once the runner gives it).
  let databaseEndpoint: string | undefined;
  /** Each service's address, by its name; `dynamodbstreams`, the database's, once the runner sets it. */
  type Urls = Record<Exclude<ServiceName, 'dynamodbstreams'>, string> & { dynamodbstreams?: string };
  let urls = {} as Urls;
  function stateEndpoints() {
    return { ...urls, ...(databaseEndpoint !== undefined && { dynamodb: databaseEndpoint }) };
  }
  const states = stepFunctions({
    log,
    invoke: () => options.invoke,
    endpoints: stateEndpoints,
    skipWaits: options.skipWaits ?? false,
    store: stateFile(dataDir, 'states', emptyExecutions),
  });
  targets.register('states', states.receive);
  let streamSeeds = options.seeds.kinesis ?? [];
  const notifications = s3Notifications(targets, stateFile(dataDir, 's3-notifications', emptyTested), log);
  s3.onChange(notifications.notify);
  const seed = (seeds: ServiceSeeds) => {
    const chosen = seedsOf(seeds, options.values, key);
    const said = [
      ...parameters.seed(chosen.parameters),
      ...secrets.seed(chosen.secrets),
      ...queues.seed(chosen.queues),
      ...topics.seed(chosen.topics, chosen.subscriptions),
      ...events.seed(seeds.events),
      ...kinesis.seed(chosen.streams),
      ...s3.seed(seeds.buckets ?? []),
      ...states.seed(seeds.stateMachines ?? [], seeds.activities ?? []),
      ...notifications.seed(seeds.s3Notifications),
    ];
    streamSeeds = seeds.kinesis ?? [];
    for (const line of [...seeds.notices, ...said]) log(line);
    scheduler.seed(seeds.schedules ?? []);
    // The rules with a ScheduleExpression, timed by the same clock.
    clock.set('events', events.scheduledRules());
    mappings = seeds.mappings ?? [];
    streamMappings = seeds.streamMappings ?? [];
    pipes = seeds.pipes ?? [];
    poll();
  };
  try {
    seed(options.seeds);
  } catch (error) {
    await sns.close();
    throw error;
  }
  // Each service on a loopback port of its own, as each has an endpoint of its own on AWS; SQS's older clients'
  // query protocol on SQS's.
  const sqs = {
    ...queues.service,
    query: (request: IncomingMessage, body: Buffer) => sqsQueryAnswer(queues.service, request, body),
  };
  const servers = await serveEach(
    [parameters.service, secrets.service, sqs, events.service, kinesis.service, states.service],
    log,
  ).catch(async (error) => {
    await sns.close();
    throw error;
  });
  const s3Server = await s3.serve().catch(async (error) => {
    await Promise.all([...servers.map((server) => server.close()), sns.close()]);
    throw error;
  });
  urls = {
    ...Object.fromEntries(servers.map(({ name, url }) => [name, url])),
    sns: sns.url,
    s3: s3Server.url,
  } as Urls;
  address = urls.sqs;
  return {
    /** Each service's address, by its name (`ssm`, `secretsmanager`, `sqs`, `sns`, `events`, `kinesis`, `s3`). */
    urls,
    /** The variables that point a function's SDK at each service. */
    endpoints: {
      AWS_ENDPOINT_URL_SSM: urls.ssm,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: urls.secretsmanager,
      AWS_ENDPOINT_URL_SQS: urls.sqs,
      AWS_ENDPOINT_URL_SNS: urls.sns,
      AWS_ENDPOINT_URL_EVENTBRIDGE: urls.events,
      AWS_ENDPOINT_URL_KINESIS: urls.kinesis,
      AWS_ENDPOINT_URL_S3: urls.s3,
      AWS_ENDPOINT_URL_SFN: urls.states,
    },
    /** The template's queues, with their URLs and the functions their enabled mappings feed: the banner's. */
    queues: () =>
      (options.seeds.queues ?? []).map(({ name, source }) => ({
        name,
        source,
        url: queues.queueUrl(name),
        feeds: mappings.filter((m) => m.enabled && m.queueArn === queueArn(name)).map((m) => m.functionName),
      })),
    /** The stream mappings, each as the banner says it. */
    streamMappings: () => streamMappings.map(streamMappingLine),
    /** The SNS topics, each with its subscriptions: the banner's. */
    topics: topics.topics,
    /** Seeds again from a reloaded app's template (start --watch). */
    seed,
    /** The schedules' clock: `start` starts it; the banner lists it; `fire` fires one now. */
    clock,
    /** Starts polling the queues of the template's event source mappings (`start`, once its functions are served). */
    pollQueues: () => {
      polling = true;
      poll();
    },
    /** The EventBridge buses and rules, for the banner; its schedule rules, for the schedules' clock. */
    events,
    /** The template's Kinesis streams, for the banner; `onAppend(streamArn, listener)` wakes a stream poller. */
    kinesis: {
      streams: () => {
        const shards = new Map(kinesis.streams().map(({ name, shards }) => [name, shards]));
        return streamSeeds.map(({ name, source }) => ({
          name,
          source,
          arn: streamArn(name),
          shards: shards.get(name),
        }));
      },
      onAppend: kinesis.onAppend,
    },
    /** Calls `listener` after each change the local S3 stores (s3-change.ts); returns what stops it. */
    onChange: s3.onChange,
    /** The local S3's buckets, for the banner. */
    buckets: s3.buckets,
    /** The state machines, for the banner. */
    stateMachines: states.machines,
    /**
     * The database, once it serves: state machines' DynamoDB tasks call it, DynamoDB Streams answers on its port, and
     * its stream writes wake the stream pollers.
     */
    useDatabase: (database: { endpoint: string; onAppend: AppendListener }) => {
      databaseEndpoint = database.endpoint;
      urls.dynamodbstreams = database.endpoint;
      databaseAppend = database.onAppend;
    },
    /** The buckets' notifications, for the banner. */
    s3Notifications: notifications.banner,
    close: async () => {
      await states.close();
      await Promise.all([pollers?.stop(), streams.close(), pipePollers?.stop(), pipeStreams.close()]);
      queues.close();
      clock.stop();
      events.close();
      await Promise.all([...servers.map((server) => server.close()), sns.close(), s3Server.close()]);
      await topics.settled();
      await notifications.settled();
    },
  };
};

/** Calls `listener` once records are appended to the stream `arn`; returns how to stop. */
type AppendListener = (arn: string, listener: () => void) => () => void;

/** The services served, by name (`dynamodbstreams`: the database's port, set by the runner once it is up). */
type ServiceName =
  | 'ssm'
  | 'secretsmanager'
  | 'sqs'
  | 'sns'
  | 'events'
  | 'kinesis'
  | 's3'
  | 'states'
  | 'dynamodbstreams';

/** Each of `services` on a server of its own; one that cannot listen closes those that did. */
const serveEach = async (services: JsonService[], log: (line: string) => void) => {
  const servers: (Awaited<ReturnType<typeof serveJsonServices>> & { name: string })[] = [];
  try {
    for (const service of services) servers.push({ name: service.name, ...(await serveJsonServices([service], log)) });
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()));
    throw error;
  }
  return servers;
};
