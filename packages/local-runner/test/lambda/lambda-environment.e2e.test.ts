// What a function sees around its event, through the start command as a user runs it, serving the fixture app (`--app`) on
// a host unlike Lambda's: its time zone is New York (as a developer's machine may be). Each test follows the public
// reference it names: the Lambda guide's "Defined runtime environment variables"
// (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html), the Node.js runtime's bootstrap and
// runtime interface client, API Gateway's developer guide, and events captured on AWS (fixtures/aws-event-shapes.ts).
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { synthesizeFixtureApp } from '../fixtures/fixture-app.ts';
import { startApp, stopStarted } from '../helpers/runner-process.ts';

let url: string;

beforeAll(async () => {
  ({ url } = await startApp(synthesizeFixtureApp(), {
    args: ['--max-workers', '1'],
    env: { ...process.env, TZ: 'America/New_York' },
  }));
}, 90_000);

afterAll(stopStarted);

/** What the fixture's echo function answers (fixtures/functions/echo.mjs). */
interface Echoed {
  event: {
    path: string;
    headers: Record<string, string>;
    pathParameters: Record<string, string> | null;
    requestContext: Record<string, unknown> & { authorizer?: Record<string, unknown> };
  };
  awsRequestId: string;
  lambda: Record<string, string>;
  clock: Record<string, unknown>;
  node: { pid: number; cwd: string; stackTraceLimit: number; heapLimitMb: number; gc: string; nodeOptions?: string };
}
const echo = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}${path}`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Echoed;
};

test("a function's clock is UTC, whatever the host's time zone", async () => {
  // npm and the runner run with TZ=America/New_York (300 minutes behind UTC on 1 January 1970).
  const { clock } = await echo('/echo');
  expect(clock).toEqual({ offsetMinutes: 0, zone: 'UTC', tz: 'UTC' });
});

test("the runtime's environment: the variables Lambda defines, the context's log names from them, a trace per call", async () => {
  // "Defined runtime environment variables" (the Lambda guide): reserved ones the runtime sets, and LANG and PATH.
  const first = (await echo('/echo')).lambda;
  expect(first).toMatchObject({
    _HANDLER: 'echo.handler',
    LAMBDA_RUNTIME_DIR: '/var/runtime',
    // Named as CloudFormation names a function with no FunctionName ("AWS::Lambda::Function").
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${generatedFunctionName('Fixture', 'EchoFunction')}`,
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
  const traced = (await echo('/echo', { 'X-Amzn-Trace-Id': 'Root=1-67890abc-0123456789abcdef01234567' })).lambda;
  expect(traced._X_AMZN_TRACE_ID).toMatch(/^Root=1-67890abc-0123456789abcdef01234567;Parent=[0-9a-f]{16};Sampled=0$/);
  expect(traced.AWS_LAMBDA_LOG_STREAM_NAME).toBe(first.AWS_LAMBDA_LOG_STREAM_NAME); // one environment, one stream
});

test('API Gateway calls the alias the template names: its ARN ends with it, and it runs a published version', async () => {
  // The integration URI is the alias's ARN; Lambda's context then has invokedFunctionArn <function ARN>:live and the
  // version's number (the Node.js runtime interface client's context: invokedFunctionArn, functionVersion).
  const aliased = (await echo('/aliased')).lambda;
  expect(aliased.invokedFunctionArn).toBe(
    `arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName('Fixture', 'AliasedEchoFunction')}:live`,
  );
  expect(aliased).toMatchObject({ functionVersion: '1', AWS_LAMBDA_FUNCTION_VERSION: '1' });
  expect(aliased.AWS_LAMBDA_LOG_STREAM_NAME).toMatch(/\/\[1\][0-9a-f]{32}$/);
  // The authorizer too: the fixture's is called through its alias, as the product's.
  const secured = await echo('/secured', { Authorization: 'Bearer whoami' });
  expect(secured.event.requestContext.authorizer?.invokedFunctionArn).toMatch(
    /:function:Fixture-AuthorizerFunction-\w{12}:live$/,
  );
  // A function with no version published runs $LATEST, called by its own ARN.
  const plain = (await echo('/echo')).lambda;
  expect(plain.invokedFunctionArn).toMatch(/:function:Fixture-EchoFunction-\w{12}$/);
  expect(plain.functionVersion).toBe('$LATEST');
});

