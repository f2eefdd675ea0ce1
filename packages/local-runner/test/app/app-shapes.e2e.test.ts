// The shapes public CDK apps showed, in fixture apps of our own (test/README.md maps each shape to the public app that
// showed it, by repository and path). The public apps themselves are studied outside this repository: fetched,
// synthesized and served in a temporary folder, never committed. Each fixture is synthesized once, in the first
// beforeAll that needs it, and served as a whole or stack by stack. Where the runner refuses a shape, or answers
// otherwise than AWS would, a test named "today: ..." asserts what it does now and says what AWS would do instead.

import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { recordedLog } from 'test-support/log-lines';
import type { RestApi as ReadRestApi } from '../../src/app/api.ts';
import { localPoolId, poolIssuer } from '../../src/app/user-pools.ts';
import { RunnerError } from '../../src/errors.ts';
import { signPoolToken } from '../../src/issuer/dev-issuer.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { synthesizeDirectIntegrationApp } from '../fixtures/direct-integration-app.ts';
import { synthesizeHttpShapesApp } from '../fixtures/http-shapes-app.ts';
import { synthesizePolyglotApp } from '../fixtures/polyglot-app.ts';
import { synthesizeRestShapesApp } from '../fixtures/rest-shapes-app.ts';
import { synthesizeStacksApp } from '../fixtures/stacks-app.ts';
import { synthesizeWebSocketModelsApp } from '../fixtures/websocket-models-app.ts';

/** A fixture's assembly, synthesized the first time a beforeAll asks for it. */
const synthesizedOnce = (synthesize: () => string) => {
  let outdir: string | undefined;
  return () => {
    outdir ??= synthesize();
    return outdir;
  };
};
const restShapes = synthesizedOnce(synthesizeRestShapesApp);
const stacks = synthesizedOnce(synthesizeStacksApp);
const polyglot = synthesizedOnce(synthesizePolyglotApp);
const httpShapes = synthesizedOnce(synthesizeHttpShapesApp);
const directIntegration = synthesizedOnce(synthesizeDirectIntegrationApp);
const webSocketModels = synthesizedOnce(synthesizeWebSocketModelsApp);
const webSocketModelsById = synthesizedOnce(() => synthesizeWebSocketModelsApp({ refByModelId: true }));

interface Started {
  /** The runner, when it serves the app. */
  api: Runner | undefined;
  /** Why it does not, when it refuses it. */
  error: unknown;
  log: ReturnType<typeof recordedLog>;
  /** Each function's log lines, as `<function id>: <line>`. */
  functionLog: ReturnType<typeof recordedLog>;
}

/**
 * Starts the runner on a fixture's assembly before the tests of the enclosing describe, and closes it after them. A
 * refusal is kept for the tests to look at (never thrown in the hook).
 */
