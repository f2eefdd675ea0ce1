// A DynamoDB stream's event source mapping, for `npm run bench`: the time from a table write (just before the SDK's
// PutItem) to the start of the function the table's stream feeds, one item at a time, the function warm. The app is
// synthesized here, in-process: the function logs, as it starts, the time and the key of the item it was given.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { startedLine, timeToFunctionStart } from './to-function-start.ts';

/** Each start logs the time and the key of the item it was given (to-function-start.ts). */
const handlerCode = `exports.handler = async (event) => {
  ${startedLine('event.Records[0].dynamodb.Keys.id.S')}
  return {};
};`;

const tableName = 'bench-streamed';

const synthesize = (scratch: string) => {
  const outdir = join(scratch, 'stream-delivery-cdk.out');
  mkdirSync(outdir, { recursive: true });
  const app = new App({ outdir });
  const stack = new Stack(app, 'BenchStreamDelivery');
  const table = new Table(stack, 'Table', {
    tableName,
    partitionKey: { name: 'id', type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    stream: StreamViewType.NEW_IMAGE,
  });
  const fn = new LambdaFunction(stack, 'OnChange', {
    code: Code.fromInline(handlerCode),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  // From the stream's start: with LATEST, an item written before the poller's first iterator would never arrive.
  fn.addEventSource(new DynamoEventSource(table, { startingPosition: StartingPosition.TRIM_HORIZON, batchSize: 1 }));
  app.synth();
  return outdir;
};

/** From PutItem to the stream handler's start, ms, one item at a time. */
export const measureStreamDelivery = async (scratch: string): Promise<number[]> => {
  let dynamodb: DynamoDBClient | undefined;
  try {
    return await timeToFunctionStart(synthesize(scratch), async (runner, id) => {
      dynamodb ??= new DynamoDBClient({
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        endpoint: runner.databaseEndpoint,
      });
      await dynamodb.send(new PutItemCommand({ TableName: tableName, Item: { id: { S: id } } }));
    });
  } finally {
    dynamodb?.destroy();
  }
};
