// Runner.replaceCode, which `start --watch` calls once it has rebuilt a function's bundle without a synth: that
// function's next execution environment runs the new folder's code; an invocation in flight finishes in the
// environment it began in, which then stops; every other function keeps its environments.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type Runner, startRunner } from '../../src/runner.ts';
import { startGate } from '../helpers/hold-gate.ts';

/** A folder of one module answering `answer`, holding at the gate (HOLD_URL) first when asked to (`?hold=1`). */
const codeFolder = (root: string, name: string, answer: string) => {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'index.mjs'),
    `export const handler = async (event) => {
  if (event.queryStringParameters?.hold) await fetch(process.env.HOLD_URL);
  return { statusCode: 200, body: ${answer} };
};
`,
  );
  return dir;
};

let root: string;
let api: Runner;
let gate: Awaited<ReturnType<typeof startGate>>;
/** The folder holding the second version of Held's code. */
let nextVersion: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-replace-code-'));
  gate = await startGate();
  const outdir = join(root, 'cdk.out');
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Replaced');
  const rest = new RestApi(stack, 'Api');
  for (const [id, code] of [
    ['Held', codeFolder(root, 'held', "'first'")],
    ['Other', codeFolder(root, 'other', 'String(process.pid)')],
  ] as const) {
    const fn = new LambdaFunction(stack, id, {
      code: Code.fromAsset(code),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
    });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId(id);
    rest.root.addResource(id.toLowerCase()).addMethod('GET', new LambdaIntegration(fn));
  }
  app.synth();
  nextVersion = codeFolder(root, 'next', "'second'");
  api = await startRunner({
    cloudAssemblyDir: outdir,
    port: 0,
    dataDir: undefined,
    maxWorkers: 2,
    envVars: { Held: { HOLD_URL: gate.url } },
    log: () => undefined,
    functionLog: () => undefined,
  });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await gate?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const get = async (path: string) => (await fetch(`${api.url}${path}`)).text();

test("an invocation in flight ends with the old code, the next ones run the new, other functions' environments stay", async () => {
  const otherProcess = await get('/other');
  expect(await get('/held')).toBe('first');
  const inFlight = get('/held?hold=1');
  await gate.holding(1);

  const heldDir = api.app.functions.get('Held')?.assetDir ?? '';
  expect(api.replaceCode(new Map([[heldDir, nextVersion]]))).toEqual(['Held']);

  expect(await get('/held')).toBe('second');
  gate.open();
  expect(await inFlight).toBe('first');
  // The environment that ran the old code stopped once it answered: none answers with it again.
  expect([await get('/held'), await get('/held')]).toEqual(['second', 'second']);
  expect(await get('/other')).toBe(otherProcess);
}, 60_000);
