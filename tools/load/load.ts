// Load on the local runner as a user runs it (`npm start`'s script in its own process, on a data folder), with a mix
// of requests whose every answer is checked, the table scanned afterwards against the answers, memory measured, and
// rounds in which the runner is killed (SIGKILL) under load and restarted on the same folder.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttributeValue, DynamoDBClient, ListTablesCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { projectRoot } from '../../infra/project-root.ts';
import { spawnInGroup, stopGroups } from '../../test/helpers/process-group.ts';

export interface LoadOptions {
  seconds: number;
  connections: number;
  /** Seconds of load before the memory baseline is taken. */
  warmUpSeconds: number;
  /** Rounds of load in which the runner is killed with SIGKILL and restarted on the same folder. */
  killRounds: number;
  /** Acknowledged creates in a round before the kill. */
  killAfterCreates: number;
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
   * The runner's resident memory (it and its execution environments): medians of one-second samples over the 5 s
   * after the warm-up and over the last 5 s, and the growth between them. The database process is reported apart: it holds
   * every plant stored, so its memory grows with its data.
   */
  memory: {
    afterWarmUpMb: number;
    atEndMb: number;
    growth: number;
    database: { afterWarmUpMb: number; atEndMb: number };
  };
  killRounds: { acknowledged: number; missing: string[]; socketErrors: number }[];
}

interface Runner {
  child: ChildProcess;
  url: string;
  token: string;
  databaseEndpoint: string;
  exited: Promise<unknown>;
}

/** `npm start`'s script on a free port; the functions' own logs off, so the runner's log stays small. */
const startRunner = async (dataDir: string): Promise<Runner> => {
  const envVars = join(dataDir, '..', `${Date.now()}-env.json`);
  writeFileSync(
    envVars,
    JSON.stringify({
      CreatePlantFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
      BearerAuthorizerFunction: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
    }),
  );
  const child = spawnInGroup(
    process.execPath,
    ['infra/local/cli/start.ts', '--port', '0', '--data-dir', dataDir, '--env-vars', envVars],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
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

/**
 * Resident memory in MB, from /proc: the runner's with its execution environments' (a process each), and the
 * database process's.
 */
const residentMb = (pid: number) => {
  // An execution environment may end between the list and the read (replaced): it then counts for nothing.
  const read = (file: string) => {
    try {
      return readFileSync(file, 'latin1');
    } catch {
      return '';
    }
  };
  const rss = (id: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(read(`/proc/${id}/status`))?.[1] ?? 0);
  const children = read(`/proc/${pid}/task/${pid}/children`).split(' ').filter(Boolean).map(Number);
  const isDatabase = (id: number) => read(`/proc/${id}/cmdline`).includes('database/process.ts');
  const sum = (ids: number[]) => ids.reduce((total, id) => total + rss(id), 0) / 1024;
  return {
    runner: rss(pid) / 1024 + sum(children.filter((id) => !isDatabase(id))),
    database: sum(children.filter(isDatabase)),
  };
};

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

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

const measure = async (options: LoadOptions): Promise<LoadResult> => {
  const log = options.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-load-'));
  const runner = await startRunner(join(dataDir, 'data'));
  const started = Date.now();
  // One sample a second: a single reading catches the garbage collector anywhere in its cycle.
  const samples: { at: number; runner: number; database: number }[] = [];
  const sampling = setInterval(
    () => samples.push({ at: Date.now() - started, ...residentMb(runner.child.pid ?? 0) }),
    1000,
  );
  const load = await drive(runner, options.connections, seconds(options.seconds), 1);
  clearInterval(sampling);
  const elapsedSeconds = (Date.now() - started) / 1000;
  const warmUpMs = options.warmUpSeconds * 1000;
  const afterWarmUp = samples.filter(({ at }) => at >= warmUpMs && at < warmUpMs + 5_000);
  const atEnd = samples.slice(-5);
  const memory = {
    afterWarmUpMb: medianOf(afterWarmUp.map(({ runner }) => runner)),
    atEndMb: medianOf(atEnd.map(({ runner }) => runner)),
    database: {
      afterWarmUpMb: medianOf(afterWarmUp.map(({ database }) => database)),
      atEndMb: medianOf(atEnd.map(({ database }) => database)),
    },
  };
  log(
    `runner memory after ${options.warmUpSeconds} s of warm-up ${memory.afterWarmUpMb.toFixed(0)} MB, at the end ${memory.atEndMb.toFixed(0)} MB`,
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
    memory: { ...memory, growth: memory.afterWarmUpMb > 0 ? memory.atEndMb / memory.afterWarmUpMb - 1 : 0 },
    killRounds,
  };
};

/** The load and its kill rounds; every runner it started is stopped with all it started, whatever happens. */
export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  try {
    return await measure(options);
  } finally {
    stopGroups();
  }
};