test('each execution environment is a process of its own, in the code folder, started as the runtime starts node', async () => {
  const { node, lambda } = await echo('/aliased');
  // The working directory is LAMBDA_TASK_ROOT (/var/task on Lambda), so a relative path resolves in the bundle.
  expect(node.cwd).toBe(lambda.LAMBDA_TASK_ROOT);
  // The function's NODE_OPTIONS apply (`--stack-trace-limit=3`). The bootstrap's own flags come on the command line,
  // which wins over NODE_OPTIONS (Node's rule): the heap is the one sized from the 128 MB memory (116 MB old space
  // plus the young generation), not NODE_OPTIONS' 100 MB, and gc() is exposed.
  expect(node).toMatchObject({ stackTraceLimit: 3, gc: 'function' });
  expect(node.nodeOptions).toBe('--stack-trace-limit=3 --max-old-space-size=100');
  expect(node.heapLimitMb).toBeGreaterThanOrEqual(116);
  expect(node.heapLimitMb).toBeLessThan(160);
  // Another function is another process, with the default stack trace limit.
  const other = (await echo('/echo')).node;
  expect(other.pid).not.toBe(node.pid);
  expect(other.stackTraceLimit).toBe(10);
});

test("ids: each invocation's awsRequestId is its own, apart from API Gateway's request id and extended request id", async () => {
  const [first, second] = [await echo('/echo'), await echo('/echo')];
  const { requestId, extendedRequestId } = first.event.requestContext;
  expect(new Set([first.awsRequestId, second.awsRequestId, requestId]).size).toBe(3);
  expect(extendedRequestId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
});

test("the authorizer's context reaches the function as strings, as API Gateway stringifies it", async () => {
  const { event } = await echo('/secured', { Authorization: 'Bearer allow' });
  expect(event.requestContext.authorizer).toMatchObject({ user: 'u1', level: '3', admin: 'false' });
});

test("a regional REST API's own headers: X-Forwarded-For (the client's address appended), -Port, -Proto, a trace", async () => {
  const { headers } = (await echo('/echo', { 'X-Forwarded-For': '203.0.113.7' })).event;
  expect(headers['X-Forwarded-For']?.split(', ')).toEqual(['203.0.113.7', '127.0.0.1']);
  expect(headers).toMatchObject({
    'X-Forwarded-Port': new URL(url).port,
    'X-Forwarded-Proto': 'http',
    'X-Amzn-Trace-Id': expect.stringMatching(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/),
  });
});

test("the deployed invoke URL's stage prefix is served: the same event", async () => {
  const staged = (await echo('/test/items/7')).event;
  expect(staged.path).toBe('/items/7');
  expect(staged.requestContext.path).toBe('/test/items/7');
  expect(staged.pathParameters).toEqual({ id: '7' });
});

test('path parameters arrive percent-encoded, as sent, as a REST API delivers them', async () => {
  // A regional capture (hotsock/voker, vokerhttp/testdata/apigwv1-request.json at 59c7289): `/capture/space%20value`
  // on `/{proxy+}` gives that path and `proxy: "capture/space%20value"` (gateway/event-conformance.e2e.test.ts checks it too).
  const greedy = (await echo('/routes/things/space%20value/a%2Fb')).event;
  expect(greedy.path).toBe('/routes/things/space%20value/a%2Fb');
  expect(greedy.pathParameters).toEqual({ proxy: 'space%20value/a%2Fb' });
  expect((await echo('/items/space%20value')).event.pathParameters).toEqual({ id: 'space%20value' });
});
