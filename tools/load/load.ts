// Load on the local runner as a user runs it (`npm start`'s script in its own process, on a data folder), with a mix
// of requests whose every answer is checked, the table scanned afterwards against the answers, memory measured, and
// rounds in which the runner is killed (SIGKILL) under load and restarted on the same folder.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { type AttributeValue, DynamoDBClient, ListTablesCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { spawnInGroup, stopGroups } from 'test-support/process-group';
import { projectRoot } from '../../infra/project-root.ts';

export interface LoadOptions {
  seconds: number;
  connections: number;
  /** Seconds of load before the memory baseline is taken. */
  warmUpSeconds: number;
  /** Rounds of load in which the runner is killed with SIGKILL and restarted on the same folder. */
  killRounds: number;
  /** Acknowledged creates in a round before the kill. */
  killAfterCreates: number;
  /**
   * Modules every process of the measured runner imports first, as it imports memory-probe.mjs: the load test's leak
   * (test/tools/load/fixtures/leak.mjs).
   */
  imports?: string[];
  /**
   * Keep the load on past `seconds` until every process can be judged: 10 samples of each after the warm-up (on a
   * busy machine a round takes longer than its interval, and an execution environment may start late; `seconds`
   * alone would leave too few).
   */
  untilJudged?: boolean;
  /** Seconds between two rounds of memory samples; 2 by default. */
  sampleEverySeconds?: number;
  log?: (line: string) => void;
}

type Kind = 'create' | 'retry' | 'conflict' | 'invalid';
const expectedStatus: Record<Kind, number> = { create: 200, retry: 200, conflict: 409, invalid: 400 };

export interface LoadResult {
  requests: number;
  byKind: Record<Kind, number>;
  statuses: Record<string, number>;
  serverErrors: number;
  socketErrors: number;
  /** Answers whose status was not the one the mix expects for their kind. */
  unexpected: { kind: Kind; status: number }[];
  requestsPerSecond: number;
  /** Creates answered 200. */
  acknowledged: number;
  stored: number;
  missing: string[];
  extra: string[];
  /**
   * Each process of the runner (the runner, its database, each execution environment), sampled every two seconds (or
   * `sampleEverySeconds`) right after a full garbage collection in it (memory-probe.mjs).
   */
  memory: ProcessMemory[];
  killRounds: { acknowledged: number; missing: string[]; socketErrors: number }[];
}

/** Samples a process's memory is judged on: the first ones after the warm-up, and the last ones. */
const windowSamples = 5;

/** Memory in MB at one moment, or the medians of a window of samples. */
export interface MemoryFigures {
  /** Heap used plus external memory (Buffers), after a full collection: what a leak grows. */
  liveMb: number;
  /** The heap V8 holds, used or not (heapTotal): it grows toward its limits with no leak. */
  heapMb: number;
  /** Resident memory, which also holds what V8 keeps for later (a young generation that grew, free pages). */
  rssMb: number;
}

/** One process of the runner under load, and its memory over the run. */
export interface ProcessMemory {
  /** `runner`, `database`, or an execution environment's function id and pid. */
  name: string;
  kind: 'runner' | 'database' | 'environment';
  samples: ({ at: number } & MemoryFigures)[];
  /**
   * Medians of the first 5 samples after the warm-up and of the last 5, and the growth of the live memory between
   * them; absent for a process whose samples do not fill both windows (an environment started late or replaced).
   */
  afterWarmUp?: MemoryFigures;
  atEnd?: MemoryFigures;
  growth?: number;
}

interface Runner {
  child: ChildProcess;
  url: string;
  token: string;
  databaseEndpoint: string;
  exited: Promise<unknown>;
}

