// `npm run bench`: the performance figures of the synthesized stack, side by side with their references, measured in
// one run on this machine and written to docs/benchmarks.md. Loopback only. Targets are reported (met or not), never
// asserted by the tests.
import { execFile, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FunctionDefinition } from 'cdk-local-runner';
import { localVariables, serveJwks, signDevToken, startRunner } from 'cdk-local-runner';
import { build } from 'esbuild';
import { parse } from 'yaml';
import { projectRoot } from '../../infra/project-root.ts';
import { startDatabaseGate } from '../../test/helpers/database-gate.ts';
import { createPlantEvent, tokenAuthorizerEvent } from '../../test/helpers/events.ts';
import { startDiscoveryIssuer } from '../../test/helpers/token-issuer.ts';
import { type ColdSubject, measureColdStarts, runColdProbe } from './cold-starts.ts';
import { monthlyRows, monthlyTable, storagePerGbMonth, xRayRecordedShare } from './cost-model.ts';
import { cpuProfileSummary, profiling } from './cpu-profile.ts';
import { measureEventDelivery } from './event-delivery.ts';
import { measureFunctionUrl } from './function-url.ts';
import { measureHandlerEdits } from './handler-edit.ts';
import { shownMemory } from './memory.ts';
import { priceList } from './prices.ts';
import { type Role, timesByRole, treeTimes } from './process-cpu.ts';
import { measureS3Notifications } from './s3-notifications.ts';
import { measureS3Objects } from './s3-objects.ts';
import { median, medianAndSpread, medianRatio, percentile } from './statistics.ts';
import { measureStepFunctions } from './step-functions.ts';
import { measureStorageFirst } from './storage-first.ts';
import { measureStreamDelivery } from './stream-delivery.ts';
import type { WarmResults, WarmSettings } from './warm-paths.ts';
import { measureWebSocket } from './websocket-scenario.ts';

const here = new URL('./', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
const cloudAssemblyDir = join(scratch, 'cdk.out');
const coldRuns = 20;
const progress = (line: string) => console.error(`[bench] ${line}`);
/** Plant ids far from anything else's, one range per use. */
let nextId = 7_000_000_000_000 + (Date.now() % 1_000_000) * 1_000_000;
const ids = (count: number) => {
  const first = nextId;
  nextId += count;
  return first;
};

// 1. What a fresh clone does first: the real `cdk synth` (bundling both functions, cdk-nag); then serving it.
progress('cdk synth');
let started = performance.now();
await promisify(execFile)('node_modules/.bin/cdk', ['synth', '--quiet', '--output', cloudAssemblyDir], {
  cwd: projectRoot,
  env: { ...process.env, CDK_HOME: join(scratch, '.cdk-home') },
});
const synthMs = performance.now() - started;
const initTimes: string[] = [];
started = performance.now();
const maxWorkers = 4;
const api = await startRunner({
  cloudAssemblyDir,
  port: 0,
  dataDir: join(scratch, 'data'),
  maxWorkers,
  log: (line) =>
    initTimes.push(...[...line.matchAll(/cold start (\w+), init (\d+) ms/g)].map(([, id, ms]) => `${id} ${ms} ms`)),
});
const readyMs = performance.now() - started;
const token = await signDevToken(api.signingKey, { sub: 'bench', scope: 'plants/write', expiresIn: '1h' });
started = performance.now();
const first = await fetch(`${api.url}/plants`, {
  method: 'POST',
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ id: ids(1), name: 'Monstera deliciosa' }),
});
if (first.status !== 200) throw new Error(`the first request answered ${first.status}: ${await first.text()}`);
const firstRequestMs = performance.now() - started;

/** A Node.js function of the template, with its module. */
const fnById = (id: string) => {
  const fn = api.app.functions.get(id);
  if (fn?.code.language !== 'nodejs') throw new Error(`no Node.js function ${id} in the template`);
  return { ...fn, ...fn.code };
};
const createPlantFn = fnById('CreatePlantFunction');
const authorizerFn = fnById('BearerAuthorizerFunction');

// DynamoDB requests are counted by a gate in front of the runner's database, always open.
const countingGate = await startDatabaseGate();
countingGate.forwardTo(api.databaseEndpoint);
countingGate.open();
const dynamoDbRequests = countingGate.actions;
const countingEndpoint = countingGate.endpoint;
const jwks = await serveJwks(() => [api.signingKey.publicJwk]);
// The same key behind an issuer found by OpenID Connect Discovery (no JWKS_URI): one more request at cold start.
const discovered = await startDiscoveryIssuer([api.signingKey.publicJwk], '');
const discoveredToken = await signDevToken(
  { ...api.signingKey, issuer: discovered.issuer },
  { sub: 'bench', scope: 'plants/write', expiresIn: '1h' },
);
const environmentOf = (fn: FunctionDefinition, endpoint: string) =>
  localVariables(fn, api.app, { identity: api.signingKey, jwksUri: jwks.jwksUri }, { database: endpoint });