const startBeforeAll = (
  assembly: () => string,
  { stackName, apiName }: { stackName?: string; apiName?: string } = {},
) => {
  const started: Started = { api: undefined, error: undefined, log: recordedLog(), functionLog: recordedLog() };
  beforeAll(async () => {
    try {
      started.api = await startRunner({
        cloudAssemblyDir: assembly(),
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
  }, 120_000);
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

/** A request to `api`. */
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
const unauthorized = JSON.stringify({ message: 'Unauthorized' });

describe('rest-shapes-app: five REST APIs in one stack', () => {
  const app = startBeforeAll(restShapes);

  describe('CRUD on a table, the SDK unbundled, CORS preflights from mocks', () => {
    const crud = () => apiOf(app, 'Crud');

    test('the preflights answer from their mock integrations, with the headers the app sets', async () => {
      for (const path of ['/items', '/prod/items/some-id']) {
        const preflight = await call(crud(), 'OPTIONS', path);
        expect(preflight.status).toBe(200);
        expect(preflight.body).toBe('');
        expect(
          Object.fromEntries([...preflight.headers].filter(([name]) => name.startsWith('access-control-'))),
        ).toEqual({
          'access-control-allow-credentials': 'false',
          'access-control-allow-headers': 'Content-Type,Authorization',
          'access-control-allow-methods': 'OPTIONS,GET,PATCH,POST,DELETE',
          'access-control-allow-origin': '*',
        });
      }
    });

    test("its functions import the runtime's SDK unbundled, from the app's node_modules as Lambda's runtime provides it: create, list, get, update, delete, each on its own function and the same table", async () => {
      // The SDK comes from the node_modules the fixture's project links to (this repository's, where
      // @aws-sdk/lib-dynamodb stands for what the nodejs24.x runtime includes); without it, the init fails naming the
      // package (runtimes.e2e).
      const api = crud();
      const json = { 'content-type': 'application/json' };
      const created = await call(api, 'POST', '/prod/items', json, '{"plant":"fern","kind":"perennial"}');
      expect(created).toMatchObject({ status: 201, body: '' });
      const listed = await call(api, 'GET', '/prod/items');
      expect(listed.status).toBe(200);
      const [item, ...others] = JSON.parse(listed.body) as { plantId: string }[];
      expect(others).toEqual([]);
      expect(item).toEqual({ plantId: expect.stringMatching(/^[0-9a-f-]{36}$/), plant: 'fern', kind: 'perennial' });
      const path = `/prod/items/${item?.plantId}`;
      expect(JSON.parse((await call(api, 'GET', path)).body)).toEqual(item);
      expect(await call(api, 'PATCH', path, json, '{"plant":"maidenhair fern"}')).toMatchObject({ status: 204 });
      expect(JSON.parse((await call(api, 'GET', path)).body)).toEqual({ ...item, plant: 'maidenhair fern' });
      // An attribute named by a word DynamoDB reserves (`name`), with no ExpressionAttributeNames: DynamoDB refuses
      // the update ("Reserved words in DynamoDB"; dynalite as DynamoDB), and the function answers its own error.
      const reserved = await call(api, 'PATCH', path, json, '{"name":"fern"}');
      expect(reserved).toMatchObject({ status: 500, body: 'update refused: ValidationException' });
      expect(await call(api, 'DELETE', path)).toMatchObject({ status: 200, body: '' });
      expect((await call(api, 'GET', path)).status).toBe(404);
    });
  });

  describe('callback-style TOKEN authorizers, on nodejs22.x and nodejs24.x; a REQUEST authorizer on the query string', () => {
    const guarded = () => apiOf(app, 'Guarded');

    test('without a token, API Gateway answers 401 itself, invoking no authorizer', async () => {
      const api = served(app);
      const response = await call(guarded(), 'GET', '/dev/health-24');
      expect(response).toMatchObject({ status: 401, body: unauthorized });
      expect(response.headers.get('x-amzn-errortype')).toBe('UNAUTHORIZED');
      expect(api.invocations('CallbackAuthorizer24Function')).toBe(0);
      // The CDK's log retention function is no route's: served all the same, as every function is.
      expect(api.functions).toContainEqual({
        name: expect.stringMatching(/^LogRetention/),
        lambdaName: expect.stringMatching(/^RestShapes-LogRetention/),
        reached: false,
      });
    });

    // Lambda's Node.js runtimes up to nodejs22.x take a handler that declares a callback; nodejs24.x refuses it at init
    // ("Building Lambda functions with Node.js", callback-based handlers), so every token is API Gateway's 500 for a
    // failed authorizer.
    test('nodejs24.x: the callback-style authorizer fails at init as on Lambda, so every token is a 500', async () => {
      const api = served(app);
      const before = api.invocations('HealthFunction');
      for (const token of ['allow', 'deny', 'unauthorized', 'something else']) {
        const response = await call(guarded(), 'GET', '/dev/health-24', { authorization: token });
        expect(response).toMatchObject({ status: 500, body: internalServerError });
        expect(response.headers.get('x-amzn-errortype')).toBe('AUTHORIZER_FAILURE');
      }
      await app.functionLog.seen(
        /^CallbackAuthorizer24Function: .*Init Error.*Runtime\.CallbackHandlerDeprecated.*removed support for callback-based/,
      );
      expect(api.invocations('HealthFunction')).toBe(before);
    });

    test.each([
      ['allow', 200, 'Healthy'],
      [
        'deny',
        403,
        JSON.stringify({ message: 'User is not authorized to access this resource with an explicit deny' }),
      ],
      ['unauthorized', 401, unauthorized],
      ['something else', 500, internalServerError],
    ])('nodejs22.x: GET /dev/health with the token %s answers %i', async (token, status, body) => {
      expect(await call(guarded(), 'GET', '/dev/health', { authorization: token })).toMatchObject({ status, body });
    });

    test.each([
      ['?token=open-sesame', 200, JSON.stringify([{ id: 'p1' }, { id: 'p2' }])],
      // A string, not a policy: a malformed answer, AUTHORIZER_CONFIGURATION_ERROR.
      ['?token=other', 500, internalServerError],
      // The identity source missing: API Gateway answers itself.
      ['', 401, unauthorized],
    ])('REQUEST authorizer: GET /dev/hello%s answers %i', async (query, status, body) => {
      expect(await call(guarded(), 'GET', `/dev/hello${query}`)).toMatchObject({ status, body });
    });
  });

  describe('Basic authentication in a TOKEN authorizer, with a gateway response', () => {
    const basicApi = () => apiOf(app, 'Basic');
    const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });

    test('the right credentials: the function answers', async () => {
      expect(await call(basicApi(), 'GET', '/prod/', basic('gardener:green-thumb'))).toMatchObject({
        status: 200,
        body: 'welcome, gardener',
      });
    });

    test('a wrong password: the policy denies, 403', async () => {
      const response = await call(basicApi(), 'GET', '/prod/', basic('gardener:brown-thumb'));
      expect(response).toMatchObject({
        status: 403,
        body: JSON.stringify({ message: 'User is not authorized to access this resource with an explicit deny' }),
      });
      expect(response.headers.get('x-amzn-errortype')).toBe('ACCESS_DENIED');
    });

    // The policy allows `event.methodArn` alone and API Gateway caches it per token: another method with the same
    // credentials within the TTL is denied (AWS's knowledge center, "api-gateway-lambda-authorization-errors").
    test("the cached policy covers the first request's method alone: POST with the same credentials is a 403", async () => {
      const credentials = basic('botanist:chlorophyll');
      expect((await call(basicApi(), 'GET', '/prod/', credentials)).status).toBe(200);
      const response = await call(
        basicApi(),
        'POST',
        '/prod/',
        { ...credentials, 'content-type': 'application/json' },
        '{}',
      );
      expect(response).toMatchObject({
        status: 403,
        body: JSON.stringify({ message: 'User is not authorized to access this resource' }),
      });
    });

    // The template's parameter is `gatewayresponse.header.method.response.header.WWW-Authenticate`, and the header sent
    // is named that way (what AWS sends for it is inferred from the parameter's documented form, not observed).
    test('without credentials: its UNAUTHORIZED gateway response, 401 with the header the template names', async () => {
      const response = await call(basicApi(), 'GET', '/prod/');
      expect(response).toMatchObject({ status: 401, body: unauthorized });
      expect(response.headers.get('method.response.header.www-authenticate')).toBe('Basic');
      expect(response.headers.get('www-authenticate')).toBeNull();
    });

    // "Invoking Lambda function URLs" (https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html).
    test('its function URL is served at an address of its own: the function answers', async () => {
      expect(await call(apiOf(app, 'WelcomeUrl'), 'GET', '/')).toMatchObject({
        status: 200,
        body: 'welcome, gardener',
      });
    });
  });

  describe('a Cognito user pool authorizer', () => {
    const cognito = () => apiOf(app, 'Cognito');
    const token = (tokenUse: 'id' | 'access', issuer = poolIssuer(localPoolId('Gardeners')), expiresIn = 3600) =>
      signPoolToken(served(app).signingKey, {
        issuer,
        clientId: 'local-client',
        tokenUse,
        sub: 'ana',
        scope: '',
        expiresIn,
      });

    test('GET /prod/GREETING without a token: 401, API Gateway itself', async () => {
      expect(await call(cognito(), 'GET', '/prod/GREETING')).toMatchObject({ status: 401, body: unauthorized });
    });

    test("with its pool's ID token: the function is invoked; its asset holds greeter.ts alone, which no Node.js runtime loads, so its init fails (502), on AWS too", async () => {
      const response = await call(cognito(), 'GET', '/prod/GREETING', { authorization: await token('id') });
      expect(response).toMatchObject({ status: 502, body: internalServerError });
      expect(served(app).invocations('GreeterFunction')).toBe(1);
      await app.functionLog.seen(/^GreeterFunction: .*Runtime\.ImportModuleError.*greeter/);
    });

    test.each([
      ['an access token, for a method without scopes', () => token('access')],
      ['an ID token of another pool', () => token('id', poolIssuer('us-east-1_Elsewhere'))],
      ['an expired ID token', () => token('id', undefined, -60)],
    ])('%s: 401, the function not invoked', async (_case, make) => {
      const api = served(app);
      const before = api.invocations('GreeterFunction');
      const response = await call(cognito(), 'GET', '/prod/GREETING', { authorization: await make() });
      expect(response).toMatchObject({ status: 401, body: unauthorized });
      expect(api.invocations('GreeterFunction')).toBe(before);
    });
  });

  describe('an API key with no value, in a throttled usage plan', () => {
    const keyed = () => apiOf(app, 'Keyed');
    const key = () => {
      const [apiKey] = (keyed().app as ReadRestApi).apiKeys;
      expect(apiKey).toMatchObject({ id: 'GeneratedKey', generated: true, stages: ['prod'] });
      return apiKey?.value ?? '';
    };

    test("GET /prod/ with the key: 200, the function's answer", async () => {
      const response = await call(keyed(), 'GET', '/prod/', { 'x-api-key': key() });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject([{ id: 'p1' }, { id: 'p2' }]);
    });

    test('GET /prod/ with no key or another one: 403 Forbidden ("Test usage plans for REST APIs"), the function not invoked', async () => {
      const api = served(app);
      const before = api.invocations('PostsFunction');
      for (const headers of [{}, { 'x-api-key': 'nope' }] as Record<string, string>[])
        expect(await call(keyed(), 'GET', '/prod/', headers)).toMatchObject({
          status: 403,
          body: JSON.stringify({ message: 'Forbidden' }),
        });
      expect(api.invocations('PostsFunction')).toBe(before);
    });

    test("the preflight needs no key (204); the usage plan's throttle (429 on AWS) is said at start, not applied", async () => {
      expect((await call(keyed(), 'OPTIONS', '/prod/')).status).toBe(204);
      expect(app.log.lines).toContain(
        "RestShapes/ThrottledPlan: a usage plan's throttle, which the runner does not apply (429 on AWS)",
      );
    });
  });
});

describe('stacks-app: seven stacks in one app', () => {
  const all = startBeforeAll(stacks);

  describe("a function of one stack behind another stack's REST API (Fn::ImportValue), and a mock", () => {
    test("GET /prod/books: Gateway's API invokes Library's function (its inline code: 200, text/plain, no body)", async () => {
      const response = await call(apiOf(all, 'Books'), 'GET', '/prod/books');
      expect(response).toMatchObject({ status: 200, body: '' });
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(served(all).invocations('ShelfFunction')).toBe(1);
      expect(all.log.lines).toContain(
        'stacks with no API of their own: Library, Firewall (served: their tables and functions)',
      );
    });

    test("ANY /prod/: a mock no integration response answers is API Gateway's configuration error, 500", async () => {
      expect(await call(apiOf(all, 'Books'), 'GET', '/prod/')).toMatchObject({
        status: 500,
        body: internalServerError,
      });
    });
  });

  describe('a greedy proxy, and a WAF web ACL on its stage from another stack', () => {
    const edge = startBeforeAll(stacks, { stackName: 'Edge' });
    const firewall = startBeforeAll(stacks, { stackName: 'Firewall' });
    const notice =
      'Firewall/Association: a WAF web ACL association, which the runner does not apply: requests its rules would block (403 on AWS) are served';

    test('the association is said at start, served as a whole or the API stack alone; the WAF stack alone has no API', () => {
      expect(all.log.lines).toContain(notice);
      expect(edge.log.lines).toContain(notice);
      expect(firewall.log.lines).toContain(notice);
      expect(served(edge).apis.map(({ app }) => `${app.stackName}/${app.apiId}`)).toEqual(['Edge/Proxy']);
      expect(served(firewall).apis).toEqual([]);
    });

    test('GET /prod answers with the path "/", and the greedy proxy any path and method', async () => {
      const api = served(edge);
      const root = await call(api, 'GET', '/prod');
      expect(root).toMatchObject({ status: 200, body: 'Reached /' });
      expect(root.headers.get('content-type')).toBe('text/plain;charset=utf-8');
      expect(await call(api, 'DELETE', '/prod/plants/7')).toMatchObject({ status: 200, body: 'Reached /plants/7' });
    });

    test('today: the web ACL is not applied (said at start), so a query with a script is served (200); on AWS its XSS rule blocks it with a 403', async () => {
      const response = await call(served(edge), 'GET', `/prod?q=${encodeURIComponent('<script>alert(1)</script>')}`);
      expect(response).toMatchObject({ status: 200, body: 'Reached /' });
    });
  });

  describe('one calculator twice: a function per operation, and an old-style monolith on nodejs12.x', () => {
    const monolith = startBeforeAll(stacks, { stackName: 'Monolith' });
    const perOperation = startBeforeAll(stacks, { stackName: 'PerOperation' });
    const calls = [
      ['/prod/add?a=3&b=4', 7],
      ['/prod/subtract?a=4&b=3', 1],
      ['/prod/multiply?a=3&b=4', 12],
    ] as const;

    test.each(calls)('Monolith: GET %s answers through context.succeed', async (path, result) => {
      const response = await call(served(monolith), 'GET', path);
      expect(response).toMatchObject({ status: 200, body: JSON.stringify({ result }) });
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    test.each(calls)(
      'every stack at once, each API at its own address: GET %s from each calculator',
      async (path, result) => {
        const apis = served(all).apis;
        expect(apis.map(({ app }) => `${app.stackName}/${app.apiId}`).sort()).toEqual([
          'Counter/Endpoint',
          'Counter/Viewer',
          'Edge/Proxy',
          'Gateway/Books',
          'Monolith/Calculator',
          'PerOperation/Calculator',
        ]);
        for (const api of apis.filter(({ app }) => app.apiId === 'Calculator')) {
          const response = await call(api, 'GET', path);
          expect(response.status).toBe(200);
          expect(JSON.parse(response.body)).toEqual(api.app.stackName === 'Monolith' ? { result } : result);
          // Each request's log line names the API it reached, with its stack.
          expect(all.log.lines).toContainEqual(
            expect.stringMatching(
              new RegExp(`^\\[${api.app.stackName}/${api.app.apiId}\\] GET ${path.split('?')[0]} 200`),
            ),
          );
        }
      },
    );

    test("Monolith: a path it has no operation for is the function's own 404", async () => {
      const response = await call(served(monolith), 'GET', '/prod/divide');
      expect(response.status).toBe(404);
      expect(response.body).toContain('No route for /divide');
    });

    test.each(calls)('PerOperation: GET %s, a function each', async (path, result) => {
      const response = await call(served(perOperation), 'GET', path);
      expect(response).toMatchObject({ status: 200, body: String(result) });
      expect(response.headers.get('content-type')).toBe('text/html');
    });

    test("nodejs12.x runs on the runner's Node.js, and the runner says so at start", () => {
      expect(monolith.log.lines).toContainEqual(
        expect.stringMatching(
          /^nodejs12\.x functions run on the runner's Node\.js 24, not 12 \(with nodejs12\.x's handler styles\): .*\bMonolithFunction\b/,
        ),
      );
    });
  });

  describe('two REST APIs in a stack; a hit counter on nodejs14.x', () => {
    const endpoint = startBeforeAll(stacks, { stackName: 'Counter', apiName: 'Endpoint' });

    test('both served at once, each at its own address; --api serves one alone', () => {
      expect(
        served(all)
          .apis.filter(({ app }) => app.stackName === 'Counter')
          .map(({ app }) => app.apiId),
      ).toEqual(['Endpoint', 'Viewer']);
      expect(served(endpoint).apis.map(({ app }) => app.apiId)).toEqual(['Endpoint']);
    });

    test("today: --api Endpoint serves the hit counter, whose init fails: its nodejs14.x runtime provides the SDK v2 (aws-sdk), which the app does not install, and the error says how; on AWS GET /prod/ counts the hit and answers the downstream function's text", async () => {
      const api = served(endpoint);
      expect(api.app.otherApiIds).toEqual(['Viewer']);
      expect(await call(api, 'GET', '/prod/')).toMatchObject({ status: 502, body: internalServerError });
      await endpoint.functionLog.seen(
        /^HitCounterFunction: .*Cannot find module 'aws-sdk'.*aws-sdk is part of the AWS SDK that Lambda's nodejs14\.x runtime provides/,
      );
    });
  });
});

describe('polyglot-app: layers of each language, a table, Python functions', () => {
  const app = startBeforeAll(polyglot);
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test("GET /prod/node: an ES module importing a layer's package and the layer's own module by its /opt path", async () => {
    const response = await call(apiOf(app, 'Layered'), 'GET', '/prod/node');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      plantId: expect.stringMatching(uuid),
      greeting: 'hello layer, from the layer',
    });
    // Its Access-Control-Allow-Origin is process.env.CORS_ORIGIN, which its environment lacks: the header is
    // undefined, so JSON leaves it out, here as on AWS.
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });

  test("GET /prod/python: its layer's python/ lacks the package its requirements name, so the init fails as on AWS (502)", async () => {
    expect(await call(apiOf(app, 'Layered'), 'GET', '/prod/python')).toMatchObject({
      status: 502,
      body: internalServerError,
    });
    await app.functionLog.seen(
      /^LayerPythonFunction: \[ERROR\] Runtime\.ImportModuleError: Unable to import module 'layer_user': No module named 'plant_names_generator'/,
    );
  });

  test('the objects API: create, list, get by owner, replace, and the 502 of a get without a query string', async () => {
    const api = apiOf(app, 'ObjectsApi');
    const created = await call(
      api,
      'POST',
      '/prod/objects',
      { 'content-type': 'application/json' },
      '{"plant":"fern"}',
    );
    expect(created.status).toBe(200);
    const { owner, objectId } = JSON.parse(created.body) as { owner: string; objectId: string };
    expect(JSON.parse(created.body)).toEqual({ success: true, owner: expect.stringMatching(uuid), objectId });
    expect((await call(api, 'POST', '/prod/objects', {}, 'not json')).status).toBe(400);
    const listed = JSON.parse((await call(api, 'GET', '/prod/objects')).body) as Record<string, unknown>[];
    expect(listed).toEqual([expect.objectContaining({ owner, objectId })]);
    const got = await call(api, 'GET', `/prod/objects/${objectId}?owner=${owner}`);
    expect(JSON.parse(got.body)).toMatchObject({ Item: { owner, objectId, payload: { plant: 'fern' } } });
    const replaced = await call(
      api,
      'PUT',
      `/prod/objects/${objectId}?owner=${owner}`,
      {},
      '{"plant":"maidenhair fern"}',
    );
    expect(replaced).toMatchObject({ status: 200, body: JSON.stringify({ success: true }) });
    expect((await call(api, 'GET', `/prod/objects/${objectId}`)).status).toBe(502);
  });

  test('five REST APIs in the stack, each at an address of its own, each answering its own routes alone', async () => {
    expect(await call(apiOf(app, 'Simple'), 'GET', '/prod/')).toMatchObject({ status: 200, body: 'simple' });
    const { apis } = served(app);
    expect(apis.map((api) => api.app.apiId)).toEqual(['Simple', 'Layered', 'ObjectsApi', 'PythonProxy', 'Commands']);
    expect(new Set(apis.map(({ url }) => url)).size).toBe(5);
    // The simple API has no /prod/node.
    expect((await call(apiOf(app, 'Simple'), 'GET', '/prod/node')).status).toBe(403);
  });

  test.each([
    ['/prod/', '/'],
    ['/prod/hello/world', '/hello/world'],
  ])('a Python greedy proxy: GET %s answers with the path (text/plain)', async (path, proxied) => {
    const response = await call(apiOf(app, 'PythonProxy'), 'GET', path);
    expect(response).toMatchObject({ status: 200, body: `Python reached ${proxied}` });
    expect(response.headers.get('content-type')).toBe('text/plain');
  });

  /** Whether this machine's python3 has boto3, which Lambda's Python runtimes provide (runtime.py takes it from here). */
  const hasBoto3 = () => spawnSync('python3', ['-c', 'import boto3']).status === 0;

  test('POST /prod/cmds: the Python function runs, and its call to AWS IoT fails at once, naming the service the runner does not serve (or, on a machine without boto3, its init fails saying how to install it); on AWS IoT publishes and the function answers 200', async () => {
    const body = JSON.stringify({ topic: 'dt', payload: { temperature: 21.5 } });
    const response = await call(
      apiOf(app, 'Commands'),
      'POST',
      '/prod/cmds',
      { 'Content-Type': 'application/json' },
      body,
    );
    expect(response).toEqual(expect.objectContaining({ status: 502, body: internalServerError }));
    if (hasBoto3()) {
      expect(app.log.lines).toContain(
        'a function called iotdata POST /topics/dt, which the runner does not serve: answered NotServedLocally (400)',
      );
      await app.functionLog.seen(
        /^PublishFunction: \[ERROR\] ClientError: An error occurred \(NotServedLocally\) when calling the Publish operation: iotdata POST \/topics\/dt: the local runner does not serve iotdata/,
      );
    } else await app.functionLog.seen(/^PublishFunction: .*Runtime\.ImportModuleError.*boto3.*pip install boto3/);
  });
});

describe('http-shapes-app: HTTP APIs, a REST API with stage variables, a function URL', () => {
  const app = startBeforeAll(httpShapes);

  test("GET / answers the function's text; a path no route has, the HTTP API's 404", async () => {
    expect(await call(apiOf(app, 'Hello'), 'GET', '/')).toMatchObject({ status: 200, body: 'hello over HTTP' });
    expect(await call(apiOf(app, 'Hello'), 'GET', '/elsewhere')).toMatchObject({
      status: 404,
      body: JSON.stringify({ message: 'Not Found' }),
    });
  });

  describe("a JWT authorizer trusting a Cognito user pool's issuer", () => {
    const members = () => apiOf(app, 'MembersApi');
    const poolToken = (tokenUse: 'id' | 'access', issuer = poolIssuer(localPoolId('Members'))) =>
      signPoolToken(served(app).signingKey, {
        issuer,
        clientId: 'AppClient',
        tokenUse,
        sub: 'ana',
        scope: '',
        expiresIn: 3600,
      });

    test('GET /open needs no token', async () => {
      expect(await call(members(), 'GET', '/open')).toMatchObject({ status: 200, body: 'open to all' });
    });

    test("GET /members with the pool's access token, or its ID token (the raw token, no Bearer): the function answers", async () => {
      for (const tokenUse of ['access', 'id'] as const) {
        const response = await call(members(), 'GET', '/members', { authorization: await poolToken(tokenUse) });
        expect(response).toMatchObject({ status: 200, body: 'members only' });
      }
    });

    test("GET /members without a token, or with another issuer's: 401, the function not invoked", async () => {
      const api = served(app);
      const before = api.invocations('MembersFunction');
      const refused = { status: 401, body: unauthorized };
      expect(await call(members(), 'GET', '/members')).toMatchObject(refused);
      const elsewhere = await poolToken('access', poolIssuer('us-east-1_Elsewhere'));
      expect(await call(members(), 'GET', '/members', { authorization: elsewhere })).toMatchObject(refused);
      expect(api.invocations('MembersFunction')).toBe(before);
    });
  });

  describe('an IAM-policy Lambda authorizer (payload 1.0) on an API with CORS', () => {
    const gated = () => apiOf(app, 'Gated');

    test('GET /items/42 and POST /items answer the request function', async () => {
      expect(JSON.parse((await call(gated(), 'GET', '/items/42')).body)).toMatchObject({
        pathParameters: { id: '42' },
      });
      const posted = await call(gated(), 'POST', '/items', { 'content-type': 'application/json' }, '{"x":1}');
      expect(posted.status).toBe(200);
      expect(JSON.parse(posted.body)).toMatchObject({ body: '{"x":1}' });
    });

    test('the preflight is answered by API Gateway, 204 with the configured origin', async () => {
      const preflight = await call(gated(), 'OPTIONS', '/items', {
        origin: 'https://example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Content-Type',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    });

    test('GET /protected: the authorizer allows Bearer good-token (200, its context), denies another (403), and no token is 401', async () => {
      const allowed = await call(gated(), 'GET', '/protected', { authorization: 'Bearer good-token' });
      expect(allowed.status).toBe(200);
      expect(JSON.parse(allowed.body)).toMatchObject({ authorizer: { user: 'ana', plan: 'gold' } });
      expect(await call(gated(), 'GET', '/protected', { authorization: 'Bearer bad-token' })).toMatchObject({
        status: 403,
        body: JSON.stringify({ message: 'Forbidden' }),
      });
      expect(await call(gated(), 'GET', '/protected')).toMatchObject({ status: 401, body: unauthorized });
    });
  });

  // "Invoking Lambda function URLs" (https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html).
  test('the function URL is served at an address of its own: the function answers, its event payload 2.0', async () => {
    const response = await call(apiOf(app, 'RequestUrl'), 'POST', '/', { 'content-type': 'text/plain' }, 'hi');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ method: 'POST', body: 'hi' });
  });

  test('REST API: ANY /v1/anything answers with the prod stage variables', async () => {
    const response = await call(apiOf(app, 'Versioned'), 'GET', '/prod/v1/anything');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ stageVariables: { STAGE: 'prod' } });
  });
});

