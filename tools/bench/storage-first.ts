// A storage-first POST, for `npm run bench`: API Gateway writing the request straight to SQS through an AWS
// integration and its mapping template, no function between (packages/local-runner/src/gateway/rest/integrated.ts):
// the POST's answer time, and the time from the POST to the start of the function the queue then feeds. The app is
// synthesized here, in-process; the function logs, as it starts, the time and the ids it was given.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AwsIntegration, PassthroughBehavior, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { startRunner } from 'cdk-local-runner';

const handlerCode = `exports.handler = async (event) => {
  const at = Date.now();
  console.log('STARTED ' + JSON.stringify({ at, ids: event.Records.map((record) => JSON.parse(record.body).id) }));
};`;

/** POSTs measured one at a time (after two that warm the function). */
const samples = 200;

export interface StorageFirstFigures {
  /** The POST's answer (202), ms. */
  answeredMs: number[];
  /** From the POST to the start of the function the queue feeds, ms. */
  postToStartMs: number[];
}

const synthesize = (scratch: string) => {
  const outdir = join(scratch, 'storage-first-cdk.out');
  mkdirSync(outdir, { recursive: true });
  const app = new App({ outdir });
  const stack = new Stack(app, 'BenchStorageFirst');
  const queue = new Queue(stack, 'Orders', { queueName: 'bench-storage-first' });
  const role = new Role(stack, 'ApiRole', { assumedBy: new ServicePrincipal('apigateway.amazonaws.com') });
  queue.grantSendMessages(role);
  new LambdaFunction(stack, 'Consumer', {
    code: Code.fromInline(handlerCode),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  }).addEventSource(new SqsEventSource(queue, { batchSize: 1 }));
  const api = new RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
  const integration = new AwsIntegration({
    service: 'sqs',
    path: `${stack.account}/${queue.queueName}`,
    integrationHttpMethod: 'POST',
    options: {
      credentialsRole: role,
      passthroughBehavior: PassthroughBehavior.NEVER,
      requestParameters: { 'integration.request.header.Content-Type': "'application/x-www-form-urlencoded'" },
      requestTemplates: { 'application/json': 'Action=SendMessage&MessageBody=$util.urlEncode($input.body)' },
      integrationResponses: [{ statusCode: '202', responseTemplates: { 'application/json': '{"accepted": true}' } }],
    },
  });
  api.root.addResource('orders').addMethod('POST', integration, { methodResponses: [{ statusCode: '202' }] });
  app.synth();
  return outdir;
};

/** Serves the app from `scratch` and measures it. */
export const measureStorageFirst = async (scratch: string): Promise<StorageFirstFigures> => {
  const startedAt = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const take = (line: string) => {
    const json = /STARTED (\{.*\})/.exec(line)?.[1];
    if (json === undefined) return;
    const { at, ids } = JSON.parse(json) as { at: number; ids: string[] };
    for (const id of ids) {
      startedAt.set(id, at);
      waiting.get(id)?.(at);
    }
  };
  const started = (id: string) =>
    new Promise<number>((resolve) => {
      const at = startedAt.get(id);
      if (at === undefined) waiting.set(id, resolve);
      else resolve(at);
    });
  const runner = await startRunner({
    cloudAssemblyDir: synthesize(scratch),
    port: 0,
    dataDir: undefined,
    maxWorkers: 4,
    log: () => undefined,
    functionLog: (_name, line) => take(line),
  });
  try {
    const answeredMs: number[] = [];
    const postToStartMs: number[] = [];
    for (let sample = 0; sample < samples + 2; sample += 1) {
      const id = `o${sample}`;
      const before = performance.now();
      const sentAt = Date.now();
      const response = await fetch(`${runner.url}/v1/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ id, plant: 'Monstera deliciosa' }),
      });
      await response.text();
      const answered = performance.now() - before;
      if (response.status !== 202) throw new Error(`the storage-first POST answered ${response.status}`);
      const start = await started(id);
      if (sample < 2) continue;
      answeredMs.push(answered);
      postToStartMs.push(start - sentAt);
    }
    return { answeredMs, postToStartMs };
  } finally {
    await runner.close();
  }
};
