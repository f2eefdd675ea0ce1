// The local DynamoDB: dynalite in a process of its own (process.ts) on loopback, with the template's tables.
// When that process fails (a full disk, a damaged value), the runner logs the cause and starts it again on the same
// port and folder: requests meanwhile find the database unavailable (createPlant answers 503 with Retry-After), the
// runner keeps serving, and it recovers by itself once the cause is gone.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { localAws } from '../app/intrinsics.ts';
import type { LocalTable } from '../app/template.ts';
import { makeDataDir } from '../data-folder.ts';
import { RunnerError } from '../errors.ts';
import type { DatabaseProcessMessage, DatabaseProcessOptions } from './process.ts';

export interface LocalDatabase {
  endpoint: string;
  /** Creates the tables that are missing (a reloaded app may declare new ones). */
  createTables(tables: LocalTable[]): Promise<void>;
  close(): Promise<void>;
}

/** The table properties CreateTable takes; settings that only matter on AWS (PITR, protection…) are left out. */
const createTableInput = ({ tableName, properties }: LocalTable): CreateTableCommandInput => {
  const { AttributeDefinitions, KeySchema, GlobalSecondaryIndexes, LocalSecondaryIndexes, ProvisionedThroughput } =
    properties as Partial<CreateTableCommandInput>;
  return {
    TableName: tableName,
    AttributeDefinitions,
    KeySchema,
    ...(GlobalSecondaryIndexes && { GlobalSecondaryIndexes }),
    ...(LocalSecondaryIndexes && { LocalSecondaryIndexes }),
    ...(ProvisionedThroughput ? { ProvisionedThroughput } : { BillingMode: 'PAY_PER_REQUEST' }),
  };
};

const processFile = new URL('./process.ts', import.meta.url).pathname;

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
      // Refused: the data folder cannot be served as it is (the message says what to do), the user's to fix.
      else reject(message.type === 'refused' ? new RunnerError(message.message) : new Error(message.message));
    });
    child.once('exit', (code, signal) => reject(new Error(`the database process exited (${code ?? signal})`)));
  });
  return { child, ready };
};

/**
 * Starts dynalite, on disk under `dataDir` (checked first: a damaged folder is refused with what to do) or in memory
 * without one, and creates the tables that are missing.
 */
export const startDatabase = async (
  tables: LocalTable[],
  dataDir: string | undefined,
  log: (line: string) => void,
): Promise<LocalDatabase> => {
  const path = dataDir === undefined ? undefined : join(dataDir, 'dynamodb');
  if (dataDir !== undefined) makeDataDir(dataDir);
  if (path) mkdirSync(path, { recursive: true });
  let closing = false;
  let current: ChildProcess;

  const supervise = (child: ChildProcess, port: number) => {
    current = child;
    const started = Date.now();
    let cause = 'it exited';
    child.on('message', (message: DatabaseProcessMessage) => {
      if (message.type === 'failed') cause = message.message;
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
    const { child, ready } = spawnDatabase({ path, port, check: false });
    supervise(child, port);
    ready.then(
      () => log('database is back'),
      () => undefined, // its exit restarts it again
    );
  };

  const first = spawnDatabase({ path, port: 0, check: true });
  const { port, notes } = await first.ready;
  for (const note of notes) log(`database folder: ${note}`);
  supervise(first.child, port);
  const endpoint = `http://127.0.0.1:${port}`;
  const createTables = async (tables: LocalTable[]) => {
    const client = new DynamoDBClient({
      endpoint,
      region: localAws.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      for (const table of tables) {
        try {
          await client.send(new CreateTableCommand(createTableInput(table)));
        } catch (error) {
          if (!(error instanceof ResourceInUseException)) throw error; // already there from an earlier run
        }
      }
      // A table is CREATING for a moment after CreateTable (in dynalite too: it turns ACTIVE on its next tick, later
      // on a busy machine), and answers ResourceNotFoundException meanwhile: each is served once DescribeTable says
      // it is ACTIVE. The waiter asks at once, then every second.
      for (const { tableName } of tables) {
        await waitUntilTableExists({ client, minDelay: 1, maxDelay: 1, maxWaitTime: 60 }, { TableName: tableName });
      }
    } finally {
      client.destroy();
    }
  };
  const close = async () => {
    closing = true;
    const child = current;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.connected) child.send('close');
    else child.kill();
    await exited;
  };
  try {
    await createTables(tables);
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoint, createTables, close };
};