describe('direct-integration-app: non-proxy AWS integrations with DynamoDB', () => {
  const app = startBeforeAll(directIntegration);

  // As on AWS: POST /prod/seeds puts an item keyed by the request id, GET /prod/seeds answers DynamoDB's Scan and
  // GET /prod/seeds/{id} its GetItem, each the service's answer passed through (no response template).
  test('POST /prod/seeds puts an item, GET /prod/seeds scans it, GET /prod/seeds/{id} gets it', async () => {
    const seeds = apiOf(app, 'SeedsApi');
    const put = await call(seeds, 'POST', '/prod/seeds', { 'content-type': 'application/json' }, '{}');
    expect(put.status).toBe(200);
    const requestId = put.headers.get('x-amzn-requestid') as string;
    const scan = await call(seeds, 'GET', '/prod/seeds');
    expect(scan.status).toBe(200);
    expect(JSON.parse(scan.body).Items).toContainEqual({ seedId: { S: requestId } });
    const got = await call(seeds, 'GET', `/prod/seeds/${requestId}`);
    expect(JSON.parse(got.body)).toEqual({ Item: { seedId: { S: requestId } } });
  });
});

/** A WebSocket client of `url`: each message sent is answered by the next one the API sends back. */
const webSocketClient = (url: string) =>
  new Promise<{ ask: (message: string) => Promise<string>; close: () => void }>((resolve, reject) => {
    const socket = new WebSocket(url);
    const received: string[] = [];
    const waiting: ((message: string) => void)[] = [];
    socket.addEventListener('message', ({ data }) => {
      const next = waiting.shift();
      if (next) next(String(data));
      else received.push(String(data));
    });
    socket.addEventListener('error', () => reject(new Error(`${url}: the connection failed`)));
    socket.addEventListener('open', () =>
      resolve({
        ask: (message) => {
          socket.send(message);
          const ready = received.shift();
          return ready === undefined ? new Promise((answer) => waiting.push(answer)) : Promise.resolve(ready);
        },
        close: () => socket.close(),
      }),
    );
  });

