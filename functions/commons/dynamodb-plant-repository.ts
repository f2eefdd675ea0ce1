import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDbClient, DynamoDbError } from './dynamodb-client.ts';
import { InvalidRequestError, UnavailableError } from './errors.ts';
import type { CreateResult, PlantPage, PlantRecord, PlantRepository } from './plant-repository.ts';

const toItem = (record: PlantRecord): Record<string, AttributeValue> => ({
  // N holds 38 digits, so every int64 round-trips exactly as its decimal text.
  id: { N: record.id.toString() },
  name: { S: record.name },
  ...(record.tag === undefined ? {} : { tag: { S: record.tag } }),
  createdAt: { S: record.createdAt },
  createdBy: { S: record.createdBy },
});

const fromItem = (item: Record<string, AttributeValue>): PlantRecord => {
  const { id, name, tag, createdAt, createdBy } = item;
  if (id?.N === undefined || name?.S === undefined || createdAt?.S === undefined || createdBy?.S === undefined) {
    throw new Error(`Stored plant item is malformed: attributes ${Object.keys(item).join(', ')}`);
  }
  return {
    id: BigInt(id.N),
    name: name.S,
    ...(tag?.S === undefined ? {} : { tag: tag.S }),
    createdAt: createdAt.S,
    createdBy: createdBy.S,
  };
};

/**
 * A page's cursor is the last id of the page (DynamoDB's LastEvaluatedKey, the table's only key), as base64url text:
 * opaque to clients, so the table's key may change without changing the API.
 */
const cursorOf = (key: Record<string, AttributeValue> | undefined) =>
  key?.id?.N === undefined ? undefined : Buffer.from(key.id.N).toString('base64url');

const keyOf = (cursor: string): Record<string, AttributeValue> => {
  const id = Buffer.from(cursor, 'base64url').toString();
  const int64 = /^-?(0|[1-9]\d{0,18})$/.test(id) && BigInt(id) >= -(2n ** 63n) && BigInt(id) < 2n ** 63n;
  if (!int64 || cursorOf({ id: { N: id } }) !== cursor) {
    throw new InvalidRequestError('query parameter cursor: is not a cursor this API gave');
  }
  return { id: { N: id } };
};

/**
 * DynamoDB errors a retry may cure become UnavailableError (503): throttling, server faults, and requests DynamoDB
 * never answered (refused, reset or timed out), once the client's own retries are spent. The rest stay as they are
 * (500).
 */
const translated = (error: unknown, signal: AbortSignal | undefined): unknown => {
  if (signal?.aborted) {
    return new UnavailableError('The database did not answer in time, please retry', {
      cause: error,
    });
  }
  if (error instanceof DynamoDbError && error.retryable) {
    return new UnavailableError('The database is unavailable, please retry', { cause: error });
  }
  return error;
};

/**
 * The PlantRepository on a DynamoDB table keyed by `id` (N). The happy path is one conditional PutItem; only when the id
 * exists does a consistent GetItem read the stored plant. One request could do both
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`, as Powertools' idempotency store does), but dynalite, the local
 * DynamoDB, does not implement it: the second request keeps the conflict path the same locally and on AWS, and costs
 * only on a repeated id.
 */
export const dynamoDbPlantRepository = (client: DynamoDbClient, tableName: string): PlantRepository => ({
  async createIfAbsent(record: PlantRecord, signal?: AbortSignal): Promise<CreateResult> {
    try {
      const put = { TableName: tableName, Item: toItem(record), ConditionExpression: 'attribute_not_exists(id)' };
      await client.call('PutItem', put, signal);
      return { created: true };
    } catch (error) {
      const exists = error instanceof DynamoDbError && error.name === 'ConditionalCheckFailedException';
      if (!exists) throw translated(error, signal);
    }
    let stored: Record<string, AttributeValue> | undefined;
    try {
      const get = { TableName: tableName, Key: { id: { N: record.id.toString() } }, ConsistentRead: true };
      ({ Item: stored } = await client.call<{ Item?: Record<string, AttributeValue> }>('GetItem', get, signal));
    } catch (error) {
      throw translated(error, signal);
    }
    // Plants are never deleted through the API, so this is a race with an operator: let the client retry.
    if (!stored) throw new UnavailableError('The plant changed while it was being stored, please retry');
    return { created: false, existing: fromItem(stored) };
  },

  async get(id: bigint, signal?: AbortSignal): Promise<PlantRecord | undefined> {
    const get = { TableName: tableName, Key: { id: { N: id.toString() } }, ConsistentRead: true };
    try {
      const { Item } = await client.call<{ Item?: Record<string, AttributeValue> }>('GetItem', get, signal);
      return Item && fromItem(Item);
    } catch (error) {
      throw translated(error, signal);
    }
  },

  async list(
    { limit, cursor }: { limit: number; cursor?: string | undefined },
    signal?: AbortSignal,
  ): Promise<PlantPage> {
    const scan = {
      TableName: tableName,
      Limit: limit,
      // A page may be read just after its plants were created: the read is strongly consistent, as `get`'s is.
      ConsistentRead: true,
      ...(cursor !== undefined && { ExclusiveStartKey: keyOf(cursor) }),
    };
    try {
      const { Items = [], LastEvaluatedKey } = await client.call<{
        Items?: Record<string, AttributeValue>[];
        LastEvaluatedKey?: Record<string, AttributeValue>;
      }>('Scan', scan, signal);
      const next = cursorOf(LastEvaluatedKey);
      return { plants: Items.map(fromItem), ...(next !== undefined && { cursor: next }) };
    } catch (error) {
      throw translated(error, signal);
    }
  },
});