/** `npm start`'s script on a free port; the functions' own logs off, so the runner's log stays small. */
const startRunner = async (dataDir: string, measured?: { probePort: number; imports: string[] }): Promise<Runner> => {
  const envVars = join(dataDir, '..', `${Date.now()}-env.json`);
  // Measured, every process of the runner imports memory-probe.mjs (and `imports`): the runner and its database
  // (which inherits the runner's flags) through the runner's command line, each execution environment through its
  // function's NODE_OPTIONS, as a user sets Node's options on Lambda. The runner gets gc() as the environments have it
  // (--expose-gc).
  const modules = measured && [
    pathToFileURL(join(import.meta.dirname, 'memory-probe.mjs')).href,
    ...measured.imports.map((file) => pathToFileURL(file).href),
  ];
  const probeVariables = measured && {
    NODE_OPTIONS: (modules ?? []).map((module) => `--import="${module}"`).join(' '),
    PLANT_STORE_MEMORY_PROBE: String(measured.probePort),
  };
  writeFileSync(
    envVars,
    JSON.stringify({
      CreatePlantFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT', ...probeVariables },
      BearerAuthorizerFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT', ...probeVariables },
    }),
  );
  const child = spawnInGroup(
    process.execPath,
    [
      ...(modules ? ['--expose-gc', ...modules.map((module) => `--import=${module}`)] : []),
      'node_modules/.bin/cdk-local-runner',
      'start',
      ...['--port', '0', '--data-dir', dataDir, '--env-vars', envVars],
    ],
    {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(measured && { env: { ...process.env, PLANT_STORE_MEMORY_PROBE: String(measured.probePort) } }),
    },
  );
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    // The request log is read (and dropped) as it comes, so a full pipe never stalls the runner.
    child.stdout?.on('data', (chunk: Buffer) => {
      if (output.length < 100_000) output += chunk.toString();
      if (/^curl .*$/m.test(output)) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then(() => reject(new Error(`the runner exited before serving:\n${output}`)));
  });
  const url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  const token = /Authorization: Bearer ([\w.-]+)/.exec(output)?.[1];
  const databaseEndpoint = /^Database: (http:\/\/127\.0\.0\.1:\d+)/m.exec(output)?.[1];
  if (!url || !token || !databaseEndpoint) throw new Error(`no URL, token or database in:\n${output}`);
  return { child, url, token, databaseEndpoint, exited };
};

/** A process's answer to the probe: its pid, its script and first argument, its memory in bytes. */
interface ProbeAnswer {
  pid: number;
  argv: string[];
  /** An execution environment's AWS_LAMBDA_FUNCTION_NAME. */
  functionName?: string;
  afterGc: boolean;
  heapUsed: number;
  heapTotal: number;
  external: number;
  rss: number;
}

/**
 * The load tool's end of memory-probe.mjs: a loopback server each probed process connects to as it starts. `sample()`
 * asks every connected process to collect its garbage and report, and waits for each answer, or for the process to
 * end (a replaced environment).
 */
const startMemoryProbe = async () => {
  const waiting = new Map<Socket, ((answer: ProbeAnswer | undefined) => void)[]>();
  const server = createServer((socket) => {
    waiting.set(socket, []);
    createInterface({ input: socket }).on('line', (line) =>
      waiting.get(socket)?.shift()?.(JSON.parse(line) as ProbeAnswer),
    );
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const resolve of waiting.get(socket) ?? []) resolve(undefined);
      waiting.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    sample: async () => {
      const answers = await Promise.all(
        [...waiting].map(
          ([socket, queue]) =>
            new Promise<ProbeAnswer | undefined>((resolve) => {
              queue.push(resolve);
              socket.write('\n');
            }),
        ),
      );
      return answers.filter((answer) => answer !== undefined);
    },
    close: () => {
      for (const socket of waiting.keys()) socket.destroy();
      server.close();
    },
  };
};

/** Which process answered: the runner, its database, or an execution environment (the function it runs). */
const processOf = ({ pid, argv: [script = ''], functionName }: ProbeAnswer) => {
  if (functionName !== undefined) return { name: `${functionName} ${pid}`, kind: 'environment' as const };
  // database/process.ts run from the sources, process.js from the package's build (dist/).
  return /database\/process\.[jt]s$/.test(script)
    ? { name: 'database', kind: 'database' as const }
    : { name: 'runner', kind: 'runner' as const };
};

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const mediansOf = (samples: MemoryFigures[]): MemoryFigures => ({
  liveMb: medianOf(samples.map(({ liveMb }) => liveMb)),
  heapMb: medianOf(samples.map(({ heapMb }) => heapMb)),
  rssMb: medianOf(samples.map(({ rssMb }) => rssMb)),
});

/** A process's windows and growth, when its samples after the warm-up fill both windows without overlapping. */
const judged = (memory: ProcessMemory, warmUpMs: number): ProcessMemory => {
  const steady = memory.samples.filter(({ at }) => at >= warmUpMs);
  if (steady.length < 2 * windowSamples) return memory;
  const afterWarmUp = mediansOf(steady.slice(0, windowSamples));
  const atEnd = mediansOf(steady.slice(-windowSamples));
  return { ...memory, afterWarmUp, atEnd, growth: atEnd.liveMb / afterWarmUp.liveMb - 1 };
};

const describeMemory = ({ name, afterWarmUp, atEnd, growth }: ProcessMemory) =>
  afterWarmUp && atEnd && growth !== undefined
    ? `${name}: live ${afterWarmUp.liveMb.toFixed(1)} -> ${atEnd.liveMb.toFixed(1)} MB ` +
      `(${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %), heap held ${afterWarmUp.heapMb.toFixed(0)} -> ` +
      `${atEnd.heapMb.toFixed(0)} MB, resident ${afterWarmUp.rssMb.toFixed(0)} -> ${atEnd.rssMb.toFixed(0)} MB`
    : `${name}: too few samples to judge`;

