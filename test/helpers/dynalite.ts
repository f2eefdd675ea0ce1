// A real DynamoDB API (dynalite, in memory) on a loopback port, for tests that store plants.
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';

export interface LocalDynamoDb {
  endpoint: string;
  client: DynamoDBClient;
  createPlantsTable(name: string): Promise<void>;
  close(): Promise<void>;
}

export const startDynalite = async (): Promise<LocalDynamoDb> => {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, maxAttempts: 1 });
  return {
    endpoint,
    client,
    async createPlantsTable(name) {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
    },
    async close() {
      client.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
};

/** An endpoint where nothing listens: every request is refused. */
export const refusedEndpoint = async (): Promise<string> => {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};
