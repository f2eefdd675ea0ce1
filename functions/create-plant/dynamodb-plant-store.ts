import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import { UnavailableError } from '../commons/errors.ts';
import type { CreateResult, PlantRecord, PlantStore } from './plant-store.ts';

/**
 * The DynamoDB client for createPlant (one per cold start): up to three attempts of at most 1 s to connect and 2 s to
 * answer. What bounds a whole invocation is its deadline: the handler's abort signal stops every call at it.
 */
export const createDynamoDbClient = () =>
  new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
  });

/** Seconds a client should wait after DynamoDB was unavailable or throttling (the SDK has already retried). */
const retryAfterSeconds = 1;

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

type SdkError = Parameters<typeof isTransientError>[0];

/**
 * DynamoDB errors a retry may cure become UnavailableError (503): throttling, server faults, and requests DynamoDB
 * never answered (refused, reset or timed out: the SDK attaches `$metadata` without an HTTP status). The rest stay as
 * they are (500). Not `instanceof Error`: network errors come from Node's realm, which a test VM does not share.
 */
const translated = (error: unknown, signal: AbortSignal | undefined): unknown => {
  if (signal?.aborted) {
    return new UnavailableError('The plant store did not answer in time, please retry', retryAfterSeconds, {
      cause: error,
    });
  }
  if (typeof error !== 'object' || error === null) return error;
  const sdkError = error as SdkError;
  const unanswered = sdkError.$metadata !== undefined && sdkError.$metadata.httpStatusCode === undefined;
  if (unanswered || isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError)) {
    return new UnavailableError('The plant store is unavailable, please retry', retryAfterSeconds, { cause: error });
  }
  return error;
};

/**
 * The PlantStore on a DynamoDB table keyed by `id` (N). The happy path is one conditional PutItem; only when the id
 * exists does a consistent GetItem read the stored plant.
 */
export const dynamoDbPlantStore = (client: DynamoDBClient, tableName: string): PlantStore => ({
  async createIfAbsent(record: PlantRecord, signal?: AbortSignal): Promise<CreateResult> {
    const options = { abortSignal: signal };
    try {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: toItem(record),
          ConditionExpression: 'attribute_not_exists(id)',
        }),
        options,
      );
      return { created: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw translated(error, signal);
    }
    let stored: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: stored } = await client.send(
        new GetItemCommand({ TableName: tableName, Key: { id: { N: record.id.toString() } }, ConsistentRead: true }),
        options,
      ));
    } catch (error) {
      throw translated(error, signal);
    }
    // Plants are never deleted through the API, so this is a race with an operator: let the client retry.
    if (!stored)
      throw new UnavailableError('The plant changed while it was being stored, please retry', retryAfterSeconds);
    return { created: false, existing: fromItem(stored) };
  },
});
