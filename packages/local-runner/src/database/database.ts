// The local DynamoDB: dynalite in a process of its own (process.ts) on loopback, with the template's tables.
// When that process fails (a full disk, a damaged value), the runner logs the cause and starts it again on the same
// port and folder: requests meanwhile find the database unavailable (createPlant answers 503 with Retry-After), the
// runner keeps serving, and it recovers by itself once the cause is gone.
import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { Table } from '../app/api.ts';
import { localAws } from '../app/local-aws.ts';
import { makeDataDir } from '../data-folder.ts';
import { RunnerError } from '../errors.ts';
import type { DatabaseProcessMessage, DatabaseProcessOptions } from './process.ts';
import { templateStreamLabel } from './streams/stream-log.ts';
import { streamLabelHeader } from './streams/table-streams.ts';

export interface Database {
  endpoint: string;
  /** Creates the tables that are missing (a reloaded app may declare new ones). */
  createTables(tables: Table[]): Promise<void>;
  /**
   * Calls `listener` each time records are appended to the stream `streamArn` (a stream reader's wake-up, so it need
   * not poll in a tight loop); returns what stops it. A database joined from another command's start never calls it.
   */
  onAppend(streamArn: string, listener: () => void): () => void;
  close(): Promise<void>;
}

/** The stream view the template's table asks for (`StreamSpecification.StreamViewType`), if any. */
const templateStreamView = ({ properties }: Table) =>
  (properties.StreamSpecification as { StreamViewType?: StreamViewType } | undefined)?.StreamViewType;
type StreamViewType = NonNullable<NonNullable<CreateTableCommandInput['StreamSpecification']>['StreamViewType']>;

/** The table properties CreateTable takes; settings that only matter on AWS (PITR, protection…) are left out. */
const createTableInput = (table: Table): CreateTableCommandInput => {
  const { tableName, properties } = table;
  const { AttributeDefinitions, KeySchema, GlobalSecondaryIndexes, LocalSecondaryIndexes, ProvisionedThroughput } =
    properties as Partial<CreateTableCommandInput>;
  const view = templateStreamView(table);
  return {
    TableName: tableName,
    AttributeDefinitions,
    KeySchema,
    ...(GlobalSecondaryIndexes && { GlobalSecondaryIndexes }),
    ...(LocalSecondaryIndexes && { LocalSecondaryIndexes }),
    ...(ProvisionedThroughput ? { ProvisionedThroughput } : { BillingMode: 'PAY_PER_REQUEST' }),
    ...(view && { StreamSpecification: { StreamEnabled: true, StreamViewType: view } }),
  };
};

/**
 * A table already there (from an earlier run) gets the stream its template now asks for, as CloudFormation would
 * update it: enabled, disabled, or replaced when its view changed. Its stream's label is the template's fixed one.
 */
const matchTemplateStream = async (client: DynamoDBClient, table: Table) => {
  const { Table: stored } = await client.send(new DescribeTableCommand({ TableName: table.tableName }));
  const spec = stored?.StreamSpecification;
  const has = spec?.StreamEnabled ? spec.StreamViewType : undefined;
  const wants = templateStreamView(table);
  if (has === wants) return;
  const update = (StreamSpecification: { StreamEnabled: boolean; StreamViewType?: StreamViewType }) =>
    client.send(new UpdateTableCommand({ TableName: table.tableName, StreamSpecification }));
  if (has) await update({ StreamEnabled: false });
  if (wants) await update({ StreamEnabled: true, StreamViewType: wants });
};

// process.ts beside this module, or process.js once built (dist/): the extension is this module's own.
const processFile = new URL(`./process${extname(import.meta.url)}`, import.meta.url).pathname;

/** A restart that fails again this soon waits this long before the next try, so a lasting cause costs no CPU. */
const restartBackoffMs = 1_000;