// 2. The references: the hello-world floor and the textbook createPlant, bundled as the stack bundles its functions.
progress('bundling the references');
const schemas = (parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as { components: { schemas: object } })
  .components.schemas;
const textbookEventSchema = JSON.parse(
  JSON.stringify({
    type: 'object',
    required: ['body'],
    properties: { body: { $ref: '#/definitions/NewPlant' } },
    definitions: schemas,
  }).replaceAll('#/components/schemas/', '#/definitions/'),
  // The textbook compiles the schema as written; Ajv knows no int64/int32 formats, so they go.
  (key, value) => (key === 'format' ? undefined : value),
);
// The machine's load when the run starts and ends (one-minute averages): figures from a busy machine read otherwise.
const loadAtStart = loadavg()[0] ?? 0;
const floorModule = join(scratch, 'floor', 'index.mjs');
mkdirSync(join(scratch, 'floor'));
writeFileSync(floorModule, 'export const handler = async () => ({ statusCode: 200, body: \'{"hello":"world"}\' });\n');
const textbookModule = join(scratch, 'textbook', 'index.mjs');
await build({
  entryPoints: [join(here, 'textbook-create-plant.ts')],
  outfile: textbookModule,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  define: { TEXTBOOK_EVENT_SCHEMA: JSON.stringify(textbookEventSchema) },
  logLevel: 'error',
});

// 3. Cold starts, interleaved.
const base64Body = (id: number) => ({
  body: Buffer.from(JSON.stringify({ id, name: 'Monstera deliciosa', tag: 'aroid' })).toString('base64'),
  isBase64Encoded: true,
});
const answered = (status: number) => (answer: unknown) => {
  const statusCode = (answer as { statusCode?: unknown }).statusCode;
  if (statusCode !== status) throw new Error(`cold start answered ${JSON.stringify(answer)}`);
};
const createPlantEnv = environmentOf(createPlantFn, countingEndpoint);
const allowed = (answer: unknown) => {
  const effect = (answer as { policyDocument?: { Statement?: { Effect?: string }[] } }).policyDocument?.Statement?.[0];
  if (effect?.Effect !== 'Allow') throw new Error(`the authorizer answered ${JSON.stringify(answer)}`);
};
const { JWKS_URI: _given, ...authorizerEnv } = environmentOf(authorizerFn, countingEndpoint);
const coldIds = ids(10 * coldRuns);
const subjects: ColdSubject[] = [
  {
    name: 'floor',
    modulePath: floorModule,
    exportName: 'handler',
    env: createPlantEnv,
    event: () => ({}),
    check: answered(200),
  },
  {
    name: 'createPlant',
    modulePath: createPlantFn.modulePath,
    exportName: createPlantFn.exportName,
    env: createPlantEnv,
    event: (run) => createPlantEvent(base64Body(coldIds + run)),
    check: answered(200),
  },
  {
    name: 'textbook',
    modulePath: textbookModule,
    exportName: 'handler',
    env: createPlantEnv,
    event: (run) => createPlantEvent(base64Body(coldIds + coldRuns + run)),
    check: answered(200),
  },
  {
    name: 'authorizer',
    modulePath: authorizerFn.modulePath,
    exportName: authorizerFn.exportName,
    env: environmentOf(authorizerFn, countingEndpoint),
    event: () => tokenAuthorizerEvent(`Bearer ${token}`),
    check: allowed,
  },
  {
    name: 'authorizer-discovery',
    modulePath: authorizerFn.modulePath,
    exportName: authorizerFn.exportName,
    env: { ...authorizerEnv, JWT_ISSUER: discovered.issuer },
    event: () => tokenAuthorizerEvent(`Bearer ${discoveredToken}`),
    check: allowed,
  },
];
progress(`cold starts: ${coldRuns} interleaved runs of ${subjects.length} subjects`);
const cold = await measureColdStarts(subjects, coldRuns, scratch);
const coldOf = (name: string) => cold.get(name) ?? { loadedMs: [], answeredMs: [] };

// DynamoDB requests of one more cold create: a new id, then the same id again (the conflict path reads the plant).
const createSubject = subjects[1] as ColdSubject;
dynamoDbRequests.length = 0;
await runColdProbe({ ...createSubject, event: () => createPlantEvent(base64Body(coldIds + 3 * coldRuns)) }, 0, scratch);
const requestsFirstCreate = [...dynamoDbRequests];
dynamoDbRequests.length = 0;
await runColdProbe(
  { ...createSubject, event: () => createPlantEvent(base64Body(coldIds + 3 * coldRuns)), check: () => undefined },
  1,
  scratch,
);
const requestsRepeatedId = [...dynamoDbRequests];

