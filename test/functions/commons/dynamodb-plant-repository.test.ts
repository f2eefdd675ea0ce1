// The DynamoDB adapter against a real DynamoDB API (dynalite), no mocked SDK.
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
import { createDynamoDbClient, type DynamoDbClient } from '../../../functions/commons/dynamodb-client.ts';
import { dynamoDbPlantRepository } from '../../../functions/commons/dynamodb-plant-repository.ts';
import { UnavailableError } from '../../../functions/commons/errors.ts';
import type { PlantRecord } from '../../../functions/commons/plant-repository.ts';
import {
  databaseStartMs,
  dynaliteForHooks,
  type LocalDynamoDb,
  refusedEndpoint,
  storedPlant,
} from '../../helpers/dynalite.ts';

const tableName = 'plants-store-test';
const database = dynaliteForHooks(tableName);
let db: LocalDynamoDb;
/** The function's own client, on the test database (undefined until beforeAll has made it). */
let client: DynamoDbClient;
let madeClient: DynamoDbClient | undefined;

beforeAll(async () => {
  db = await database.start();
  client = createDynamoDbClient({ endpoint: db.endpoint });
  madeClient = client;
}, databaseStartMs);

// Also after a beforeAll that timed out: then no client was made, and the database is closed once it has started.
afterAll(async () => {
  madeClient?.destroy();
  await database.stop();
}, databaseStartMs);

const record = (overrides: Partial<PlantRecord> = {}): PlantRecord => ({
  id: 1n,
  name: 'Aloe',
  tag: 'succulent',
  createdAt: '2026-11-21T10:00:00.000Z',
  createdBy: 'user-1',
  ...overrides,
});

