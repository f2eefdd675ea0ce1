// Public CDK apps, written by others and synthesized as published (test/fixtures/public-apps/<app>/: each folder's
// SOURCE.md names the repository, path, commit, licence and the calls the app documents). The runner serves each, in
// process, and each test makes the calls its documentation gives and asserts the documented answer. Where the runner
// refuses an app, or a call does not answer as documented, a test named "today: ..." asserts exactly what the runner
// does now and says what AWS would do instead: each is a gap to close (or to keep, knowingly).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { localPoolId, poolIssuer } from '../src/app/user-pools.ts';
import { RunnerError } from '../src/errors.ts';
import { signPoolToken } from '../src/issuer/dev-issuer.ts';
import { type LocalApi, startLocalApi } from '../src/local-api.ts';
import { recordedLog } from './helpers/log-lines.ts';

const assemblyOf = (app: string) => fileURLToPath(new URL(`./fixtures/public-apps/${app}/cdk.out`, import.meta.url));

interface Started {
  /** The runner, when it serves the app. */
  api: LocalApi | undefined;
  /** Why it does not, when it refuses it. */
  error: unknown;
  log: ReturnType<typeof recordedLog>;
  /** Each function's log lines, as `<function id>: <line>`. */
  functionLog: ReturnType<typeof recordedLog>;
}

/**
 * Starts the runner on `app`'s assembly before the tests of the enclosing describe, and closes it after them. A
 * refusal is kept for the tests to look at (never thrown in the hook).
 */
const startBeforeAll = (app: string, { stackName, apiName }: { stackName?: string; apiName?: string } = {}) => {
  const started: Started = { api: undefined, error: undefined, log: recordedLog(), functionLog: recordedLog() };
  beforeAll(async () => {
    try {
      started.api = await startLocalApi({
        cloudAssemblyDir: assemblyOf(app),
        ...(stackName !== undefined && { stackName }),
        ...(apiName !== undefined && { apiName }),
        port: 0,
        dataDir: undefined,
        maxWorkers: 1,
        log: started.log.log,
        functionLog: (functionId, line) => started.functionLog.log(`${functionId}: ${line}`),
      });
    } catch (error) {
      started.error = error;
    }
  }, 60_000);
  afterAll(async () => {
    await started.api?.close();
  });
  return started;
};

/** The runner of a served app (a test fails with the refusal when it was refused). */
const served = ({ api, error }: Started) => {
  if (!api) throw error;
  return api;
};

/** The refusal's message (a test fails when the app was served). */
const refusal = ({ api, error }: Started) => {
  expect(api).toBeUndefined();
  expect(error).toBeInstanceOf(RunnerError);
  return (error as RunnerError).message;
};

/** One of the APIs a runner serves, by logical id (a test fails when it serves none of that id). */
const apiOf = (started: Started, id: string) => {
  const found = served(started).apis.find(({ app }) => app.apiId === id);
  if (!found) throw new Error(`${id} is not served`);
  return found;
};

/** A request to `api` (the runner's first REST API, or one of `apis`). */
const call = async (
  api: { url: string },
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) => {
  const response = await fetch(`${api.url}${path}`, { method, headers, ...(body !== undefined && { body }) });
  return { status: response.status, headers: response.headers, body: await response.text() };
};

const internalServerError = JSON.stringify({ message: 'Internal server error' });

