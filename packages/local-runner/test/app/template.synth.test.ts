// The runner refuses, with a message naming the resource, what it cannot reproduce, instead of guessing.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import {
  AuthorizationType,
  AwsIntegration,
  type CfnRestApi,
  HttpIntegration,
  IdentitySource,
  LambdaIntegration,
  MockIntegration,
  RequestAuthorizer,
  ResponseTransferMode,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { CfnApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { readLocalApis, readLocalApp } from '../../src/app/template.ts';
import { functionVariables } from '../../src/lambda/variables.ts';

const code = () => Code.fromAsset(new URL('../fixtures/functions', import.meta.url).pathname);

/** The folder of an app synthesized after `build` has added to it. */
const synthesize = (build: (app: App) => void) => {
  const outdir = mkdtempSync(join(tmpdir(), 'local-runner-template-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  build(app);
  app.synth();
  return outdir;
};

/** A stack `Case` after `build` has added to it, synthesized, and read as the runner does. */
const readAssembly = (build: (stack: Stack) => void) =>
  readLocalApp(synthesize((app) => build(new Stack(app, 'Case'))));

/** A one-function app with a REST API after `build` has added to it, read as the runner does. */
const read = (build: (stack: Stack, api: RestApi, fn: LambdaFunction) => void) =>
  readAssembly((stack) => {
    const fn = new LambdaFunction(stack, 'Echo', {
      code: code(),
      handler: 'echo.handler',
      runtime: Runtime.NODEJS_24_X,
    });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId('EchoFunction');
    build(stack, new RestApi(stack, 'Api'), fn);
  });

/** Two REST APIs, each with a route to a function of its own (and a stage named after it). */
const twoApis = (stack: Stack) => {
  for (const name of ['Orders', 'Users']) {
    const fn = new LambdaFunction(stack, name, { code: code(), handler: 'echo.handler', runtime: Runtime.NODEJS_24_X });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId(`${name}Function`);
    const api = new RestApi(stack, `${name}Api`, { deployOptions: { stageName: name.toLowerCase() } });
    (api.node.defaultChild as CfnRestApi).overrideLogicalId(`${name}Api`);
    api.root.addResource(name.toLowerCase()).addMethod('GET', new LambdaIntegration(fn));
  }
};

test('--api ID: that REST API alone, with its stage and routes; the other API and the functions only it reaches are listed', () => {
  const app = readLocalApp(
    synthesize((cdkApp) => twoApis(new Stack(cdkApp, 'Case'))),
    { apiName: 'UsersApi' },
  );
  expect(app).toMatchObject({ apiId: 'UsersApi', otherApiIds: ['OrdersApi'], stageName: 'users' });
  expect(app.routes.map(({ method, resourcePath }) => `${method} ${resourcePath}`)).toEqual(['GET /users']);
  expect([...app.functions.keys()]).toEqual(['UsersFunction']);
  expect(app.unreachedFunctions).toEqual(['OrdersFunction']);
});

test('a mock integration (a CORS preflight) is read as API Gateway answers it: the selected response, static', () => {
  const app = read((_stack, api) =>
    api.root
      .addResource('plants')
      .addCorsPreflight({ allowOrigins: ['https://app.example.com'], allowMethods: ['POST'] }),
  );
  expect(app.routes).toEqual([
    {
      integration: 'mock',
      resourcePath: '/plants',
      method: 'OPTIONS',
      authorizerId: undefined,
      authorizationScopes: [],
      statusCode: 204,
      headers: expect.objectContaining({
        'Access-Control-Allow-Origin': 'https://app.example.com',
        'Access-Control-Allow-Methods': 'POST',
      }),
      body: '',
    },
  ]);
});

describe('readLocalApp refuses', () => {
  test('IAM authorization, which nothing local can check a signature against', () => {
    expect(() =>
      read((_stack, api, fn) => {
        api.root.addMethod('GET', new LambdaIntegration(fn), { authorizationType: AuthorizationType.IAM });
      }),
    ).toThrow(/authorization type AWS_IAM \(only NONE, CUSTOM and COGNITO_USER_POOLS\)/);
  });

  test("a REQUEST authorizer's identity source that is not a header, query string, stage variable or context value", () => {
    expect(() =>
      read((stack, api, fn) => {
        const authorizer = new RequestAuthorizer(stack, 'Request', {
          handler: fn,
          identitySources: [IdentitySource.header('X-Key'), 'method.request.path.id'],
        });
        api.root.addMethod('GET', new LambdaIntegration(fn), { authorizer });
      }),
    ).toThrow(/^Request\w+: identity source method\.request\.path\.id$/);
  });

  test('every method whose integration is neither a Lambda proxy nor a mock, each named with what it is', () => {
    const refusal = () =>
      read((_stack, api, fn) => {
        api.root.addMethod('GET', new HttpIntegration('https://example.com/'));
        api.root.addResource('lambda').addMethod('POST', new LambdaIntegration(fn, { proxy: false }));
        api.root.addResource('items').addMethod('PUT', new AwsIntegration({ service: 'dynamodb', action: 'PutItem' }));
        const streamed = new LambdaIntegration(fn, { responseTransferMode: ResponseTransferMode.STREAM });
        api.root.addResource('stream').addMethod('GET', streamed);
      });
    expect(refusal).toThrow(/the runner serves Lambda proxy \(AWS_PROXY\) and MOCK integrations; not these methods:/);
    expect(refusal).toThrow(/\(GET \/\): an HTTP integration \(HTTP_PROXY\) to https:\/\/example\.com\//);
    expect(refusal).toThrow(/\(POST \/lambda\): a non-proxy Lambda integration \(AWS, with mapping templates\)/);
    expect(refusal).toThrow(/\(PUT \/items\): a non-proxy integration \(AWS\) with dynamodb \(action\/PutItem\)/);
    expect(refusal).toThrow(
      /\(GET \/stream\): a response-streaming integration \(AWS_PROXY, ResponseTransferMode STREAM\), which the runner does not stream/,
    );
  });

  test('a WebSocket API, saying what it is', () => {
    expect(() =>
      readAssembly((stack) => {
        new CfnApi(stack, 'Chat', {
          name: 'chat',
          protocolType: 'WEBSOCKET',
          routeSelectionExpression: '$request.body.action',
        });
      }),
    ).toThrow(/^Chat: a WEBSOCKET API, which the runner does not serve$/);
  });

  test('several stacks, naming them and the option that chooses one; a stack it does not have, naming those it has', () => {
    const outdir = synthesize((app) => {
      for (const name of ['Users', 'Orders']) new Stack(app, name);
    });
    expect(() => readLocalApp(outdir)).toThrow(`${outdir} has 2 stacks (Users, Orders): choose one with --stack NAME`);
    expect(() => readLocalApp(outdir, { stackName: 'Billing' })).toThrow(
      `${outdir} has no stack named Billing; its stacks: Users, Orders`,
    );
  });

  test('several APIs in a stack read as one app, naming them and the option that chooses one; one it does not have', () => {
    const outdir = synthesize((app) => twoApis(new Stack(app, 'Case')));
    expect(() => readLocalApp(outdir)).toThrow(
      'Case has 2 APIs (OrdersApi, UsersApi): the runner serves one at a time, choose one with --api ID',
    );
    expect(() => readLocalApp(outdir, { apiName: 'BillingApi' })).toThrow(
      'Case has no API BillingApi; its APIs: OrdersApi, UsersApi',
    );
    // Served, each is read on its own (readLocalApis).
    expect(readLocalApis(outdir).map(({ apiId }) => apiId)).toEqual(['OrdersApi', 'UsersApi']);
  });

  test('a mock whose answer needs mapping-template logic (VTL)', () => {
    const integrationResponses = [
      { statusCode: '200', responseTemplates: { 'application/json': '{"origin": "$input.params(\'Origin\')"}' } },
    ];
    const requestTemplates = { 'application/json': '{ statusCode: 200 }' };
    expect(() =>
      read((_stack, api) =>
        api.root.addMethod('GET', new MockIntegration({ requestTemplates, integrationResponses }), {
          methodResponses: [{ statusCode: '200' }],
        }),
      ),
    ).toThrow(/mock response template .* \(only a static body\)/);
  });

  test('a function on a runtime the runner does not run (Java), when a route reaches it', () => {
    expect(() =>
      read((stack, api) => {
        const java = new LambdaFunction(stack, 'Java', {
          code: code(),
          handler: 'example.Handler::handleRequest',
          runtime: Runtime.JAVA_21,
        });
        api.root.addMethod('GET', new LambdaIntegration(java));
      }),
    ).toThrow(
      /^Java[0-9A-F]+: runtime java21 is not run locally \(the runner runs Node\.js, Python and OS-only runtimes: nodejs\*, python3\.\*, provided\*\)$/,
    );
  });
});

test('functions no route or authorizer reaches are listed, not read: their runtime or variables stop nothing', () => {
  const app = read((stack, api, fn) => {
    api.root.addMethod('GET', new LambdaIntegration(fn));
    const provider = new LambdaFunction(stack, 'Provider', {
      code: code(),
      handler: 'echo.handler',
      runtime: Runtime.PYTHON_3_13,
    });
    // A runtime given by an intrinsic (as some providers' are), which the runner could not read.
    (provider.node.defaultChild as CfnFunction).addPropertyOverride('Runtime', { 'Fn::FindInMap': ['M', 'K', 'V'] });
    (provider.node.defaultChild as CfnFunction).overrideLogicalId('ProviderFunction');
  });
  expect([...app.functions.keys()]).toEqual(['EchoFunction']);
  expect(app.unreachedFunctions).toEqual(['ProviderFunction']);
});

describe('functionVariables', () => {
  test('resolves what has a local meaning, and names a variable that has none', () => {
    const app = read((stack, api, fn) => {
      api.root.addMethod('GET', new LambdaIntegration(fn));
      fn.addEnvironment('REGION', stack.region);
      fn.addEnvironment('API', api.restApiId);
      // A function's name (its Ref), which the hit counter of the CDK workshop passes to the function it invokes.
      const downstream = new LambdaFunction(stack, 'Downstream', {
        code: code(),
        handler: 'echo.handler',
        runtime: Runtime.NODEJS_24_X,
      });
      (downstream.node.defaultChild as CfnFunction).overrideLogicalId('DownstreamFunction');
      fn.addEnvironment('DOWNSTREAM', downstream.functionName);
    });
    const echo = app.functions.get('EchoFunction');
    if (!echo) throw new Error('no EchoFunction');

    expect(functionVariables(echo, app, { API: 'overridden' })).toMatchObject({
      REGION: 'us-east-1',
      API: 'overridden',
      // Locally a function's name is its logical id (its AWS_LAMBDA_FUNCTION_NAME).
      DOWNSTREAM: 'DownstreamFunction',
    });
    expect(() => functionVariables(echo, app, {})).toThrow(
      /EchoFunction: environment variable API is \{"Ref":"Api\w+"\}, which has no local value; give one with --env-vars/,
    );
  });
});
