// What a function sees around its event when the runner runs on a host unlike Lambda's: the runner in a process of
// its own whose time zone is New York (as a developer's machine may be), serving the fixture app. On Lambda the clock
// is UTC, and the runtime defines the variables of "Defined runtime environment variables"
// (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { projectRoot } from '../../../infra/project-root.ts';
import { spawnInGroup, stopGroups } from '../../helpers/process-group.ts';
import { synthesizeFixtureApp } from './fixtures/fixture-app.ts';

let url: string;
let hostOffsetMinutes: number;

beforeAll(async () => {
  // A script file, not `node -e`: the runner forks its database with its own execArgv, which would carry `-e`.
  const script = join(mkdtempSync(join(tmpdir(), 'plant-store-tz-')), 'serve.mts');
  writeFileSync(
    script,
    `console.log('OFFSET ' + new Date(0).getTimezoneOffset());
    const { startLocalApi } = await import(${JSON.stringify(join(projectRoot, 'infra/local/local-api.ts'))});
    const api = await startLocalApi({ cloudAssemblyDir: process.env.FIXTURE_APP_DIR, port: 0, dataDir: undefined,
      maxWorkers: 1, log: () => undefined, functionLog: () => undefined });
    console.log('LISTENING ' + api.url);`,
  );
  const child = spawnInGroup(process.execPath, [script], {
    cwd: projectRoot,
    env: { ...process.env, TZ: 'America/New_York', FIXTURE_APP_DIR: synthesizeFixtureApp() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk;
  });
  for await (const line of createInterface({ input: child.stdout ?? process.stdin })) {
    const [word, value = ''] = line.split(' ');
    if (word === 'OFFSET') hostOffsetMinutes = Number(value);
    if (word === 'LISTENING') {
      url = value;
      break;
    }
  }
  if (!url) throw new Error(`the runner did not start: ${errors}`);
}, 90_000);

afterAll(stopGroups);

test("a function's clock is UTC, whatever the host's time zone", async () => {
  // The host is New York: 300 minutes behind UTC on 1 January 1970.
  expect(hostOffsetMinutes).toBe(300);
  const { clock } = (await (await fetch(`${url}/echo`)).json()) as { clock: Record<string, unknown> };
  expect(clock).toEqual({ offsetMinutes: 0, zone: 'UTC', tz: 'UTC' });
});

test("the runtime's environment: the variables Lambda defines, the context's log names from them, a trace per call", async () => {
  // "Defined runtime environment variables" (the Lambda guide): reserved ones the runtime sets, and LANG and PATH.
  const echo = async (headers: Record<string, string> = {}) =>
    ((await (await fetch(`${url}/echo`, { headers })).json()) as { lambda: Record<string, string> }).lambda;
  const first = await echo();
  expect(first).toMatchObject({
    _HANDLER: 'echo.handler',
    LAMBDA_RUNTIME_DIR: '/var/runtime',
    AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/EchoFunction',
    AWS_LAMBDA_LOG_STREAM_NAME: expect.stringMatching(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_SESSION_TOKEN: expect.any(String),
    LANG: 'en_US.UTF-8',
    PATH: expect.any(String),
    _X_AMZN_TRACE_ID: expect.stringMatching(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0$/),
  });
  expect(first.LAMBDA_TASK_ROOT).toMatch(/^\//);
  expect(first.logGroupName).toBe(first.AWS_LAMBDA_LOG_GROUP_NAME);
  expect(first.logStreamName).toBe(first.AWS_LAMBDA_LOG_STREAM_NAME);
  // The trace API Gateway began for the request is the invocation's.
  const traced = await echo({ 'X-Amzn-Trace-Id': 'Root=1-67890abc-0123456789abcdef01234567' });
  expect(traced._X_AMZN_TRACE_ID).toMatch(/^Root=1-67890abc-0123456789abcdef01234567;Parent=[0-9a-f]{16};Sampled=0$/);
  expect(traced.AWS_LAMBDA_LOG_STREAM_NAME).toBe(first.AWS_LAMBDA_LOG_STREAM_NAME); // one environment, one stream
});

test('API Gateway calls the alias the template names: its ARN ends with it, and it runs a published version', async () => {
  // The integration URI is the alias's ARN; Lambda's context then has invokedFunctionArn <function ARN>:live and the
  // version's number (the Node.js runtime interface client's context: invokedFunctionArn, functionVersion).
  const lambda = async (path: string) =>
    ((await (await fetch(`${url}${path}`)).json()) as { lambda: Record<string, string> }).lambda;
  const aliased = await lambda('/aliased');
  expect(aliased.invokedFunctionArn).toMatch(/^arn:aws:lambda:[a-z0-9-]+:\d{12}:function:AliasedEchoFunction:live$/);
  expect(aliased).toMatchObject({ functionVersion: '1', AWS_LAMBDA_FUNCTION_VERSION: '1' });
  expect(aliased.AWS_LAMBDA_LOG_STREAM_NAME).toMatch(/\/\[1\][0-9a-f]{32}$/);
  // The authorizer too: the fixture's is called through its alias, as the product's.
  const secured = (await (await fetch(`${url}/secured`, { headers: { Authorization: 'Bearer whoami' } })).json()) as {
    event: { requestContext: { authorizer: Record<string, string> } };
  };
  expect(secured.event.requestContext.authorizer.invokedFunctionArn).toMatch(/:function:AuthorizerFunction:live$/);
  // A function with no version published runs $LATEST, called by its own ARN.
  const plain = await lambda('/echo');
  expect(plain.invokedFunctionArn).toMatch(/:function:EchoFunction$/);
  expect(plain.functionVersion).toBe('$LATEST');
});
