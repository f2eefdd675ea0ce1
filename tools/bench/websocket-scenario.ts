// The benchmark's WebSocket scenario: an app of one WebSocket API whose `$default` route echoes each message back (a
// route response, from a function with inline code), synthesized in-process, served by the runner, and loaded through
// `$default` by tools/bench/websocket-load.ts at 1 and 32 connections: the messages per second the runner carries
// (each one an event, an invocation and a route response).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { startRunner } from 'cdk-local-runner';
import { median } from './statistics.ts';

const here = new URL('./', import.meta.url).pathname;

interface WebSocketFigures {
  messages: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** The echo app, synthesized into `folder`. */
const synthesizeEcho = (folder: string) => {
  const app = new App({ outdir: folder });
  const stack = new Stack(app, 'WebSocketBench');
  const echo = new LambdaFunction(stack, 'Echo', {
    code: Code.fromInline('exports.handler = async (event) => ({ statusCode: 200, body: event.body });'),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  const api = new WebSocketApi(stack, 'Echoes', {
    defaultRouteOptions: { integration: new WebSocketLambdaIntegration('EchoIntegration', echo), returnResponse: true },
  });
  new WebSocketStage(stack, 'Stage', { webSocketApi: api, stageName: 'bench', autoDeploy: true });
  app.synth();
  return folder;
};

/**
 * The scenario's figures at 1 and 32 connections (`rounds` of `seconds` each, after a 1 s warm-up), with the runner
 * given `maxWorkers` execution environments a function, as the HTTP scenario's.
 */
export const measureWebSocket = async (
  scratch: string,
  { rounds, seconds, maxWorkers }: { rounds: number; seconds: number; maxWorkers: number },
  progress: (line: string) => void,
) => {
  const runner = await startRunner({
    cloudAssemblyDir: synthesizeEcho(join(scratch, 'websocket.out')),
    port: 0,
    dataDir: undefined,
    maxWorkers,
    log: () => undefined,
    functionLog: () => undefined,
  });
  const url = `${runner.url.replace(/^http:/, 'ws:')}/bench`;
  const load = async (connections: number, duration = seconds) => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(here, 'websocket-load.ts'),
      url,
      String(connections),
      String(duration),
    ]);
    return JSON.parse(stdout) as WebSocketFigures;
  };
  const figures = new Map<number, WebSocketFigures[]>();
  try {
    for (const connections of [1, 32]) {
      await load(connections, 1); // warm-up: every execution environment started
      for (let round = 0; round < rounds; round += 1) {
        progress(`WebSocket $default at ${connections} connection(s), round ${round + 1}`);
        figures.set(connections, [...(figures.get(connections) ?? []), await load(connections)]);
      }
    }
  } finally {
    await runner.close();
  }
  /** A row's text: the median messages per second, each round's, and the medians of p50 and p99. */
  return (connections: number) => {
    const measured = figures.get(connections) ?? [];
    const p = (pick: (figures: WebSocketFigures) => number) => median(measured.map(pick)).toFixed(2);
    return `${median(measured.map((each) => each.perSecond)).toFixed(0)} messages/s (rounds: ${measured.map((each) => each.perSecond.toFixed(0)).join(', ')}; p50 ${p((each) => each.p50)} ms, p99 ${p((each) => each.p99)} ms)`;
  };
};
