// Handler styles as Lambda's Node.js runtimes take them (aws/aws-lambda-nodejs-runtime-interface-client: 3.x's
// Runtime.js and CallbackContext.js up to nodejs22.x; on nodejs24.x, its CallbackHandlerDeprecatedError): served
// through the runner, each answered as API Gateway answers it on AWS.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { recordedLog } from 'test-support/log-lines';
import { type Runner, startRunner } from '../../src/runner.ts';
import { synthesizeHandlerStylesApp } from '../fixtures/handler-styles-app.ts';

let api: Runner;
const runnerLog = recordedLog();
/** Each function's log lines, with the moment each was written. */
const functionLines: { functionId: string; line: string; at: number }[] = [];

beforeAll(async () => {
  api = await startRunner({
    cloudAssemblyDir: synthesizeHandlerStylesApp(),
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    log: runnerLog.log,
    functionLog: (functionId, line) => functionLines.push({ functionId, line, at: performance.now() }),
  });
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const get = async (path: string) => {
  const response = await fetch(`${api.url}${path}`);
  return { status: response.status, body: (await response.json()) as unknown, at: performance.now() };
};

test('nodejs22.x: a callback handler answers through its callback', async () => {
  expect(await get('/callback')).toMatchObject({ status: 200, body: { style: 'callback' } });
});

test("nodejs22.x: the callback's answer waits for the event loop to empty, unless told not to", async () => {
  const waited = await get('/waits');
  expect(waited).toMatchObject({ status: 200, body: { style: 'waited' } });
  const timer = functionLines.find(
    ({ functionId, line }) => functionId === 'WaitsFunction' && /timer fired/.test(line),
  );
  // The pending timer fired before the answer left.
  expect(timer?.at).toBeLessThan(waited.at);

  const notWaited = await get('/does-not-wait');
  expect(notWaited).toMatchObject({ status: 200, body: { style: 'did not wait' } });
  expect(
    functionLines.some(({ functionId, line }) => functionId === 'DoesNotWaitFunction' && /timer fired/.test(line)),
  ).toBe(false);
});

test("nodejs22.x: context.succeed answers, and only the first answer counts; context.fail is the function's error", async () => {
  expect(await get('/succeed')).toMatchObject({ status: 200, body: { style: 'succeed' } });
  // A proxy integration's function error is API Gateway's 502.
  expect(await get('/fail')).toMatchObject({ status: 502, body: { message: 'Internal server error' } });
  expect(
    functionLines.some(
      ({ functionId, line }) => functionId === 'FailFunction' && /Invoke Error.*failed through the context/.test(line),
    ),
  ).toBe(true);
});

test('nodejs24.x: a handler declaring a callback is refused at init, as Lambda refuses it; every request is a 502', async () => {
  for (let round = 0; round < 2; round += 1)
    expect(await get('/callback-on-24')).toMatchObject({ status: 502, body: { message: 'Internal server error' } });
  const initErrors = functionLines.filter(
    ({ functionId, line }) => functionId === 'CallbackOn24Function' && /Init Error/.test(line),
  );
  expect(initErrors.length).toBeGreaterThanOrEqual(2);
  expect(initErrors[0]?.line).toContain('Runtime.CallbackHandlerDeprecated');
  expect(initErrors[0]?.line).toContain(
    'removed support for callback-based function handlers starting with Node.js 24',
  );
  // The same handler on nodejs22.x answered (above); an async handler on nodejs24.x answers.
  expect(await get('/async-on-24')).toMatchObject({ status: 200, body: { style: 'async' } });
});

test("a CommonJS bundle is loaded as CommonJS, as on Lambda, though the project's package.json says module", async () => {
  // Node alone would load it as an ES module (`require is not defined in ES module scope`): /var/task has nothing above.
  expect(await get('/commonjs')).toMatchObject({ status: 200, body: { style: 'commonjs', moduleType: 'object' } });
});

test("the AWS SDK the runtime provides resolves from the app's own node_modules, unbundled, as on Lambda", async () => {
  expect(await get('/sdk')).toMatchObject({ status: 200, body: { sdk: 'function' } });
});

test("a package the bundle does not hold fails the init, though the developer's project has it, as on Lambda", async () => {
  expect(await get('/outside')).toMatchObject({ status: 502 });
  const initError = functionLines.find(
    ({ functionId, line }) => functionId === 'OutsideFunction' && /Init Error/.test(line),
  );
  expect(initError?.line).toMatch(
    /Cannot find package 'yaml' imported from .*outside\.mjs: it is not in the function's bundle or layers, and on Lambda nothing else is there \(locally it was found at .*node_modules\/yaml\//,
  );
});