/** Starts the database process and resolves with its port once it serves; rejects with its reason if it cannot. */
const spawnDatabase = (options: DatabaseProcessOptions) => {
  const child = fork(processFile, [JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A small young generation: V8 would grow it to tens of megabytes under load, memory dynalite does not need.
    execArgv: [...process.execArgv, '--max-semi-space-size=2'],
  });
  const ready = new Promise<{ port: number; notes: string[] }>((resolve, reject) => {
    child.on('message', (message: DatabaseProcessMessage) => {
      if (message.type === 'ready') resolve(message);
      else if (message.type === 'note' || message.type === 'appended') return;
      // Refused: the data folder cannot be served as it is (the message says what to do), the user's to fix.
      else reject(message.type === 'refused' ? new RunnerError(message.message) : new Error(message.message));
    });
    child.once('exit', (code, signal) => reject(new Error(`the database process exited (${code ?? signal})`)));
  });
  return { child, ready };
};

/**
 * Where the database of a data folder serves while a `start` runs on it: `<dataDir>/database.json`, `{ pid, endpoint }`
 * (the runner's process), so that `invoke` shares it instead of failing on the folder's lock (LevelDB takes one
 * process).
 */
const runningFile = (dataDir: string) => join(dataDir, 'database.json');

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The database a running `start` serves `dataDir` with; undefined when none does (a file left by one killed). A file
 * that is not what a start writes is refused, named: whether a start serves the folder cannot be known from it.
 */
const runningDatabase = (dataDir: string) => {
  const file = runningFile(dataDir);
  if (!existsSync(file)) return undefined;
  let written: unknown;
  try {
    written = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    written = undefined;
  }
  const { pid, endpoint } = (written ?? {}) as { pid?: unknown; endpoint?: unknown };
  if (typeof pid !== 'number' || typeof endpoint !== 'string') {
    throw new RunnerError(
      `${file} is not what a running start writes ({ "pid": number, "endpoint": string }): stop the runner serving this data folder, or remove the file if none does`,
    );
  }
  return isAlive(pid) ? { pid, endpoint } : undefined;
};

/**
 * Starts dynalite, on disk under `dataDir` (checked first: a damaged folder is refused with what to do) or in memory
 * without one, and creates the tables that are missing.
 */
export const startDatabase = async (
  tables: Table[],
  dataDir: string | undefined,
  log: (line: string) => void,
  /** `announce`: say where it serves in the data folder (start); `join`: use the one a start serves, if any (invoke). */
  running: 'announce' | 'join' = 'announce',
  /** How often expired items (Time to Live) are deleted: every 5 seconds unless said. */
  { ttlSweepMs = 5_000 }: { ttlSweepMs?: number } = {},
): Promise<Database> => {
  const joined = running === 'join' && dataDir !== undefined ? runningDatabase(dataDir) : undefined;
  if (dataDir !== undefined && joined) return joinDatabase(tables, dataDir, joined, log);
  const path = dataDir === undefined ? undefined : join(dataDir, 'dynamodb');
  if (dataDir !== undefined) makeDataDir(dataDir);
  if (path) mkdirSync(path, { recursive: true });
  let closing = false;
  let current: ChildProcess;
  const appends = new EventEmitter().setMaxListeners(0);
  const onAppend = (streamArn: string, listener: () => void) => {
    appends.on(streamArn, listener);
    return () => void appends.off(streamArn, listener);
  };

  const supervise = (child: ChildProcess, port: number) => {
    current = child;
    const started = Date.now();
    let cause = 'it exited';
    child.on('message', (message: DatabaseProcessMessage) => {
      if (message.type === 'failed') cause = message.message;
      if (message.type === 'note') log(`database: ${message.message}`);
      if (message.type === 'appended') for (const arn of message.streamArns) appends.emit(arn);
    });
    child.once('exit', () => {
      if (closing) return;
      const delay = Date.now() - started < restartBackoffMs ? restartBackoffMs : 0;
      log(`database failed (${cause}); requests find it unavailable until it is back: restarting it`);
      setTimeout(() => restart(port), delay).unref();
    });
  };
  const restart = (port: number) => {
    if (closing) return;
    const { child, ready } = spawnDatabase({ path, port, check: false, ttlSweepMs });
    supervise(child, port);
    ready.then(
      () => log('database is back'),
      () => undefined, // its exit restarts it again
    );
  };

  const first = spawnDatabase({ path, port: 0, check: true, ttlSweepMs });
  const { port, notes } = await first.ready;
  for (const note of notes) log(`database folder: ${note}`);
  supervise(first.child, port);
  const endpoint = `http://127.0.0.1:${port}`;
  const createTables = (more: Table[]) => createTablesAt(endpoint, more);
  const announced = running === 'announce' && dataDir !== undefined ? runningFile(dataDir) : undefined;
  const close = async () => {
    closing = true;
    if (announced) rmSync(announced, { force: true });
    const child = current;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // A process dying as it is told to close (its disk full) breaks the channel: the send fails (EPIPE), and it is
    // killed instead of the failure ending the runner.
    if (child.connected)
      child.send('close', (error) => {
        if (error) child.kill();
      });
    else child.kill();
    await exited;
  };
  try {
    await createTables(tables);
  } catch (error) {
    await close();
    throw error;
  }
  if (announced) {
    // Written beside it, then renamed: a reader (invoke) never sees half a file.
    writeFileSync(`${announced}.${process.pid}`, JSON.stringify({ pid: process.pid, endpoint }));
    renameSync(`${announced}.${process.pid}`, announced);
  }
  return { endpoint, createTables, onAppend, close };
};