/** Every plant in the runner's table: id -> name. */
const scanTable = async (databaseEndpoint: string) => {
  const client = new DynamoDBClient({
    endpoint: databaseEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const plants = new Map<string, string>();
  const { TableNames = [] } = await client.send(new ListTablesCommand({}));
  for (const TableName of TableNames) {
    for await (const page of paginateScan({ client }, { TableName, ConsistentRead: true })) {
      for (const item of page.Items ?? []) {
        const { id, name } = item as Record<string, AttributeValue>;
        if (id?.N !== undefined) plants.set(id.N, name?.S ?? '');
      }
    }
  }
  client.destroy();
  return plants;
};

/**
 * Drives `runner` with `connections` loops until `until()` says stop: about 70 % new ids, 15 % exact retries of
 * created plants, 10 % conflicts (a created id, another name), 5 % invalid bodies. Every answer is recorded.
 */
const drive = async (
  runner: Runner,
  connections: number,
  until: () => boolean,
  idBase: number,
  onAcknowledged: () => void = () => undefined,
) => {
  const created: { id: string; name: string }[] = [];
  const result = {
    byKind: { create: 0, retry: 0, conflict: 0, invalid: 0 } as Record<Kind, number>,
    statuses: {} as Record<string, number>,
    unexpected: [] as { kind: Kind; status: number }[],
    socketErrors: 0,
    acknowledged: new Map<string, string>(),
  };
  let nextId = idBase;
  const one = async () => {
    const roll = Math.random();
    const known = created.length > 0 ? created[Math.floor(Math.random() * created.length)] : undefined;
    const kind: Kind = !known || roll < 0.7 ? 'create' : roll < 0.85 ? 'retry' : roll < 0.95 ? 'conflict' : 'invalid';
    const plant =
      kind === 'create'
        ? { id: String(nextId++), name: `plant ${nextId}` }
        : kind === 'conflict' && known
          ? { id: known.id, name: `${known.name} (changed)` }
          : (known ?? { id: '0', name: '' });
    const body =
      kind === 'invalid' ? `{"id": "${plant.id}", "name": 5}` : `{"id": ${plant.id}, "name": "${plant.name}"}`;
    result.byKind[kind] += 1;
    let status: number;
    try {
      const response = await fetch(`${runner.url}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${runner.token}`, 'Content-Type': 'application/json' },
        body,
      });
      status = response.status;
      await response.arrayBuffer();
    } catch {
      result.socketErrors += 1;
      return;
    }
    result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    if (status !== expectedStatus[kind]) result.unexpected.push({ kind, status });
    if (kind === 'create' && status === 200) {
      created.push(plant);
      result.acknowledged.set(plant.id, plant.name);
      onAcknowledged();
    }
  };
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (!until()) await one();
    }),
  );
  return result;
};

const seconds = (value: number) => {
  const end = Date.now() + value * 1000;
  return () => Date.now() >= end;
};