// aws-samples/aws-cdk-examples, typescript/api-cors-lambda-crud-dynamodb, commit
// bccff1d2775e4b0bf777721c6b41c0107e122f73: a REST API with CORS mocks, five NodejsFunctions (nodejs24.x) leaving
// @aws-sdk/* out of their bundles, a DynamoDB table.
describe('crud-dynamodb', () => {
  const app = startBeforeAll('crud-dynamodb');

  test('CORS preflights answer from their mock integrations, with the headers the app sets', async () => {
    for (const path of ['/items', '/prod/items/some-id']) {
      const preflight = await call(served(app), 'OPTIONS', path);
      expect(preflight.status).toBe(200);
      expect(preflight.body).toBe('');
      expect(Object.fromEntries([...preflight.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual(
        {
          'access-control-allow-credentials': 'false',
          'access-control-allow-headers':
            'Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-User-Agent',
          'access-control-allow-methods': 'OPTIONS,GET,PUT,POST,DELETE',
          'access-control-allow-origin': '*',
        },
      );
    }
  });

  test("its functions import the runtime's SDK unbundled, found in the app's node_modules as Lambda's runtime provides it: the calls its code answers (SOURCE.md), each on its own function and the same table", async () => {
    // The SDK comes from the node_modules above the fixture (this repository's, where @aws-sdk/lib-dynamodb stands for
    // what the nodejs24.x runtime includes); without it, the init fails naming the package (handler-styles.e2e).
    const api = served(app);
    const json = { 'content-type': 'application/json' };
    const created = await call(api, 'POST', '/prod/items', json, '{"plant":"fern","kind":"perennial"}');
    expect(created).toMatchObject({ status: 201, body: '' });
    const listed = await call(api, 'GET', '/prod/items');
    expect(listed.status).toBe(200);
    const [item, ...others] = JSON.parse(listed.body) as { itemId: string }[];
    expect(others).toEqual([]);
    expect(item).toEqual({ itemId: expect.stringMatching(/^[0-9a-f-]{36}$/), plant: 'fern', kind: 'perennial' });
    const path = `/prod/items/${item?.itemId}`;
    expect(JSON.parse((await call(api, 'GET', path)).body)).toEqual(item);
    expect(await call(api, 'PATCH', path, json, '{"plant":"maidenhair fern"}')).toMatchObject({ status: 204 });
    expect(JSON.parse((await call(api, 'GET', path)).body)).toEqual({ ...item, plant: 'maidenhair fern' });
    // An attribute named by a word DynamoDB reserves (`name`) is refused by DynamoDB (dynalite as DynamoDB); the code
    // looks for it in the SDK v2's `error.code`, which SDK v3 errors lack, so on AWS too it answers its generic error.
    const reserved = await call(api, 'PATCH', path, json, '{"name":"fern"}');
    expect(reserved).toMatchObject({
      status: 500,
      body: 'Error: Execution update, caused a Dynamodb error, please take a look at your CloudWatch Logs.',
    });
    expect(await call(api, 'DELETE', path)).toMatchObject({ status: 200, body: '' });
    expect((await call(api, 'GET', path)).status).toBe(404);
  });
});

// aws-samples/aws-cdk-examples, typescript/api-gateway-lambda-token-authorizer, commit
// bccff1d2775e4b0bf777721c6b41c0107e122f73: a LambdaRestApi (stage dev) whose GET /health goes through a TOKEN
// authorizer; both functions NodejsFunctions on nodejs24.x, the authorizer a callback-style handler.
describe('token-authorizer', () => {
  const app = startBeforeAll('token-authorizer');
  const authorizer = 'authenticationlambdaDD3A2252';

  test('without a token, API Gateway answers 401 itself, invoking no authorizer', async () => {
    const api = served(app);
    const response = await call(api, 'GET', '/dev/health');
    expect(response).toMatchObject({ status: 401, body: JSON.stringify({ message: 'Unauthorized' }) });
    expect(response.headers.get('x-amzn-errortype')).toBe('UNAUTHORIZED');
    expect(api.invocations(authorizer)).toBe(0);
    // The CDK's log retention function is no route's: listed, not served.
    await app.log.seen(/^not served \(no route or authorizer reaches them\): LogRetention/);
  });

  // Its code documents allow (200 "Healthy"), deny (403), unauthorized (401), anything else (500); that holds up to
  // nodejs22.x. On nodejs24.x Lambda refuses a handler that declares a callback at init, so, deployed as it is, every
  // token is API Gateway's 500 for a failed authorizer: the runner answers as AWS does, not as the code says.
  test('nodejs24.x: the callback-style authorizer fails at init as on Lambda, so every token is a 500, as deployed', async () => {
    const api = served(app);
    for (const token of ['allow', 'deny', 'unauthorized', 'something else']) {
      const response = await call(api, 'GET', '/dev/health', { authorization: token });
      expect(response).toMatchObject({ status: 500, body: internalServerError });
      expect(response.headers.get('x-amzn-errortype')).toBe('AUTHORIZER_FAILURE');
    }
    await app.functionLog.seen(
      new RegExp(
        `^${authorizer}: .*Init Error.*Runtime\\.CallbackHandlerDeprecated.*removed support for callback-based`,
      ),
    );
    expect(api.invocations('operationallambdaFE43E13E')).toBe(0);
  });
});

// aws-samples/aws-cdk-examples, typescript/api-gateway-lambda-token-authorizer, commit
// b0769dd3efdf997a366fcf0fdea1468f026256a5: the same sample at its last commit on nodejs18.x, whose runtimes up to
// nodejs22.x take its callback-style authorizer.
describe('token-authorizer-node18', () => {
  const app = startBeforeAll('token-authorizer-node18');

  test.each([
    ['allow', 200, 'Healthy'],
    ['deny', 403, JSON.stringify({ message: 'User is not authorized to access this resource with an explicit deny' })],
    ['unauthorized', 401, JSON.stringify({ message: 'Unauthorized' })],
    ['something else', 500, internalServerError],
  ])('nodejs18.x: GET /dev/health with the token %s answers %i, as its code documents', async (token, status, body) => {
    expect(await call(served(app), 'GET', '/dev/health', { authorization: token })).toMatchObject({ status, body });
  });
});

// aws-samples/aws-cdk-examples, typescript/cognito-api-lambda, commit bccff1d2775e4b0bf777721c6b41c0107e122f73: a
// LambdaRestApi whose GET /HELLO is authorized by a Cognito user pool (COGNITO_USER_POOLS).
describe('cognito-api', () => {
  const app = startBeforeAll('cognito-api');

  const pool = 'userPoolDC9497E0';
  const token = (tokenUse: 'id' | 'access', issuer = poolIssuer(localPoolId(pool)), expiresIn = 3600) => {
    const api = served(app);
    return signPoolToken(api.signingKey, {
      issuer,
      clientId: 'local-client',
      tokenUse,
      sub: 'ana',
      scope: '',
      expiresIn,
    });
  };

  test('GET /prod/HELLO without a token: 401, API Gateway itself', async () => {
    expect(await call(served(app), 'GET', '/prod/HELLO')).toMatchObject({
      status: 401,
      body: '{"message":"Unauthorized"}',
    });
  });

  test("with its pool's ID token (the development issuer's): the function is invoked; as published its asset holds helloworld.ts alone, which no Node.js runtime loads, so its init fails (502), on AWS too", async () => {
    const api = served(app);
    const response = await call(api, 'GET', '/prod/HELLO', { authorization: await token('id') });
    expect(response).toMatchObject({ status: 502, body: internalServerError });
    await app.functionLog.seen(/^helloWorldFunction00C940B5: .*Runtime\.ImportModuleError.*helloworld/);
  });

  test.each([
    ['an access token, for a method without scopes', () => token('access')],
    ['an ID token of another pool', () => token('id', poolIssuer('us-east-1_Elsewhere'))],
    ['an expired ID token', () => token('id', undefined, -60)],
  ])('%s: 401, the function not invoked', async (_case, make) => {
    const api = served(app);
    const before = api.invocations('helloWorldFunction00C940B5');
    const response = await call(api, 'GET', '/prod/HELLO', { authorization: await make() });
    expect(response).toMatchObject({ status: 401, body: '{"message":"Unauthorized"}' });
    expect(api.invocations('helloWorldFunction00C940B5')).toBe(before);
  });
});

// aws-samples/serverless-patterns, apigw-http-api-lambda-ts-cdk, commit fb7b5d06c27d8abb1bd35e52ab7523acf4baab7b:
// an HTTP API (AWS::ApiGatewayV2::Api) with GET / to a NodejsFunction on nodejs24.x.
describe('http-api', () => {
  const app = startBeforeAll('http-api');

  test('GET / answers 200 "Hello World!" (its README); a path no route has, the HTTP API\'s 404', async () => {
    expect(await call(served(app), 'GET', '/')).toMatchObject({ status: 200, body: 'Hello World!' });
    expect(await call(served(app), 'GET', '/elsewhere')).toMatchObject({
      status: 404,
      body: JSON.stringify({ message: 'Not Found' }),
    });
  });
});

// aws-samples/serverless-patterns, apigw-lambda-authorizer-basic-cdk, commit fb7b5d06c27d8abb1bd35e52ab7523acf4baab7b:
// a RestApi (JavaScript) whose ANY / goes through a TOKEN authorizer doing Basic authentication (cached 300 s), with
// a gateway response for UNAUTHORIZED; plain lambda.Functions on nodejs24.x.
describe('basic-authorizer', () => {
  const app = startBeforeAll('basic-authorizer');
  const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });

  test('curl -u user1:password1: the hello world message (its README)', async () => {
    const response = await call(served(app), 'GET', '/prod/', basic('user1:password1'));
    expect(response).toMatchObject({
      status: 200,
      body: JSON.stringify({ message: 'Hello World from a very protected API! :)' }),
    });
  });

  test('curl -u user1:wrongPassword: the not authorized message, 403 (its README)', async () => {
    const response = await call(served(app), 'GET', '/prod/', basic('user1:wrongPassword'));
    expect(response).toMatchObject({
      status: 403,
      body: JSON.stringify({ message: 'User is not authorized to access this resource with an explicit deny' }),
    });
    expect(response.headers.get('x-amzn-errortype')).toBe('ACCESS_DENIED');
  });

  // Its authorizer allows `event.methodArn` alone and API Gateway caches the policy per token: another method with the
  // same credentials within 300 s is denied (AWS's knowledge center, "api-gateway-lambda-authorization-errors").
  test("the cached policy covers the first request's method alone: POST with the same credentials is a 403", async () => {
    const api = served(app);
    const credentials = basic('user2:password2');
    expect((await call(api, 'GET', '/prod/', credentials)).status).toBe(200);
    const response = await call(api, 'POST', '/prod/', { ...credentials, 'content-type': 'application/json' }, '{}');
    expect(response).toMatchObject({
      status: 403,
      body: JSON.stringify({ message: 'User is not authorized to access this resource' }),
    });
  });

  // The app means `WWW-Authenticate: Basic` but passes 'method.response.header.WWW-Authenticate' where the CDK's
  // responseHeaders takes a header's name: the template's parameter is
  // `gatewayresponse.header.method.response.header.WWW-Authenticate`, and the header sent is named that way (what AWS
  // sends for it is inferred from the parameter's documented form, not observed).
  test('without credentials: its UNAUTHORIZED gateway response, 401 with the header the template names', async () => {
    const response = await call(served(app), 'GET', '/prod/');
    expect(response).toMatchObject({ status: 401, body: JSON.stringify({ message: 'Unauthorized' }) });
    expect(response.headers.get('method.response.header.www-authenticate')).toBe('Basic');
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});

// aws-samples/serverless-patterns, apigw-lambda-iot-cdk, commit fb7b5d06c27d8abb1bd35e52ab7523acf4baab7b: a
// LambdaRestApi with POST /cmds to a Python function (python3.14, plain Code.fromAsset) publishing to AWS IoT Core.
describe('python-iot', () => {
  const app = startBeforeAll('python-iot');
  /** Whether this machine's python3 has boto3, which Lambda's Python runtimes provide (runtime.py takes it from here). */
  const hasBoto3 = spawnSync('python3', ['-c', 'import boto3']).status === 0;

  test('POST /prod/cmds (its README): the function runs, and its call to AWS IoT fails at once, naming the service the runner does not serve (or, on a machine without boto3, its init fails saying how to install it); on AWS IoT publishes and the function answers 200', async () => {
    const api = served(app);
    const body = JSON.stringify({ topic: 'dt', payload: { temperature: 97.88 } });
    const response = await call(api, 'POST', '/prod/cmds', { 'Content-Type': 'application/json' }, body);
    expect(response).toEqual(expect.objectContaining({ status: 502, body: internalServerError }));
    if (hasBoto3) {
      expect(app.log.lines).toContain(
        'a function called iotdata POST /topics/dt, which the runner does not serve: answered NotServedLocally (400)',
      );
      await app.functionLog.seen(
        /^iotPublishHandler612C24FD: \[ERROR\] ClientError: An error occurred \(NotServedLocally\) when calling the Publish operation: iotdata POST \/topics\/dt: the local runner does not serve iotdata/,
      );
    } else
      await app.functionLog.seen(/^iotPublishHandler612C24FD: .*Runtime\.ImportModuleError.*boto3.*pip install boto3/);
  });
});

// panacloud-modern-global-apps/full-stack-serverless-cdk, step01_hello_lambda/python/helloLambdaWithPython, commit
// 798c98300b89cfb5eac6004cd348fa60d05f813b: a LambdaRestApi (greedy proxy) to a Python function (python3.8), CDK v1.
describe('python-hello', () => {
  const app = startBeforeAll('python-hello');

  test.each([
    ['/prod/', '/'],
    ['/prod/hello/world', '/hello/world'],
  ])('GET %s: the handler its README gives answers with the path (text/plain)', async (path, proxied) => {
    const response = await call(served(app), 'GET', path);
    expect(response).toMatchObject({ status: 200, body: `Hello, You've hit the path ${proxied}.` });
    expect(response.headers.get('content-type')).toBe('text/plain');
  });
});

// cdk-patterns/serverless, the-lambda-trilogy/typescript, commit 08e31630e738f1b463c640cad1de6ca73d85f1c2: one
// calculator three ways, a stack each, all on nodejs12.x, CDK v1: an Express app through aws-serverless-express (which
// answers through context.succeed), a "fat" function's three handlers, and three single-purpose functions.
describe('lambda-trilogy', () => {
  // The three stacks at once, each API at its own address (in the manifest's order), and each alone (--stack).
  const all = startBeforeAll('lambda-trilogy');
  const lith = startBeforeAll('lambda-trilogy', { stackName: 'TheLambdaLithStack' });
  const fat = startBeforeAll('lambda-trilogy', { stackName: 'TheFatLambdaStack' });
  const single = startBeforeAll('lambda-trilogy', { stackName: 'TheSinglePurposeFunctionStack' });
  const calls = [
    ['/prod/add?firstNum=3&secondNum=4', 7],
    ['/prod/subtract?firstNum=4&secondNum=3', 1],
    ['/prod/multiply?firstNum=3&secondNum=4', 12],
  ] as const;

  test.each(calls)(
    'TheLambdaLithStack: GET %s (its README): Express answers through context.succeed',
    async (path, result) => {
      const response = await call(served(lith), 'GET', path);
      expect(response).toMatchObject({ status: 200, body: JSON.stringify({ result }) });
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    },
  );

  test.each(calls)('the three stacks at once, each at its own address: GET %s from each', async (path, result) => {
    const apis = served(all).apis;
    expect(apis.map(({ app }) => app.stackName).sort()).toEqual([
      'TheFatLambdaStack',
      'TheLambdaLithStack',
      'TheSinglePurposeFunctionStack',
    ]);
    for (const api of apis) {
      const response = await call(api, 'GET', path);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual(api.app.stackName === 'TheLambdaLithStack' ? { result } : result);
      // Each request's log line names the API it reached, with its stack.
      expect(all.log.lines).toContainEqual(
        expect.stringMatching(new RegExp(`^\\[${api.app.stackName}/${api.app.apiId}\\] GET ${path.split('?')[0]} 200`)),
      );
    }
  });

  test("TheLambdaLithStack: a path the app has no route for is Express's 404", async () => {
    const response = await call(served(lith), 'GET', '/prod/divide');
    expect(response.status).toBe(404);
    expect(response.body).toContain('Cannot GET /divide');
  });

  test.each(calls)('TheFatLambdaStack and TheSinglePurposeFunctionStack: GET %s (its README)', async (path, result) => {
    for (const stack of [fat, single]) {
      const response = await call(served(stack), 'GET', path);
      expect(response).toMatchObject({ status: 200, body: String(result) });
      expect(response.headers.get('content-type')).toBe('text/html');
    }
  });

  test("nodejs12.x runs on the runner's Node.js, and the runner says so at start", () => {
    expect(lith.log.lines).toContain(
      "lambdalithHandlerA7E51B4B: it runs on the runner's Node.js 24, not 12 as nodejs12.x does (with nodejs12.x's handler styles)",
    );
  });
});

// aws-samples/serverless-patterns, apigw-http-api-cognito-lambda-cdk, commit fb7b5d06c27d8abb1bd35e52ab7523acf4baab7b:
// an HTTP API whose GET /protected goes through a JWT authorizer on a Cognito user pool.
describe('http-api-jwt', () => {
  const app = startBeforeAll('http-api-jwt');
  const poolToken = (tokenUse: 'id' | 'access', issuer = poolIssuer(localPoolId('userPoolDC9497E0'))) =>
    signPoolToken(served(app).signingKey, {
      issuer,
      clientId: 'userPoolClientB67490F4',
      tokenUse,
      sub: 'ana',
      scope: '',
      expiresIn: 3600,
    });

  test('GET /unprotected: "Hello Unprotected Space!" (its README)', async () => {
    expect(await call(served(app), 'GET', '/unprotected')).toMatchObject({
      status: 200,
      body: 'Hello Unprotected Space!',
    });
  });

  test('GET /protected with its user pool\'s access token (its README), or ID token: "Hello Protected Space!"', async () => {
    for (const tokenUse of ['access', 'id'] as const) {
      const response = await call(served(app), 'GET', '/protected', { authorization: await poolToken(tokenUse) });
      expect(response).toMatchObject({ status: 200, body: 'Hello Protected Space!' });
    }
  });

  test("GET /protected without a token, or with another issuer's: 401, the function not invoked", async () => {
    const api = served(app);
    const before = api.invocations('protectedFnBDFE9A2C');
    const unauthorized = { status: 401, body: JSON.stringify({ message: 'Unauthorized' }) };
    expect(await call(api, 'GET', '/protected')).toMatchObject(unauthorized);
    const elsewhere = await poolToken('access', poolIssuer('us-east-1_Elsewhere'));
    expect(await call(api, 'GET', '/protected', { authorization: elsewhere })).toMatchObject(unauthorized);
    expect(api.invocations('protectedFnBDFE9A2C')).toBe(before);
  });
});

// aws-samples/serverless-patterns, apig-waf (its app in apig-waf/src), commit fb7b5d06c27d8abb1bd35e52ab7523acf4baab7b:
// two stacks, WAFAPIGatewayApi (a LambdaRestApi proxy to a nodejs22.x function the app bundles with esbuild) and
// WAFAPIGatewayWaf (a WAF web ACL on the API's prod stage).
describe('waf-multistack', () => {
  const both = startBeforeAll('waf-multistack');
  const apiStack = startBeforeAll('waf-multistack', { stackName: 'WAFAPIGatewayApi' });
  const wafStack = startBeforeAll('waf-multistack', { stackName: 'WAFAPIGatewayWaf' });

  test("two stacks at once: the API stack's API served, the WAF stack listed (it has no API), its association said", () => {
    expect(served(both).apis.map(({ app }) => `${app.stackName}/${app.apiId}`)).toEqual([
      'WAFAPIGatewayApi/WAFAPIGateway0C46B892',
    ]);
    expect(both.log.lines).toContain(
      "stacks with no API of their own: WAFAPIGatewayWaf (served: their tables, and their functions another stack's API reaches)",
    );
    const notice =
      'WAFAPIGatewayWaf/APIGatewayWebACLAssociation: a WAF web ACL association, which the runner does not apply: requests its rules would block (403 on AWS) are served';
    expect(both.log.lines).toContain(notice);
    expect(apiStack.log.lines).toContain(notice);
    expect(refusal(wafStack)).toBe(
      'WAFAPIGatewayWaf: no API (AWS::ApiGateway::RestApi, AWS::ApiGatewayV2::Api) to serve',
    );
  });

  test('WAFAPIGatewayApi: GET /prod answers Success path: "/" (its README), and the greedy proxy any path and method', async () => {
    const api = served(apiStack);
    const root = await call(api, 'GET', '/prod');
    expect(root).toMatchObject({ status: 200, body: 'Success path: "/"' });
    expect(root.headers.get('content-type')).toBe('text/plain;charset=utf-8');
    expect(await call(api, 'DELETE', '/prod/plants/7')).toMatchObject({
      status: 200,
      body: 'Success path: "/plants/7"',
    });
  });

  test("the WAF stack's web ACL is not applied (said at start), so a query with a script is served (200); on AWS its XSS rule blocks it with a 403", async () => {
    const response = await call(served(apiStack), 'GET', `/prod?q=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(response).toMatchObject({ status: 200, body: 'Success path: "/"' });
  });
});

// aws-samples/serverless-patterns, apigw-rest-api-dynamodb-lambda-cdk, commit
// fb7b5d06c27d8abb1bd35e52ab7523acf4baab7b: a RestApi whose methods are non-proxy AWS integrations with DynamoDB
// (mapping templates), and a Python stream consumer no route reaches.
describe('rest-dynamodb-integration', () => {
  const app = startBeforeAll('rest-dynamodb-integration');

  test('today: refused, non-proxy AWS integrations are not served; on AWS POST /prod/awsomedynamodb puts the item (200, {"requestId": ...}) and GET /prod/awsomedynamodb answers DynamoDB\'s Scan (its README)', () => {
    expect(refusal(app)).toBe(
      [
        'the runner serves Lambda proxy (AWS_PROXY) and MOCK integrations; not these methods:',
        '  AWSomeDynamoDBApiawsomedynamodbidGETE4D697B6 (GET /awsomedynamodb/{id}): a non-proxy integration (AWS) with dynamodb (action/GetItem)',
        '  AWSomeDynamoDBApiawsomedynamodbGET71C42A09 (GET /awsomedynamodb): a non-proxy integration (AWS) with dynamodb (action/Scan)',
        '  AWSomeDynamoDBApiawsomedynamodbPOST9A9DFD6F (POST /awsomedynamodb): a non-proxy integration (AWS) with dynamodb (action/PutItem)',
      ].join('\n'),
    );
  });
});

// aws-samples/aws-cdk-intro-workshop, code/typescript/main-workshop, commit 3a59661864d5ad3022a897fa98d13747a2764798:
// the CDK workshop's hit counter (nodejs14.x, the SDK v2 from the runtime, invoking a downstream function) behind a
// LambdaRestApi, and cdk-dynamo-table-viewer's TableViewer, a second LambdaRestApi in the same stack.
describe('cdk-workshop', () => {
  const both = startBeforeAll('cdk-workshop');
  const endpoint = startBeforeAll('cdk-workshop', { apiName: 'EndpointEEF1FD8F' });

  test('two REST APIs in the stack: both served, each at its own address; --api serves one alone', () => {
    expect(served(both).apis.map(({ app }) => app.apiId)).toEqual([
      'EndpointEEF1FD8F',
      'ViewHitCounterViewerEndpoint5A0EF326',
    ]);
    expect(served(endpoint).apis.map(({ app }) => app.apiId)).toEqual(['EndpointEEF1FD8F']);
  });

  test('today: --api EndpointEEF1FD8F serves the hit counter, whose init fails: its nodejs14.x runtime provides the SDK v2 (aws-sdk), which the app does not install, and the error says how; on AWS GET /prod/ answers 200 "Hello, CDK! You\'ve hit /" (the workshop\'s pages)', async () => {
    const api = served(endpoint);
    expect(api.app.otherApiIds).toEqual(['ViewHitCounterViewerEndpoint5A0EF326']);
    expect(await call(api, 'GET', '/prod/')).toMatchObject({ status: 502, body: internalServerError });
    await endpoint.functionLog.seen(
      /^HelloHitCounterHitCounterHandlerDAEA7B37: .*Cannot find module 'aws-sdk'.*aws-sdk is part of the AWS SDK that Lambda's nodejs14\.x runtime provides/,
    );
  });
});

// therightstuff/aws-cdk-js-dev-guide, commit f0ee931c190b1dad8d20e88b0a10eadd60e40887: three REST APIs in one stack,
// functions on nodejs22.x and python3.10 (arm64) sharing a layer (uuid and a module of its own under nodejs/, Faker
// under python/, which the fixture leaves out for size: SOURCE.md), and a DynamoDB table.
describe('dev-guide-layers', () => {
  // Its three REST APIs served at once, each at its own address.
  const app = startBeforeAll('dev-guide-layers');
  const apiNamed = (id: string) => apiOf(app, id);
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test("GET /prod/node: an ES module importing the layer's package (uuid) and its own module by /opt path", async () => {
    const response = await call(apiNamed('layerapiAC332579'), 'GET', '/prod/node');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ generatedId: expect.stringMatching(uuid) });
    // Its Access-Control-Allow-Origin is process.env.CORS_ORIGIN, which this function's environment lacks: the
    // header is undefined, so JSON leaves it out, here as on AWS.
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });

  test("GET /prod/python: its layer's Faker is left out of the fixture, so the init fails as it would on AWS without it (502)", async () => {
    expect(await call(apiNamed('layerapiAC332579'), 'GET', '/prod/python')).toMatchObject({
      status: 502,
      body: internalServerError,
    });
    await app.functionLog.seen(
      /^layerfunctionpython0E4668BE: \[ERROR\] Runtime\.ImportModuleError: Unable to import module 'main': No module named 'faker'/,
    );
  });

  test('the dynamodb API: create, list, get by owner, replace, and the 502 of a get without a query string (its code)', async () => {
    const api = apiNamed('dynamodbapi071570C2');
    const created = await call(
      api,
      'POST',
      '/prod/objects',
      { 'content-type': 'application/json' },
      '{"plant":"fern"}',
    );
    expect(created.status).toBe(200);
    const { dataOwner, objectId } = JSON.parse(created.body) as { dataOwner: string; objectId: string };
    expect(JSON.parse(created.body)).toEqual({ success: true, dataOwner: expect.stringMatching(uuid), objectId });
    expect((await call(api, 'POST', '/prod/objects', {}, 'not json')).status).toBe(400);
    const listed = JSON.parse((await call(api, 'GET', '/prod/objects')).body) as Record<string, unknown>[];
    expect(listed).toEqual([expect.objectContaining({ dataOwner, objectId })]);
    const got = await call(api, 'GET', `/prod/objects/${objectId}?dataOwner=${dataOwner}`);
    expect(JSON.parse(got.body)).toMatchObject({ Item: { dataOwner, objectId } });
    const replaced = await call(api, 'PUT', `/prod/objects/${objectId}`, {}, '{"plant":"maidenhair fern"}');
    expect(replaced).toMatchObject({ status: 200, body: JSON.stringify({ success: true }) });
    expect((await call(api, 'GET', `/prod/objects/${objectId}`)).status).toBe(502);
  });

  test('GET /prod/ of the simple API: 200 or 500, at random (its code); each API at an address of its own', async () => {
    const response = await call(apiNamed('simpleapi198F28E6'), 'GET', '/prod/');
    expect(response.status === 200 || response.status === 500).toBe(true);
    expect(JSON.parse(response.body)).toMatchObject({ success: response.status === 200 });
    const { apis } = served(app);
    expect(apis.map((api) => api.app.apiId)).toEqual(['simpleapi198F28E6', 'layerapiAC332579', 'dynamodbapi071570C2']);
    expect(new Set(apis.map(({ url }) => url)).size).toBe(3);
    // An API answers its own routes alone: the simple API has no /prod/node.
    expect((await call(apiNamed('simpleapi198F28E6'), 'GET', '/prod/node')).status).toBe(403);
  });
});

// gabow800/cdk-lambda-authorizers, commit 29b748e1db30b959af4c5a39ef558f52e5eca7da: a RestApi whose GET /hellow goes
// through a REQUEST authorizer on the query string's `token`; nodejs14.x functions.
describe('request-authorizer-query', () => {
  const app = startBeforeAll('request-authorizer-query');

  test.each([
    ['?token=xxx', 200, JSON.stringify({ message: 'Hello world from API Gateway' })],
    // Its authorizer answers the string "Unauthorized", not a policy: a malformed answer, AUTHORIZER_CONFIGURATION_ERROR.
    ['?token=other', 500, internalServerError],
    // The identity source missing: API Gateway answers itself.
    ['', 401, JSON.stringify({ message: 'Unauthorized' })],
  ])('GET /default/hellow%s answers %i, as its code gives', async (query, status, body) => {
    expect(await call(served(app), 'GET', `/default/hellow${query}`)).toMatchObject({ status, body });
  });
});

// conermurphy/cdk-tutorials, rest-api-api-key-throttling, commit 2f9e1665b63d962b766d00aea7ff4f69143a46fe: a RestApi
// whose GET / requires an API key (one with no Value: AWS generates it) of a usage plan on its prod stage, throttled.
describe('rest-api-key', () => {
  const app = startBeforeAll('rest-api-key');
  const key = () => {
    const [apiKey] = served(app).app.apiKeys;
    expect(apiKey).toMatchObject({ id: 'APIKEY7A2B2F33', generated: true, stages: ['prod'] });
    return apiKey?.value ?? '';
  };

  test("GET /prod/ with the key (its rate-limit-test.ts): 200, the function's posts", async () => {
    const response = await call(served(app), 'GET', '/prod/', { 'x-api-key': key() });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject([{ id: '1' }, { id: '2' }]);
  });

  test('GET /prod/ with no key or another one: 403 Forbidden ("Test usage plans for REST APIs"), the function not invoked', async () => {
    const api = served(app);
    const before = api.invocations('LAMBDA46A85690');
    for (const headers of [{}, { 'x-api-key': 'nope' }] as Record<string, string>[])
      expect(await call(api, 'GET', '/prod/', headers)).toMatchObject({
        status: 403,
        body: JSON.stringify({ message: 'Forbidden' }),
      });
    expect(api.invocations('LAMBDA46A85690')).toBe(before);
  });

  test("the preflight needs no key (204); the usage plan's throttle (429 on AWS) is said at start, not applied", async () => {
    expect((await call(served(app), 'OPTIONS', '/prod/')).status).toBe(204);
    expect(app.log.lines).toContain(
      "RestApiApiKeyThrottlingStack/USAGEPLAN0CE7CEBA: a usage plan's throttle, which the runner does not apply (429 on AWS)",
    );
  });
});

// go-to-k/cdkd, tests/integration/local-start-api, commit e8211279fc76bf6d1db69a4184223394931aaebb: another local
// emulator's fixture app: an HTTP API with CORS and GET /protected behind the CDK's HttpLambdaAuthorizer with IAM
// responses (payload format 1.0), a REST API with stage variables, and a function URL; its verify.sh makes the calls.
describe('http-lambda-authorizer', () => {
  const app = startBeforeAll('http-lambda-authorizer');
  const http = () => apiOf(app, 'MyHttpApi8AEAAC21');

  test('HTTP API: GET /items/42 and POST /items answer the item function (verify.sh)', async () => {
    expect(JSON.parse((await call(http(), 'GET', '/items/42')).body)).toMatchObject({ id: '42' });
    const posted = await call(http(), 'POST', '/items', { 'content-type': 'application/json' }, '{"x":1}');
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.body)).toMatchObject({ body: '{"x":1}' });
  });

  test('HTTP API: the preflight is answered by API Gateway, 204 with the configured origin', async () => {
    const preflight = await call(http(), 'OPTIONS', '/items', {
      origin: 'https://example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'Content-Type',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('GET /protected: the payload 1.0 authorizer allows Bearer let-me-in (200, its context), denies another (403), and no token is 401', async () => {
    const allowed = await call(http(), 'GET', '/protected', { authorization: 'Bearer let-me-in' });
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.body)).toEqual({ protected: true, authorizer: { user: 'integ-user', tier: 'pro' } });
    expect(await call(http(), 'GET', '/protected', { authorization: 'Bearer wrong' })).toMatchObject({
      status: 403,
      body: JSON.stringify({ message: 'Forbidden' }),
    });
    expect(await call(http(), 'GET', '/protected')).toMatchObject({
      status: 401,
      body: JSON.stringify({ message: 'Unauthorized' }),
    });
  });

  test('today: its function URL is not served, and the runner says so at start', () => {
    expect(app.log.lines).toContain(
      'CdkdLocalStartApiFixture/UrlHandlerFunctionUrlD5D2E157: a function URL (of UrlHandler5EB42054), which the runner does not serve',
    );
  });

  test('REST API: ANY /v1/anything answers with the prod stage variables (verify.sh)', async () => {
    const response = await call(apiOf(app, 'MyRestApi2D1F47A9'), 'GET', '/prod/v1/anything');
    expect(response.status).toBe(200);
    expect(response.body).toContain('"STAGE":"prod"');
  });
});

// aws/aws-cdk, packages/@aws-cdk-testing/framework-integ/test/aws-apigateway/test/integ.restapi.multistack.ts, commit
// b24117ea51f52b08a994f17eb9fcc7ad2be28119: the CDK's own test of a cross-stack integration. FirstStack's function
// (inline code) behind SecondStack's RestApi, its ARN an Export of one and an Fn::ImportValue in the other; and an
// ANY / mock with no integration response.
describe('cdk-integ-multistack', () => {
  const app = startBeforeAll('cdk-integ-multistack');

  test("GET /prod/books: SecondStack's API invokes FirstStack's function (its inline code: 200, text/plain, no body)", async () => {
    const response = await call(served(app), 'GET', '/prod/books');
    expect(response).toMatchObject({ status: 200, body: '' });
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(served(app).invocations('firstLambda395F9ADE')).toBe(1);
    expect(app.log.lines).toContain(
      "stacks with no API of their own: FirstStack (served: their tables, and their functions another stack's API reaches)",
    );
  });

  test("ANY /prod/: a mock no integration response answers is API Gateway's configuration error, 500", async () => {
    expect(await call(served(app), 'GET', '/prod/')).toMatchObject({ status: 500, body: internalServerError });
  });
});
