// A real DynamoDB API for tests that store plants: the local runner's own database (dynalite in its process, in
// memory), with the plants table as the CDK construct declares it (infra/constructs/plants-table.ts), not restated.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { listenOnLoopback, startDatabase } from 'cdk-local-runner';

export interface LocalDynamoDb {
  endpoint: string;
  client: DynamoDBClient;
  createPlantsTable(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The table's CloudFormation properties, as the construct synthesizes them: once per run, kept in the run's temporary
 * folder (TMPDIR, removed by its teardown), so that only the first file to start a database loads aws-cdk-lib.
 */
const plantsTableProperties = async (): Promise<Record<string, unknown>> => {
  const kept = join(tmpdir(), 'plants-table-properties.json');
  if (existsSync(kept)) return JSON.parse(readFileSync(kept, 'utf8')) as Record<string, unknown>;
  const [{ App, Stack }, { Template }, { PlantsTable }] = await Promise.all([
    import('aws-cdk-lib'),
    import('aws-cdk-lib/assertions'),
    import('../../infra/constructs/plants-table.ts'),
  ]);
  const stack = new Stack(new App(), 'PlantsTableOnly');
  new PlantsTable(stack, 'Plants');
  const [table] = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::Table'));
  if (!table) throw new Error('PlantsTable declares no table');
  // Written whole, then renamed: a file starting its database meanwhile reads all of it or none.
  const writing = `${kept}.${process.pid}`;
  writeFileSync(writing, JSON.stringify(table.Properties));
  renameSync(writing, kept);
  return table.Properties as Record<string, unknown>;
};

/**
 * How long a setup hook gives startDynalite: the database process starts and aws-cdk-lib loads (the table as the
 * construct declares it), which on a busy 2-core machine took over jest's default 30 s once in a few runs.
 */
export const databaseStartMs = 90_000;

/**
 * Dynalite in memory, with the plants table `tableName` created (more with createPlantsTable). In a file's hooks,
 * through dynaliteForHooks; kept for a caller that stops it itself.
 * @public
 */
export const startDynalite = async (tableName: string): Promise<LocalDynamoDb> => {
  const properties = await plantsTableProperties();
  const database = await startDatabase([], undefined, () => undefined);
  const client = new DynamoDBClient({ endpoint: database.endpoint, maxAttempts: 1 });
  const db: LocalDynamoDb = {
    endpoint: database.endpoint,
    client,
    // As the runner creates its tables: served once ACTIVE.
    createPlantsTable: (name) => database.createTables([{ id: 'Plants', tableName: name, properties }]),
    async close() {
      client.destroy();
      await database.close();
    },
  };
  try {
    await db.createPlantsTable(tableName);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
};

/**
 * startDynalite for a file's hooks: `start` in its beforeAll, `stop` in its afterAll (give both databaseStartMs).
 * When beforeAll times out while the database starts, jest runs afterAll at once and the start ends later: `stop`
 * waits for it and closes what it opened, so that no database holds the worker open, and adds no error of its own
 * (the time-out is the failure the run reports).
 */
export const dynaliteForHooks = (tableName: string) => {
  let starting: Promise<LocalDynamoDb> | undefined;
  return {
    start: (): Promise<LocalDynamoDb> => {
      starting = startDynalite(tableName);
      return starting;
    },
    stop: async () => {
      const started = await starting?.catch(() => undefined);
      await started?.close();
    },
  };
};

/** The item stored for the plant `id` in the plants table `tableName`, read consistently, or undefined. */
export const storedPlant = async (client: DynamoDBClient, tableName: string, id: string | bigint) => {
  const key = { id: { N: String(id) } };
  return (await client.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
};

/** An endpoint where nothing listens: every request is refused. */
export const refusedEndpoint = async (): Promise<string> => {
  const server = createServer();
  const url = await listenOnLoopback(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
};