const measure = async (options: LoadOptions, dataDir: string): Promise<LoadResult> => {
  const log = options.log ?? (() => undefined);
  const probe = await startMemoryProbe();
  const runner = await startRunner(join(dataDir, 'data'), { probePort: probe.port, imports: options.imports ?? [] });
  const started = Date.now();
  // Every two seconds (sampleEverySeconds), each process collects its garbage and reports (memory-probe.mjs). After a full collection the
  // heap holds only what is reachable: while that stays level, a process keeps nothing more, however its resident
  // memory grows.
  const processes = new Map<number, ProcessMemory>();
  let withoutGc: number | undefined;
  let roundsAfterWarmUp = 0;
  const probeAll = async () => {
    const at = Date.now() - started;
    if (at >= options.warmUpSeconds * 1000) roundsAfterWarmUp += 1;
    for (const answer of await probe.sample()) {
      if (!answer.afterGc) withoutGc = answer.pid;
      const memory = processes.get(answer.pid) ?? { ...processOf(answer), samples: [] };
      processes.set(answer.pid, memory);
      const mb = (bytes: number) => bytes / 2 ** 20;
      memory.samples.push({
        at,
        liveMb: mb(answer.heapUsed + answer.external),
        heapMb: mb(answer.heapTotal),
        rssMb: mb(answer.rss),
      });
    }
  };
  // A sample that takes longer than the interval (a busy machine) is not overlapped by the next.
  let probing: Promise<void> | undefined;
  const sampling = setInterval(
    () => {
      probing ??= probeAll().finally(() => {
        probing = undefined;
      });
    },
    (options.sampleEverySeconds ?? 2) * 1000,
  );
  const timeUp = seconds(options.seconds);
  // Every process judged, one that started after the warm-up (an execution environment a busy machine started late)
  // included.
  const judgeable = () =>
    !options.untilJudged ||
    (roundsAfterWarmUp >= 2 * windowSamples &&
      [...processes.values()].every((one) => judged(one, options.warmUpSeconds * 1000).growth !== undefined));
  const load = await drive(runner, options.connections, () => timeUp() && judgeable(), 1);
  clearInterval(sampling);
  await probing;
  probe.close();
  if (withoutGc !== undefined) throw new Error(`process ${withoutGc} has no gc(): its memory cannot be judged`);
  const elapsedSeconds = (Date.now() - started) / 1000;
  const order = { runner: 0, database: 1, environment: 2 };
  const memory = [...processes.values()]
    .map((one) => judged(one, options.warmUpSeconds * 1000))
    .sort((a, b) => order[a.kind] - order[b.kind] || a.name.localeCompare(b.name));
  log(
    `memory after a full GC, ${windowSamples} samples after ${options.warmUpSeconds} s of warm-up -> the last ${windowSamples} (medians):`,
  );
  for (const one of memory) log(`  ${describeMemory(one)}`);
  const together = (window: 'afterWarmUp' | 'atEnd') =>
    memory.filter(({ kind }) => kind !== 'database').reduce((sum, one) => sum + (one[window]?.rssMb ?? 0), 0);
  log(
    `  the runner and its environments together, resident (not judged): ${together('afterWarmUp').toFixed(0)} -> ` +
      `${together('atEnd').toFixed(0)} MB (${((together('atEnd') / together('afterWarmUp') - 1) * 100).toFixed(0)} %)`,
  );
  const table = await scanTable(runner.databaseEndpoint);
  runner.child.kill('SIGTERM');
  await runner.exited;

  const missing = [...load.acknowledged].filter(([id, name]) => table.get(id) !== name).map(([id]) => id);
  const extra = [...table.keys()].filter((id) => !load.acknowledged.has(id));
  const requests = Object.values(load.byKind).reduce((sum, count) => sum + count, 0);
  log(`${requests} requests in ${elapsedSeconds.toFixed(0)} s at ${options.connections} connections`);

  // Kill rounds: SIGKILL under load, restart on the same folder, every acknowledged create must be there.
  const killRounds: LoadResult['killRounds'] = [];
  const roundsDir = join(dataDir, 'kill-rounds');
  const acknowledged = new Map<string, string>();
  for (let round = 1; round <= options.killRounds; round += 1) {
    const victim = await startRunner(roundsDir);
    let killed = false;
    // Killed once it has acknowledged enough creates: a fact, not a time.
    let acknowledgedCount = 0;
    let enough: () => void = () => undefined;
    const acknowledgedEnough = new Promise<void>((resolve) => {
      enough = resolve;
    });
    const driving = drive(
      victim,
      options.connections,
      () => killed,
      round * 10_000_000,
      () => {
        acknowledgedCount += 1;
        if (acknowledgedCount === options.killAfterCreates) enough();
      },
    );
    await acknowledgedEnough;
    victim.child.kill('SIGKILL');
    killed = true;
    const roundResult = await driving;
    await victim.exited;
    for (const [id, name] of roundResult.acknowledged) acknowledged.set(id, name);
    const survivor = await startRunner(roundsDir);
    const stored = await scanTable(survivor.databaseEndpoint);
    survivor.child.kill('SIGTERM');
    await survivor.exited;
    const lost = [...acknowledged].filter(([id, name]) => stored.get(id) !== name).map(([id]) => id);
    killRounds.push({ acknowledged: acknowledged.size, missing: lost, socketErrors: roundResult.socketErrors });
    log(`kill round ${round}: ${acknowledged.size} acknowledged creates so far, ${lost.length} missing after restart`);
  }

  return {
    requests,
    byKind: load.byKind,
    statuses: load.statuses,
    serverErrors: Object.entries(load.statuses)
      .filter(([status]) => Number(status) >= 500)
      .reduce((sum, [, count]) => sum + count, 0),
    socketErrors: load.socketErrors,
    unexpected: load.unexpected,
    requestsPerSecond: requests / elapsedSeconds,
    acknowledged: load.acknowledged.size,
    stored: table.size,
    missing,
    extra,
    memory,
    killRounds,
  };
};

/** The load and its kill rounds; every runner it started is stopped with all it started, whatever happens. */
export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  // The data folders of every runner, removed at the end: left in the system's temporary folder, each kept megabytes
  // of LevelDB for nothing, and a new one there fails the teardown of any `npm test` running meanwhile.
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-load-'));
  try {
    return await measure(options, dataDir);
  } finally {
    stopGroups();
    // Retried: a database process just sent SIGKILL may still be writing in it.
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
};