/** The table gets the Time to Live its template's `TimeToLiveSpecification` asks for (or none), as CloudFormation's. */
const matchTemplateTtl = async (client: DynamoDBClient, table: Table) => {
  const spec = table.properties.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined;
  const wants = spec?.Enabled === true ? spec.AttributeName : undefined;
  const { TimeToLiveDescription: stored } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: table.tableName }),
  );
  const has = stored?.TimeToLiveStatus === 'ENABLED' ? stored.AttributeName : undefined;
  if (has === wants) return;
  const update = (Enabled: boolean, AttributeName: string) =>
    client.send(
      new UpdateTimeToLiveCommand({ TableName: table.tableName, TimeToLiveSpecification: { Enabled, AttributeName } }),
    );
  if (has) await update(false, has);
  if (wants) await update(true, wants);
};

/** Creates what is missing of a reloaded (or another command's) app's tables, in the database at `endpoint`. */
const createTablesAt = async (endpoint: string, tables: Table[]) => {
  const client = new DynamoDBClient({
    endpoint,
    region: localAws.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // The runner's own requests name the label of a template's stream (streams/table-streams.ts).
  client.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) request.headers[streamLabelHeader] = templateStreamLabel;
      return next(args);
    },
    { step: 'build' },
  );
  try {
    for (const table of tables) {
      try {
        await client.send(new CreateTableCommand(createTableInput(table)));
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error; // already there from an earlier run
        await matchTemplateStream(client, table);
      }
    }
    // A table is CREATING for a moment after CreateTable (in dynalite too: it turns ACTIVE on its next tick, later
    // on a busy machine), and answers ResourceNotFoundException meanwhile: each is served once DescribeTable says
    // it is ACTIVE. The waiter asks at once, then every second.
    for (const { tableName } of tables) {
      await waitUntilTableExists({ client, minDelay: 1, maxDelay: 1, maxWaitTime: 60 }, { TableName: tableName });
    }
    for (const table of tables) await matchTemplateTtl(client, table);
  } finally {
    client.destroy();
  }
};

/** The database a running `start` serves the data folder with, shared: closing it leaves it to that runner. */
const joinDatabase = async (
  tables: Table[],
  dataDir: string,
  { pid, endpoint }: { pid: number; endpoint: string },
  log: (line: string) => void,
): Promise<Database> => {
  log(`database: the one the runner serving ${dataDir} runs (process ${pid}), at ${endpoint}`);
  try {
    await createTablesAt(endpoint, tables);
  } catch (error) {
    throw new RunnerError(
      `${runningFile(dataDir)} says runner process ${pid} serves this data folder's database at ${endpoint}, which does not answer (${(error as Error).message}): stop that runner, or remove the file if it is not one`,
    );
  }
  return {
    endpoint,
    createTables: (more) => createTablesAt(endpoint, more),
    onAppend: () => () => undefined,
    close: async () => undefined,
  };
};