describe('dynamoDbPlantRepository', () => {
  test('stores a new plant with a conditional put and reports it created', async () => {
    const plants = dynamoDbPlantRepository(client, tableName);

    expect(await plants.createIfAbsent(record({ id: 100n }))).toEqual({ created: true });
    expect(await storedPlant(db.client, tableName, '100')).toEqual({
      id: { N: '100' },
      name: { S: 'Aloe' },
      tag: { S: 'succulent' },
      createdAt: { S: '2026-11-21T10:00:00.000Z' },
      createdBy: { S: 'user-1' },
    });
  });

  test('does not overwrite an existing id: it answers the plant stored first', async () => {
    const plants = dynamoDbPlantRepository(client, tableName);
    const first = record({ id: 101n, name: 'First', tag: undefined });
    await plants.createIfAbsent(first);

    const { tag: _omitted, ...stored } = first;
    expect(await plants.createIfAbsent(record({ id: 101n, name: 'Second', createdBy: 'user-2' }))).toEqual({
      created: false,
      existing: stored,
    });
  });

  test('keeps int64 ids exact at both ends of the range', async () => {
    const plants = dynamoDbPlantRepository(client, tableName);
    for (const id of [9223372036854775807n, -9223372036854775808n]) {
      await plants.createIfAbsent(record({ id }));
      expect(await plants.createIfAbsent(record({ id, name: 'again' }))).toMatchObject({
        created: false,
        existing: { id },
      });
    }
  });

  test('reports an unreachable database as UnavailableError with a retry delay', async () => {
    const client = createDynamoDbClient({ endpoint: await refusedEndpoint(), maxAttempts: 1 });
    const plants = dynamoDbPlantRepository(client, tableName);

    const failure = plants.createIfAbsent(record({ id: 102n }));

    await expect(failure).rejects.toBeInstanceOf(UnavailableError);
    await expect(failure).rejects.toMatchObject({ headers: { 'Retry-After': '1' } });
    client.destroy();
  });

  test('reports throttling as UnavailableError (dynalite never throttles: a loopback server answers as DynamoDB does)', async () => {
    const throttling = createServer((_request, response) => {
      response.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate exceeded' }),
      );
    });
    const client = createDynamoDbClient({ endpoint: await listenOnLoopback(throttling), maxAttempts: 1 });

    await expect(dynamoDbPlantRepository(client, tableName).createIfAbsent(record())).rejects.toBeInstanceOf(
      UnavailableError,
    );
    client.destroy();
    await new Promise((resolve) => throttling.close(resolve));
  });

  test("reports a DynamoDB that accepts connections but never answers as UnavailableError at the caller's deadline", async () => {
    const sockets = new Set<Socket>();
    const hanging = createServer(() => undefined).on('connection', (socket) => sockets.add(socket));
    // The handler's client takes its endpoint from the environment, as on Lambda.
    process.env.AWS_ENDPOINT_URL_DYNAMODB = await listenOnLoopback(hanging);
    const client = createDynamoDbClient();
    const deadline = new AbortController();

    const failure = dynamoDbPlantRepository(client, tableName).createIfAbsent(record(), deadline.signal);
    // Aborted once the request is surely on its way: when the database holds its connection.
    await new Promise((resolve) => hanging.once('request', resolve));
    deadline.abort();

    await expect(failure).rejects.toBeInstanceOf(UnavailableError);
    await expect(failure).rejects.toMatchObject({ message: 'The database did not answer in time, please retry' });
    delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
    client.destroy();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
  });

  test('a stored item that is not a plant (attributes missing) is an error, never answered as a plant', async () => {
    await db.client.send(
      new PutItemCommand({ TableName: tableName, Item: { id: { N: '103' }, colour: { S: 'green' } } }),
    );

    await expect(dynamoDbPlantRepository(client, tableName).createIfAbsent(record({ id: 103n }))).rejects.toThrow(
      'Stored plant item is malformed: attributes id, colour',
    );
  });

  test('a plant that vanishes between the refused put and its read is UnavailableError (retry)', async () => {
    // A database that refuses the put (the id exists) and then finds nothing for it: an operator deleted it.
    const vanishing = createServer((request, response) => {
      const action = String(request.headers['x-amz-target']).split('.')[1];
      request.resume();
      response.writeHead(action === 'PutItem' ? 400 : 200, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(
        action === 'PutItem'
          ? JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'x' })
          : '{}',
      );
    });
    const client = createDynamoDbClient({ endpoint: await listenOnLoopback(vanishing), maxAttempts: 1 });

    const failure = dynamoDbPlantRepository(client, tableName).createIfAbsent(record({ id: 104n }));

    await expect(failure).rejects.toBeInstanceOf(UnavailableError);
    await expect(failure).rejects.toMatchObject({
      message: 'The plant changed while it was being stored, please retry',
    });
    client.destroy();
    await new Promise((resolve) => vanishing.close(resolve));
  });

  test('lets errors a retry cannot cure (a missing table) through unchanged', async () => {
    const plants = dynamoDbPlantRepository(client, 'no-such-table');

    await expect(plants.createIfAbsent(record())).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('reads', () => {
  // A table of its own, so that a page holds only what these tests stored.
  const readTable = 'plants-read-test';
  const ids = [-9223372036854775808n, -1n, 0n, 7n, 9007199254740993n, 9223372036854775807n];
  const stored = ids.map((id) => record({ id, name: `Plant ${id}`, ...(id === 7n && { tag: undefined }) }));
  let plants: ReturnType<typeof dynamoDbPlantRepository>;

  beforeAll(async () => {
    await db.createPlantsTable(readTable);
    plants = dynamoDbPlantRepository(client, readTable);
    for (const plant of stored) await plants.createIfAbsent(plant);
  }, databaseStartMs);

  test('get answers the plant stored with an id, exactly at both ends of int64, and nothing for an absent one', async () => {
    for (const plant of stored) expect(await plants.get(plant.id)).toEqual(plant);
    expect(await plants.get(8n)).toBeUndefined();
  });

  test('list pages through every plant once, each page at most its limit, the last without a cursor', async () => {
    for (const limit of [1, 2, 4, 6, 100]) {
      const seen: PlantRecord[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await plants.list({ limit, cursor });
        expect(page.plants.length).toBeLessThanOrEqual(limit);
        seen.push(...page.plants);
        cursor = page.cursor;
        pages += 1;
        expect(pages).toBeLessThanOrEqual(ids.length + 1);
      } while (cursor !== undefined);
      const byId = (a: PlantRecord, b: PlantRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      expect({ limit, seen: seen.sort(byId) }).toEqual({ limit, seen: [...stored].sort(byId) });
    }
  });

  test('a cursor the API did not give is a 400 naming the parameter', async () => {
    for (const cursor of [
      'not-a-cursor',
      Buffer.from('1.5').toString('base64url'),
      Buffer.from('9223372036854775808').toString('base64url'),
      '',
    ]) {
      await expect(plants.list({ limit: 2, cursor })).rejects.toMatchObject({
        statusCode: 400,
        message: 'query parameter cursor: is not a cursor this API gave',
      });
    }
  });

  test('an unreachable database is a 503 for reads too', async () => {
    const refused = createDynamoDbClient({ endpoint: await refusedEndpoint(), maxAttempts: 1 });
    const unreachable = dynamoDbPlantRepository(refused, readTable);
    await expect(unreachable.get(1n)).rejects.toBeInstanceOf(UnavailableError);
    await expect(unreachable.list({ limit: 1 })).rejects.toBeInstanceOf(UnavailableError);
    refused.destroy();
  });
});