// 4. Warm paths and the ceiling, in their own process; then the runner and the ceiling under the same load.
progress('warm paths');
const settingsFile = join(scratch, 'warm-settings.json');
const warmSettings: WarmSettings = {
  createPlant: { modulePath: createPlantFn.modulePath, env: environmentOf(createPlantFn, api.databaseEndpoint) },
  authorizer: {
    modulePath: authorizerFn.modulePath,
    env: environmentOf(authorizerFn, api.databaseEndpoint),
    token,
    issuer: api.signingKey.issuer,
    jwksUri: jwks.jwksUri,
  },
  firstId: ids(100_000),
};
writeFileSync(settingsFile, JSON.stringify(warmSettings));
const warmChild = fork(join(here, 'warm-paths.ts'), [settingsFile], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const { results: warm, ceilingUrl } = await new Promise<{ results: WarmResults; ceilingUrl: string }>(
  (resolve, reject) => {
    warmChild.once('message', (message) => resolve(message as { results: WarmResults; ceilingUrl: string }));
    warmChild.once('exit', (code) => reject(new Error(`warm-paths.ts exited with ${code}`)));
  },
);

const loadSeconds = 3;
const loadRounds = 3;
/** A load's figures; `cpu`: CPU time per request (µs) of each process serving, by role (process-cpu.ts). */
type LoadFigures = {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpu: Partial<Record<Role, number>>;
};
/**
 * The processes serving a load, their CPU time so far: for the runner, this process (the runner runs in it) with its
 * execution environments and the database; for the ceiling, its process (warm-paths.ts) with the same database.
 */
const servingTimes = (url: string) => {
  const mine = treeTimes(process.pid);
  const serving = new Set<Role>(url === ceilingUrl ? ['database'] : ['runner', 'environments', 'database']);
  for (const [pid, { role }] of mine) if (!serving.has(role)) mine.delete(pid);
  if (url !== ceilingUrl) return mine;
  for (const [pid, times] of treeTimes(warmChild.pid ?? 0)) mine.set(pid, { ...times, role: 'runner' });
  return mine;
};
const load = async (url: string, connections: number, seconds = loadSeconds) => {
  const before = servingTimes(url);
  const { stdout } = await promisify(execFile)(process.execPath, [
    join(here, 'http-load.ts'),
    url,
    token,
    String(connections),
    String(seconds),
    String(ids(200_000)),
  ]);
  const figures = JSON.parse(stdout) as Omit<LoadFigures, 'cpu'>;
  const cpu: Partial<Record<Role, number>> = {};
  for (const [role, { micros }] of timesByRole(before, servingTimes(url))) cpu[role] = micros / figures.requests;
  return { ...figures, cpu };
};
// Rounds alternate the ceiling and the runner, so that a change in the machine's speed falls on both alike.
const throughput: Record<string, LoadFigures[]> = {};
for (const connections of [1, 32]) {
  for (let round = 0; round < loadRounds; round += 1) {
    for (const [name, url] of [
      ['ceiling', ceilingUrl],
      ['runner', api.url],
    ] as const) {
      progress(`${name} at ${connections} connection(s), round ${round + 1}`);
      if (round === 0) await load(url, connections, 1); // warm-up: every execution environment started
      throughput[`${name}-${connections}`] = [
        ...(throughput[`${name}-${connections}`] ?? []),
        await load(url, connections),
      ];
    }
  }
}
const perSecond = (key: string) => (throughput[key] ?? []).map((figures) => figures.perSecond);
// The targets of the issue "Fast where users wait": 0.8x the ceiling at 1 connection, 0.6x at 32.
const runnerCeilingRatio = medianRatio(perSecond('runner-32'), perSecond('ceiling-32'));
const runnerCeilingOneRatio = medianRatio(perSecond('runner-1'), perSecond('ceiling-1'));
// The runner's own process (the gateway; the functions run in processes of their own), profiled under the same load.
const runnerProfile = runnerCeilingRatio < 0.6 ? await profiling(() => load(api.url, 32, 3)) : undefined;
warmChild.send('stop');
await api.close();
const webSocketRow = await measureWebSocket(
  scratch,
  { rounds: loadRounds, seconds: loadSeconds, maxWorkers },
  progress,
);
await countingGate.close();
await jwks.close();
await discovered.close();

// 4b. A function URL in front of a hello-world function: its first request and its throughput under the same load.
progress('a function URL');
const functionUrl = await measureFunctionUrl(scratch, maxWorkers, [1, 32], loadSeconds);
const urlLoadRow = (connections: number) => {
  const figures = functionUrl.load[connections];
  return figures
    ? `${figures.perSecond.toFixed(0)} req/s (p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms; the runner's CPU ${figures.cpuMicrosPerRequest.toFixed(0)} µs a request)`
    : 'not measured';
};

// 4c. Events to functions: a queue's event source mapping and a rule's target.
progress('events: SendMessage and PutEvents to the function');
const delivery = await measureEventDelivery(scratch);
progress('S3 notifications: PutObject to the function');
const putObjectToStartMs = await measureS3Notifications(scratch);
progress('DynamoDB Streams: a table write to the stream handler');
const writeToStreamStartMs = await measureStreamDelivery(scratch);
progress('a storage-first POST: API Gateway to SQS through a mapping template');
const storageFirst = await measureStorageFirst(scratch);
const latencyRow = (samples: number[]) =>
  `p50 ${median(samples).toFixed(1)} ms, p99 ${percentile(samples, 99).toFixed(1)} ms (${samples.length} one at a time, the function warm)`;

// 4c'. The local S3: objects a second in and out.
progress('S3: PutObject and GetObject at 1 KB and 1 MB');
const s3Objects = await measureS3Objects(scratch);
const s3Row = (size: '1 KB' | '1 MB') =>
  `${s3Objects.perSecond[size].put.toFixed(0)} in, ${s3Objects.perSecond[size].get.toFixed(0)} out`;
// 4c''. Step Functions: an express state machine of three states, run synchronously.
progress('Step Functions: an express execution of three states');
const stepFunctions = await measureStepFunctions(scratch);

// 4d. A handler's edit under `start --watch`: from the save to the new answer.
progress("a handler's edits under start --watch");
const handlerEdits = await measureHandlerEdits(5);
const editSeconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const editMedianMs = median(handlerEdits.editsMs);
const editMaxMs = Math.max(...handlerEdits.editsMs);

// 5. Where the time goes when a cold-start target is missed: a CPU profile of one more cold start.
const ratios = {
  createFloor: medianRatio(coldOf('createPlant').answeredMs, coldOf('floor').answeredMs),
  createTextbook: medianRatio(coldOf('createPlant').answeredMs, coldOf('textbook').answeredMs),
  authorizerFloor: medianRatio(coldOf('authorizer').answeredMs, coldOf('floor').answeredMs),
  authorizerDiscoveryFloor: medianRatio(coldOf('authorizer-discovery').answeredMs, coldOf('floor').answeredMs),
  authorizerBare: warm.authorizerMicros.p50 / warm.bareVerifyMicros.p50,
  runnerCeiling: runnerCeilingRatio,
  runnerCeilingOne: runnerCeilingOneRatio,
};
const profiles: string[] = [];
for (const [name, missed] of [
  ['createPlant', ratios.createFloor > 2.2 || ratios.createTextbook > 0.35],
  ['authorizer', ratios.authorizerFloor > 2],
] as const) {
  if (!missed) continue;
  const subject = subjects.find((candidate) => candidate.name === name) as ColdSubject;
  const profileDir = join(scratch, `profile-${name}`);
  await runColdProbe(
    {
      ...subject,
      nodeFlags: ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`],
      check: () => undefined,
    },
    99,
    scratch,
  );
  profiles.push(`### ${name} cold start: where its CPU time goes\n\n${cpuProfileSummary(profileDir)}`);
}
if (warm.refusedMicros.p50 > 12) {
  profiles.push(`### createPlant warm, the 400 path: 5,000 invocations\n\n${warm.profiles.refused}`);
}
if (ratios.authorizerBare > 1.1) {
  profiles.push(
    `### authorizer warm: 5,000 invocations (the bare verify is in aws-jwt-verify and Node: crypto)\n\n${warm.profiles.authorizer}`,
  );
}
if (runnerProfile) {
  profiles.push(`### the runner's process (the gateway) at 32 connections, 3 s\n\n${runnerProfile}`);
}

// 6. What it costs on AWS: every month, and per create at two traffic levels.
const template = JSON.parse(readFileSync(join(cloudAssemblyDir, `${api.app.stackName}.template.json`), 'utf8')) as {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
};
const stage = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::ApiGateway::Stage') as
  | { Properties?: { AccessLogSetting?: { Format?: string } } }
  | undefined;
// An access log line: its format with each $context variable written as a typical 12-character value.
const accessLogBytes = (stage?.Properties?.AccessLogSetting?.Format ?? '').replace(
  /\$context\.[\w.]+/g,
  'x'.repeat(12),
).length;
/** Lambda's own lines per invocation in the JSON log format (platform.start and platform.report), about. */
const platformLogBytes = 700;
const billedMs = (ms: number) => Math.max(1, Math.ceil(ms));
const gbSeconds = (memoryMb: number, ms: number) => (memoryMb / 1024) * (billedMs(ms) / 1000);
const createMs = warm.createMillis.p50;
const authorizerMs = warm.authorizerMicros.p50 / 1000;
const logGb = (accessLogBytes + 2 * platformLogBytes + warm.logBytes.create + warm.logBytes.authorizer) / 1024 ** 3;
/** The traffic levels the bill is shown at: creates a month. */
const trafficLevels = [10_000, 1_000_000];
/** Per request: [item, what is counted, USD for `perMonth` requests]. */
const requestRows: [string, string, (perMonth: number) => number][] = [
  ['API Gateway REST requests', 'each request', (n) => (n / 1e6) * priceList.apiGatewayRestPerMillion.usd],
  [
    'Lambda requests',
    'createPlant, and the authorizer when no cached policy (at most once a request)',
    (n) => ((2 * n) / 1e6) * priceList.lambdaRequestsPerMillion.usd,
  ],
  [
    'Lambda duration, createPlant',
    `${billedMs(createMs)} ms x ${createPlantFn.memoryMb} MB arm64 each`,
    (n) => n * gbSeconds(createPlantFn.memoryMb, createMs) * priceList.lambdaArmPerGbSecond.usd,
  ],
  [
    'Lambda duration, authorizer',
    `${billedMs(authorizerMs)} ms x ${authorizerFn.memoryMb} MB arm64 each (at most)`,
    (n) => n * gbSeconds(authorizerFn.memoryMb, authorizerMs) * priceList.lambdaArmPerGbSecond.usd,
  ],
  [
    'DynamoDB on-demand writes',
    `${requestsFirstCreate.length} conditional put each, 1 WRU (item < 1 KB)`,
    (n) => ((requestsFirstCreate.length * n) / 1e6) * priceList.dynamoDbOnDemandWritePerMillion.usd,
  ],
  [
    'CloudWatch Logs ingestion',
    `${Math.round(logGb * 1024 ** 3)} bytes each (access log ${accessLogBytes}, Lambda 2 x ${platformLogBytes}, functions ${warm.logBytes.create + warm.logBytes.authorizer})`,
    (n) => n * logGb * priceList.cloudWatchLogsIngestionPerGb.usd,
  ],
  [
    'X-Ray traces recorded',
    `the default rule: the first request each second and 5 % of the rest (${trafficLevels.map((n) => `${(xRayRecordedShare(n) * 100).toFixed(0)} %`).join(', ')} recorded)`,
    (n) => ((n * xRayRecordedShare(n)) / 1e6) * priceList.xRayTracesRecordedPerMillion.usd,
  ],
];
const monthly = monthlyRows(template);
const monthlyUsd = monthly.reduce((sum, [, , usd]) => sum + usd, 0);
const requestsUsd = (n: number) => requestRows.reduce((sum, [, , usd]) => sum + usd(n), 0);
const perMillionUsd = requestsUsd(1e6);

// Written, not measured: it quotes no figure, since the report's header says each is measured on its day; the
// profiles it introduces give this run's.
const boundsText = `- **Cold starts** are mostly Node itself: its bootstrap, the ES module loader and the built-in modules a function
  cannot do without: \`node:crypto\` (to sign DynamoDB requests or verify a token) and, in the authorizer,
  \`node:https\` with TLS (to fetch the JWKS on AWS). The profiles below give this run's share of each. The JWKS comes
  over plain http on loopback here: on AWS the TLS handshake adds to the authorizer's first answer.
- **The 400 path** is the Middy chain around the refusal: middy's JSON parser (its reviver guards against prototype
  pollution), the validator and its HttpError, Powertools' per-invocation context, middy's early-timeout timer (which
  gives the 503 before Lambda's timeout), and answering in the contract's Error JSON.
- **The authorizer's warm path** is ECDSA verification in \`node:crypto\`; what it adds to the bare verify is
  Powertools' context, Middy and the policy it builds.
- **The runner** does what the ceiling does, plus a gateway and two hand-overs between processes per request (each
  execution environment is a process of its own, as on Lambda, given one invocation at a time through the Runtime API's
  HTTP: the event and the result cross a socket). The rows' CPU time per request says where the machine goes: the
  runner's process (the gateway, and the Runtime API's two requests and two answers per invocation), the environments
  (the handler, the runtime's client, a wake-up for each event and each database answer) and dynalite. At 32 connections
  the ceiling serves many requests in a turn of its event loop and sends dynalite 32 at a time, while each environment
  answers one invocation at a time and dynalite sees at most one request per environment: there the environments and
  dynalite alone have cost more CPU per request than the whole ceiling in every run so far (the rows give this run's),
  so on a machine whose CPU is the limit no gateway, however cheap, brings the runner near the ceiling's throughput. At
  1 connection neither batches, and the runner's own process is most of the difference. In the gateway's profile the
  socket writes lead (each named below by its caller): handing an event to its environment, the Runtime API's 202 to a
  posted response, and the answer to the client; each wakes another process, so on a busy machine a write's time is
  mostly the CPU passing to the process it wakes (V8's profiler samples by the clock: a write during which the process
  is put aside counts the wait; the rows' CPU time per request counts only what the processes ran, mostly in user
  space). The rest is Node's HTTP parsing and streams, spread thin.`;

// 7. The report.
const met = (ok: boolean) => (ok ? 'met' : '**NOT met**');
const x = (ratio: number) => `${ratio.toFixed(2)}x`;
const bundleKiB = (path: string) => `${(statSync(path).size / 1024).toFixed(0)} KiB`;
const loadRow = (name: string, connections: number) => {
  const rounds = throughput[`${name}-${connections}`] ?? [];
  const p = (pick: (figures: LoadFigures) => number) => median(rounds.map(pick)).toFixed(2);
  const cpu = (role: Role) => median(rounds.map((figures) => figures.cpu[role] ?? 0));
  const all = median(rounds.map(({ cpu }) => Object.values(cpu).reduce((sum, micros) => sum + micros, 0)));
  const parts =
    name === 'ceiling'
      ? `its process ${cpu('runner').toFixed(0)}, the database ${cpu('database').toFixed(0)}`
      : `its process ${cpu('runner').toFixed(0)}, the environments ${cpu('environments').toFixed(0)}, the database ${cpu('database').toFixed(0)}`;
  return `${median(rounds.map((figures) => figures.perSecond)).toFixed(0)} req/s (rounds: ${rounds.map((figures) => figures.perSecond.toFixed(0)).join(', ')}; p50 ${p((figures) => figures.p50)} ms, p99 ${p((figures) => figures.p99)} ms; CPU ${all.toFixed(0)} µs a request: ${parts})`;
};
const coldRow = (name: string, label: string, versus: string) =>
  `| ${label} | ${medianAndSpread(coldOf(name).answeredMs, 'ms')} | ${medianAndSpread(coldOf(name).loadedMs, 'ms')} | ${versus} |`;
const targetRows = [
  ['createPlant cold / hello-world floor', x(ratios.createFloor), '<= 2.2x', ratios.createFloor <= 2.2],
  ['createPlant cold / textbook Middy build', x(ratios.createTextbook), '<= 0.35x', ratios.createTextbook <= 0.35],
  ['authorizer cold / floor (JWKS fetch included)', x(ratios.authorizerFloor), '<= 2.0x', ratios.authorizerFloor <= 2],
  [
    'createPlant warm, 400 path, p50',
    `${warm.refusedMicros.p50.toFixed(1)} µs`,
    '<= 12 µs',
    warm.refusedMicros.p50 <= 12,
  ],
  ['authorizer warm / bare library verify (p50)', x(ratios.authorizerBare), '<= 1.1x', ratios.authorizerBare <= 1.1],
  ['runner / in-process ceiling, 1 connection', x(ratios.runnerCeilingOne), '>= 0.8x', ratios.runnerCeilingOne >= 0.8],
  ['runner / in-process ceiling, 32 connections', x(ratios.runnerCeiling), '>= 0.6x', ratios.runnerCeiling >= 0.6],
  [
    "a handler's edit to its new answer (`start --watch`), median of 5",
    editSeconds(editMedianMs),
    '< 2 s',
    editMedianMs < 2000,
  ],
  [
    'DynamoDB requests per successful first create',
    String(requestsFirstCreate.length),
    '1',
    requestsFirstCreate.length === 1,
  ],
] as const;

const report = `# Benchmarks

Written by \`npm run bench\` (tools/bench/bench.ts) on ${new Date().toISOString().slice(0, 10)}: one run, this machine,
Node ${process.versions.node}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB,
load average ${loadAtStart.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end (one minute; other work on the machine counts).
Every figure is measured against the real synthesized bundles (\`cdk synth\` into a scratch folder) and dynalite. They
are local figures: Lambda's own machines differ, but what a bundle loads and computes is paid there too.

## Targets

| figure | measured | target | |
|---|---|---|---|
${targetRows.map(([figure, measured, target, ok]) => `| ${figure} | ${measured} | ${target} | ${met(ok)} |`).join('\n')}

## Cold starts

${coldRuns} runs of each, interleaved. A run is a fresh \`node\` process (tools/bench/cold-probe.mjs) that imports the
bundle and answers one event, timed from the process's start: what Lambda's init and first invoke pay. Ratios are
medians of the per-run ratios. createPlant and the textbook build store a new plant in dynalite; the authorizer fetches
the issuer's JWKS (loopback) and verifies an ES256 token: from the JWKS_URI it is given (as the stack's own Cognito pool
gives it), or first reading the issuer's OpenID Connect discovery document for it (an issuer given without jwksUri).

| bundle | first answer, median (IQR) | module loaded | compared |
|---|---|---|---|
${coldRow('floor', 'hello-world floor (returns a constant)', '1x')}
${coldRow('createPlant', `createPlant (${bundleKiB(createPlantFn.modulePath)})`, `${x(ratios.createFloor)} the floor, ${x(ratios.createTextbook)} the textbook`)}
${coldRow('textbook', `textbook Middy build: parser, validator with \`transpileSchema\` at init, AWS SDK v3 (${bundleKiB(textbookModule)})`, `${x(medianRatio(coldOf('textbook').answeredMs, coldOf('floor').answeredMs))} the floor`)}
${coldRow('authorizer', `authorizer, JWKS_URI given (${bundleKiB(authorizerFn.modulePath)})`, `${x(ratios.authorizerFloor)} the floor`)}
${coldRow('authorizer-discovery', 'authorizer, keys found by discovery', `${x(ratios.authorizerDiscoveryFloor)} the floor`)}

## Warm paths

Each bundle loaded once in a process of its own (logs to /dev/null), then each invocation timed.

| path | p50 | p99 | invocations |
|---|---|---|---|
| createPlant, 400 (a string id) | ${warm.refusedMicros.p50.toFixed(1)} µs | ${warm.refusedMicros.p99.toFixed(1)} µs | ${warm.refusedMicros.count} |
| createPlant, a new plant stored in dynalite | ${warm.createMillis.p50.toFixed(2)} ms | ${warm.createMillis.p99.toFixed(2)} ms | ${warm.createMillis.count} |
| authorizer, a valid ES256 token | ${warm.authorizerMicros.p50.toFixed(1)} µs | ${warm.authorizerMicros.p99.toFixed(1)} µs | ${warm.authorizerMicros.count} |
| bare aws-jwt-verify \`verify\`, same token, keys cached | ${warm.bareVerifyMicros.p50.toFixed(1)} µs | ${warm.bareVerifyMicros.p99.toFixed(1)} µs | ${warm.bareVerifyMicros.count} |

## The local runner

| measure | result |
|---|---|
| \`cdk synth\` (both bundles, cdk-nag) | ${(synthMs / 1000).toFixed(2)} s |
| start serving (database, issuer, gateway) | ${(readyMs / 1000).toFixed(2)} s |
| first request (both functions cold) | ${firstRequestMs.toFixed(0)} ms (init: ${initTimes.join(', ')}) |
| runner, 1 connection | ${loadRow('runner', 1)} |
| in-process ceiling, 1 connection | ${loadRow('ceiling', 1)} |
| runner, 32 connections (${maxWorkers} workers a function) | ${loadRow('runner', 32)} |
| in-process ceiling, 32 connections | ${loadRow('ceiling', 32)} |
| function URL (AuthType NONE, a hello-world function): start serving | ${(functionUrl.readyMs / 1000).toFixed(2)} s |
| function URL: first request (the function cold), ${functionUrl.firstRequestsMs.length} starts | median ${median(functionUrl.firstRequestsMs).toFixed(0)} ms (each: ${functionUrl.firstRequestsMs.map((ms) => ms.toFixed(0)).join(', ')}) |
| function URL, 1 connection | ${urlLoadRow(1)} |
| function URL, 32 connections (${maxWorkers} workers) | ${urlLoadRow(32)} |
| function URL: memory once serving | ${shownMemory(functionUrl.memory.ready)} |
| function URL: memory after the load | ${shownMemory(functionUrl.memory.loaded)} |
| function URL: memory after ${functionUrl.idleMs / 1000} s idle (its environments stopped) | ${shownMemory(functionUrl.memory.idle)} |
| WebSocket API, \`$default\` echo, 1 connection | ${webSocketRow(1)} |
| WebSocket API, \`$default\` echo, 32 connections (${maxWorkers} workers a function) | ${webSocketRow(32)} |
| SendMessage to the start of the function its event source mapping feeds | ${latencyRow(delivery.sendToStartMs)} |
| PutEvents to the start of the rule's target function | ${latencyRow(delivery.putToStartMs)} |
| PutObject (1 KB) to the start of the function its bucket notifies | ${latencyRow(putObjectToStartMs)} |
| PutItem to the start of the function its table's stream feeds (batch size 1) | ${latencyRow(writeToStreamStartMs)} |
| messages a second through a queue to its function, batch size 1 | ${delivery.perSecond[1].toFixed(0)} |
| messages a second through a queue to its function, batch size 10 | ${delivery.perSecond[10].toFixed(0)} |
| S3 objects a second, 1 KB (PutObject in, GetObject out; SDK v3, 8 in flight, a data folder on disk) | ${s3Row('1 KB')} |
| S3 objects a second, 1 MB (the same) | ${s3Row('1 MB')} |
| an express execution of three states (Pass, a Lambda task, Pass), StartSyncExecution to its answer | first ${stepFunctions.firstMs.toFixed(0)} ms (the function cold); then p50 ${median(stepFunctions.executionsMs).toFixed(1)} ms, p99 ${percentile(stepFunctions.executionsMs, 99).toFixed(1)} ms (${stepFunctions.executionsMs.length} one at a time) |
| a storage-first POST (REST API to SQS through a mapping template): its answer | p50 ${median(storageFirst.answeredMs).toFixed(2)} ms, p99 ${percentile(storageFirst.answeredMs, 99).toFixed(2)} ms (${storageFirst.answeredMs.length} one at a time) |
| a storage-first POST to the start of the function the queue feeds | ${latencyRow(storageFirst.postToStartMs)} |
| a handler's edit to its new answer (\`start --watch\`, createPlant, ${handlerEdits.editsMs.length} edits) | median ${editSeconds(editMedianMs)}, max ${editSeconds(editMaxMs)} (each: ${handlerEdits.editsMs.map(editSeconds).join(', ')}; ${[...new Set(handlerEdits.paths)].join(', ')}) |

The ceiling is node:http calling the same createPlant bundle in one process, against the same dynalite, with no
gateway (no authorizer cache, no access log, no execution environments). Load: tools/bench/http-load.ts, ${loadRounds} rounds of
${loadSeconds} s each, the ceiling and the runner in turn, after a 1 s warm-up; every request a new plant. Medians of the
rounds; the ratio is the median of the per-round ratios. "CPU" is the CPU time (user and system, Linux's
/proc/<pid>/stat, tools/bench/process-cpu.ts) of every process serving, over the round, per request: for the runner,
its process (the gateway and the Runtime APIs: it runs in the bench's process, idle but for it), its execution
environments and dynalite; for the ceiling, its process (node:http and createPlant together) and the same dynalite.
On a machine whose CPU is the limit, throughput follows the inverse of that total. On a busy machine a figure of throughput moves with the
other work; a CPU time per request moves less (tools/bench/gateway-ab.ts compares two builds of the runner by both,
in alternating rounds). The function URL (tools/bench/function-url.ts, synthesized
in-process): its first request on 5 fresh starts, each sent as soon as the runner serves; the same load as GETs, one round of ${loadSeconds} s after a 1 s warm-up; its memory (tools/bench/memory.ts, Linux's
/proc) once serving, after the load, and once every environment has stopped for idleness (\`--idle-timeout\`
shortened to ${functionUrl.idleMs / 1000} s; the runner runs in the bench's own process here, so its figure includes
the bench's). The WebSocket rows: a WebSocket API of its own whose
\`$default\` route echoes each message back (a route response from a function, tools/bench/websocket-scenario.ts),
loaded by tools/bench/websocket-load.ts (Node's WebSocket client, each connection sending its next message once the
echo of the last arrives), ${loadRounds} rounds of ${loadSeconds} s after a 1 s warm-up. The events rows
(tools/bench/event-delivery.ts, an app synthesized in-process): each function logs the time it starts and the ids it
was given; a latency is from just before the SDK's call to that time (one clock), one message or event at a time after
two that warm the function; the throughput sends 500 messages in batches of 10 (SendMessageBatch) as fast as the SDK
answers, counted until the start of the invocation carrying the last. The express execution (tools/bench/step-functions.ts,
an app synthesized in-process): StartSyncExecution timed from just before the SDK's call to its answer, the first
with the task's function cold, then one at a time. The PutObject row
(tools/bench/s3-notifications.ts, an app synthesized in-process): a bucket notifying a function of each object
created, one 1 KB object at a time after two that warm the function, from just before the SDK's PutObject to the time
the function logs as it starts (an asynchronous invocation, as S3's). The PutItem row (tools/bench/stream-delivery.ts,
the same way): a table whose stream feeds a function, one item at a time, from just before the SDK's PutItem to the
function's start. The storage-first rows
(tools/bench/storage-first.ts, synthesized in-process): a REST API's POST whose AWS integration sends the body to a
queue (SendMessage, its form written by the mapping template, signed as API Gateway signs), one at a time after two
that warm the queue's function; its answer timed by the client, its function's start as that function logs it. The handler's edit
(tools/bench/handler-edit.ts): a copy of the project served by \`start --watch\`, createPlant's conflict message edited
as an editor saves (a temporary file renamed over it), each timed from the save to the first answer carrying the new
text; the reload's way (its bundle rebuilt alone, or a synth) as the runner's log says it.

## DynamoDB requests

- a create of a new id: ${requestsFirstCreate.length} (${requestsFirstCreate.join(', ')})
- a create of an id that exists: ${requestsRepeatedId.length} (${requestsRepeatedId.join(', ')})

## What it costs on AWS

Public on-demand prices, ${priceList.region}, in effect since ${priceList.inEffectSince} (tools/bench/prices.ts links each
page; they were not re-read here, there is no network: check before budgeting). Free tiers are left out.

### Every month, before any request

Counted from the synthesized template (tools/bench/cost-model.ts; a test holds this table to it):

${monthlyTable(monthly)}

Plus ${storagePerGbMonth.toFixed(2)} USD a month per GB of plants stored (DynamoDB storage and point-in-time recovery). The
optional WAF and a custom domain's hosted zone: docs/deploy.md.

### Per create, at two traffic levels

Durations are the warm p50s above, rounded up to Lambda's 1 ms billing; on AWS, DynamoDB's own latency (single-digit
ms) adds to createPlant's.

| item | what is counted | ${trafficLevels.map((n) => `${n.toLocaleString('en-US')} a month, USD`).join(' | ')} |
|---|---|${trafficLevels.map(() => '---|').join('')}
${requestRows.map(([item, counted, usd]) => `| ${item} | ${counted} | ${trafficLevels.map((n) => usd(n).toFixed(3)).join(' | ')} |`).join('\n')}
| **requests** | | ${trafficLevels.map((n) => `**${requestsUsd(n).toFixed(2)}**`).join(' | ')} |
| **with the monthly costs** | | ${trafficLevels.map((n) => `**${(requestsUsd(n) + monthlyUsd).toFixed(2)}**`).join(' | ')} |

At a million creates API Gateway is ${((priceList.apiGatewayRestPerMillion.usd / perMillionUsd) * 100).toFixed(0)} % of the requests' part: the
functions' speed moves the bill little, their cold starts move the latency users see. Below one request a second,
X-Ray's default rule records every request.
${profiles.length > 0 ? `\n## What bounds the missed targets\n\n${boundsText}\n\n${profiles.join('\n\n')}\n` : ''}`;

writeFileSync(join(projectRoot, 'docs', 'benchmarks.md'), report);
console.log(report);
rmSync(scratch, { recursive: true, force: true });
progress(
  `written to docs/benchmarks.md (median cold createPlant ${median(coldOf('createPlant').answeredMs).toFixed(1)} ms)`,
);
