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
import { startRunner } from 'cdk-local-runner';

/** Each start logs `STARTED {"at": <ms>, "id": <the new image's id>}`. */
const handlerCode = `exports.handler = async (event) => {
  const at = Date.now();
  console.log('STARTED ' + JSON.stringify({ at, id: event.Records[0].dynamodb.Keys.id.S }));
  return {};
};`;

const tableName = 'bench-streamed';
/** Latency samples (one item at a time). */
const samples = 100;

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

/** From PutItem to the stream handler's start, ms, `samples` items one at a time (after two that warm it). */
export const measureStreamDelivery = async (scratch: string): Promise<number[]> => {
  const startedAt = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const runner = await startRunner({
    cloudAssemblyDir: synthesize(scratch),
    port: 0,
    dataDir: undefined,
    maxWorkers: 4,
    log: () => undefined,
    functionLog: (_name, line) => {
      const json = /STARTED (\{.*\})/.exec(line)?.[1];
      if (json === undefined) return;
      const { at, id } = JSON.parse(json) as { at: number; id: string };
      startedAt.set(id, at);
      waiting.get(id)?.();
    },
  });
  const started = (id: string) =>
    new Promise<number>((resolve) => {
      const done = () => resolve(startedAt.get(id) as number);
      if (startedAt.has(id)) done();
      else waiting.set(id, done);
    });
  const dynamodb = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoint: runner.databaseEndpoint,
  });
  try {
    const timings: number[] = [];
    for (let sample = 0; sample < samples + 2; sample += 1) {
      const id = `item-${sample}`;
      const before = Date.now();
      await dynamodb.send(new PutItemCommand({ TableName: tableName, Item: { id: { S: id } } }));
      const ms = (await started(id)) - before;
      if (sample >= 2) timings.push(ms);
    }
    return timings;
  } finally {
    dynamodb.destroy();
    await runner.close();
  }
};
