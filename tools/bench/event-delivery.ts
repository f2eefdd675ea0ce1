// The local runner delivering events to functions, for `npm run bench`: the time from SendMessage to the start of the
// function a queue's event source mapping feeds, and from PutEvents to the start of a rule's target; and how many
// messages a second go through a queue to its function, at batch size 1 and 10. The app is synthesized here,
// in-process (the product has no queue): each function logs, as it starts, the time and what it was given.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { App, Stack } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as FunctionTarget } from 'aws-cdk-lib/aws-events-targets';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { startRunner } from 'cdk-local-runner';

/** Each start logs `STARTED {"at": <ms>, "ids": [...]}`: the ids of the messages or event it was given. */
const handlerCode = `exports.handler = async (event) => {
  const at = Date.now();
  const ids = event.Records ? event.Records.map((record) => record.body) : [event.detail.id];
  console.log('STARTED ' + JSON.stringify({ at, ids }));
  return {};
};`;

/** Messages per throughput run. */
const throughputMessages = 500;
/** Latency samples (one message or event at a time). */
const latencySamples = 100;

export interface EventDeliveryFigures {
  /** From SendMessage to the function's start, ms, one message at a time (the function warm). */
  sendToStartMs: number[];
  /** From PutEvents to the rule's target function's start, ms, one event at a time (the function warm). */
  putToStartMs: number[];
  /** Messages a second from the first SendMessageBatch to the start of the batch carrying the last, by batch size. */
  perSecond: Record<1 | 10, number>;
}

const synthesize = (scratch: string) => {
  const outdir = join(scratch, 'events-cdk.out');
  mkdirSync(outdir, { recursive: true });
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'BenchEvents');
  const handler = (id: string) =>
    new LambdaFunction(stack, id, {
      code: Code.fromInline(handlerCode),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
    });
  for (const batchSize of [1, 10]) {
    const queue = new Queue(stack, `Batch${batchSize}Queue`, { queueName: `bench-batch-${batchSize}` });
    handler(`Batch${batchSize}`).addEventSource(new SqsEventSource(queue, { batchSize }));
  }
  new Rule(stack, 'Put', { eventPattern: { source: ['bench'] }, targets: [new FunctionTarget(handler('Target'))] });
  app.synth();
  return outdir;
};

/** The starts the functions logged, by id: when each message or event began to be handled. */
const startsLog = () => {
  const startedAt = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const take = (line: string) => {
    const json = /STARTED (\{.*\})/.exec(line)?.[1];
    if (json === undefined) return;
    const { at, ids } = JSON.parse(json) as { at: number; ids: string[] };
    for (const id of ids) {
      startedAt.set(id, at);
      waiting.get(id)?.();
      waiting.delete(id);
    }
  };
  /** Resolves with the time `id` started, once it has. */
  const started = (id: string) =>
    new Promise<number>((resolve) => {
      const done = () => resolve(startedAt.get(id) as number);
      if (startedAt.has(id)) done();
      else waiting.set(id, done);
    });
  return { take, started };
};

/** Serves the app from `scratch` and measures it. */
export const measureEventDelivery = async (scratch: string): Promise<EventDeliveryFigures> => {
  const starts = startsLog();
  const runner = await startRunner({
    cloudAssemblyDir: synthesize(scratch),
    port: 0,
    dataDir: undefined,
    maxWorkers: 4,
    log: () => undefined,
    functionLog: (_name, line) => starts.take(line),
  });
  const options = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const sqs = new SQSClient({ ...options, endpoint: runner.serviceUrls.sqs });
  const events = new EventBridgeClient({ ...options, endpoint: runner.serviceUrls.events });
  const queueUrl = (batchSize: number) => runner.queues().find(({ name }) => name === `bench-batch-${batchSize}`)?.url;
  let sentCount = 0;
  const id = () => {
    sentCount += 1;
    return `m${sentCount}`;
  };
  try {
    const timed = async (send: (id: string) => Promise<unknown>) => {
      const samples: number[] = [];
      // The first two warm the function (its environment started), and are left out.
      for (let sample = 0; sample < latencySamples + 2; sample += 1) {
        const sent = id();
        const before = Date.now();
        await send(sent);
        const ms = (await starts.started(sent)) - before;
        if (sample >= 2) samples.push(ms);
      }
      return samples;
    };
    const sendToStartMs = await timed((sent) =>
      sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(1), MessageBody: sent })),
    );
    const putToStartMs = await timed((sent) =>
      events.send(
        new PutEventsCommand({
          Entries: [{ Source: 'bench', DetailType: 'Bench', Detail: JSON.stringify({ id: sent }) }],
        }),
      ),
    );
    const throughput = async (batchSize: 1 | 10) => {
      const ids = Array.from({ length: throughputMessages }, id);
      const before = Date.now();
      for (let first = 0; first < ids.length; first += 10)
        await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl(batchSize),
            Entries: ids.slice(first, first + 10).map((body, index) => ({ Id: String(index), MessageBody: body })),
          }),
        );
      const last = Math.max(...(await Promise.all(ids.map((sent) => starts.started(sent)))));
      return (throughputMessages / (last - before)) * 1000;
    };
    return { sendToStartMs, putToStartMs, perSecond: { 1: await throughput(1), 10: await throughput(10) } };
  } finally {
    sqs.destroy();
    events.destroy();
    await runner.close();
  }
};
