// The local DynamoDB: dynalite (the DynamoDB API on LevelDB) in this process, on loopback, with the template's tables.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';
import type { LocalTable } from './template.ts';

export interface LocalDatabase {
  endpoint: string;
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

/**
 * dynalite fails on a LevelDB folder another process holds with an uncaught "Database is closed"; opening it first
 * (with the same LevelDB binding dynalite uses) turns that into a clear message.
 */
const ensureNotInUse = async (path: string) => {
  const db = new ClassicLevel(path);
  try {
    await db.open();
  } catch (error) {
    const locked = (error as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED';
    throw locked
      ? new Error(`${path} is in use by another process (is \`npm start\` already running with this data folder?)`)
      : error;
  }
  await db.close();
};

/** Starts dynalite, on disk under `dataDir` (or in memory without one), and creates the tables that are missing. */
export const startDatabase = async (tables: LocalTable[], dataDir: string | undefined): Promise<LocalDatabase> => {
  const path = dataDir === undefined ? undefined : join(dataDir, 'dynamodb');
  if (path) {
    mkdirSync(path, { recursive: true });
    await ensureNotInUse(path);
  }
  const server = dynalite({ ...(path && { path }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
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
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    // Closing the server closes LevelDB too, so every acknowledged write is on disk.
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
};