// "Request validation for WebSocket APIs in API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/websocket-api-request-validation.html): "Model
// validation occurs if you provide a model selection expression"; "If there is no matching model and $default isn't
// defined, the validation fails"; then API Gateway "fails the request without calling your backend, sends a 'Bad
// request body' gateway response to the client". Models refer to each other by URL as a REST API's do ("Data models
// for REST APIs", https://docs.aws.amazon.com/apigateway/latest/developerguide/models-mappings-models.html).
describe('websocket-models-app: a WebSocket route validating messages against models that $ref each other', () => {
  const app = startBeforeAll(webSocketModels);
  let client: Awaited<ReturnType<typeof webSocketClient>>;
  beforeAll(async () => {
    client = await webSocketClient(`${apiOf(app, 'Canvas').url.replace(/^http:/, 'ws:')}/live`);
  });
  afterAll(() => client?.close());
  const answer = async (message: unknown) => JSON.parse(await client.ask(JSON.stringify(message))) as unknown;
  const badRequestBody = {
    message: 'Bad request body',
    connectionId: expect.any(String),
    requestId: expect.any(String),
  };
  const icon = { img: 1, x: 10, y: 20 };

  test('a message its model takes, the referenced icon model included, reaches the function', async () => {
    expect(await answer({ action: 'add', icon })).toMatchObject({ route: '$default', calls: 1 });
  });

  test('a message the referenced model refuses, or whose action selects no model (no $default), is answered "Bad request body" and never reaches the function', async () => {
    expect(await answer({ action: 'add', icon: { img: 1, x: 10 } })).toEqual(badRequestBody);
    expect(await answer({ action: 'move', icon })).toEqual(badRequestBody);
    expect(await answer({ action: 'erase' })).toEqual(badRequestBody);
    expect(JSON.parse(await client.ask('not json'))).toEqual(badRequestBody);
    expect(await answer({ action: 'move', id: 'i1', icon })).toMatchObject({ route: '$default', calls: 2 });
  });

  test('RequestModels without a ModelSelectionExpression: not validated', async () => {
    expect(await answer({ action: 'note', anything: true })).toMatchObject({ route: 'note', calls: 3 });
  });
});

describe("websocket-models-app, the icon referred to by its Ref (a WebSocket API model's Ref is its id, not its name)", () => {
  const app = startBeforeAll(webSocketModelsById);

  test('refused, naming the route: what API Gateway does with a model id in the URL is not documented', () => {
    expect(refusal(app)).toMatch(/\(\$default\): a model's \$ref .*which names no model of this API/);
  });
});
