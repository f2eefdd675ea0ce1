// The runner refuses, with a message naming the resource, what it cannot reproduce, instead of guessing.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { App, Fn, NestedStack, Stack } from 'aws-cdk-lib';
import {
  AuthorizationType,
  AwsIntegration,
  CfnRestApi,
  HttpIntegration,
  IdentitySource,
  LambdaIntegration,
  MockIntegration,
  RequestAuthorizer,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { CfnApi, CfnAuthorizer, HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { type CfnUserPool, UserPool } from 'aws-cdk-lib/aws-cognito';
import {
  AttributeType,
  Billing,
  Capacity,
  type CfnGlobalTable,
  type CfnTable,
  StreamViewType,
  Table,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { RestApi as ReadRestApi } from '../../src/app/api.ts';
import { readApi, readAssembly } from '../../src/app/assembly.ts';
import { namedFunction, servedFunctions } from '../../src/app/served-functions.ts';
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
const readCase = (build: (stack: Stack) => void) => readApi(synthesize((app) => build(new Stack(app, 'Case'))));

/** A one-function app with a REST API after `build` has added to it, read as the runner does. */
const read = (build: (stack: Stack, api: RestApi, fn: LambdaFunction) => void) =>
  readCase((stack) => {
    const fn = new LambdaFunction(stack, 'Echo', {
      code: code(),
      handler: 'echo.handler',
      runtime: Runtime.NODEJS_24_X,
    });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId('EchoFunction');
    build(stack, new RestApi(stack, 'Api'), fn);
  }) as ReadRestApi;

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
  const app = readApi(
    synthesize((cdkApp) => twoApis(new Stack(cdkApp, 'Case'))),
    { apiName: 'UsersApi' },
  ) as ReadRestApi;
  expect(app).toMatchObject({ apiId: 'UsersApi', otherApiIds: ['OrdersApi'], stages: [{ name: 'users' }] });
  if (app.kind !== 'rest') throw new Error('a REST API');
  expect(app.routes.map(({ method, resourcePath }) => `${method} ${resourcePath}`)).toEqual(['GET /users']);
  expect([...app.functions.keys()]).toEqual(['UsersFunction']);
});

test('a mock integration (a CORS preflight) is read with its templates and integration responses', () => {
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
      apiKeyRequired: false,
      iam: false,
      requestTemplates: { 'application/json': '{ statusCode: 200 }' },
      passthrough: 'WHEN_NO_MATCH',
      requestContentHandling: undefined,
      responses: [
        {
          selectionPattern: undefined,
          statusCode: 204,
          headers: expect.objectContaining({
            'Access-Control-Allow-Origin': "'https://app.example.com'",
            'Access-Control-Allow-Methods': "'POST'",
          }),
          templates: {},
          contentHandling: undefined,
        },
      ],
    },
  ]);
});

test('IAM authorization: the method marked, to have its SigV4 signature checked (gateway/sigv4.ts)', () => {
  const app = read((_stack, api, fn) => {
    api.root.addMethod('GET', new LambdaIntegration(fn), { authorizationType: AuthorizationType.IAM });
  });
  expect(app.routes.map(({ method, iam, authorizerId }) => ({ method, iam, authorizerId }))).toEqual([
    { method: 'GET', iam: true, authorizerId: undefined },
  ]);
});

describe('readApi refuses', () => {
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

  // What a non-proxy integration uses that the runner does not reproduce ("Variables for data transformations for API
  // Gateway": $util has six functions; a service it does not serve; a VPC link), every method named at once.
  test('every method whose integration uses what the runner does not reproduce, each named with the construct', () => {
    const refusal = () =>
      read((_stack, api, fn) => {
        api.root.addMethod('GET', new HttpIntegration('https://example.com/'));
        api.root.addResource('lambda').addMethod(
          'POST',
          new LambdaIntegration(fn, {
            proxy: false,
            requestTemplates: { 'application/json': '$util.toJson($input)' },
          }),
        );
        api.root
          .addResource('items')
          .addMethod('PUT', new AwsIntegration({ service: 'firehose', action: 'PutRecord' }));
        api.root.addResource('paths').addMethod(
          'GET',
          new LambdaIntegration(fn, {
            proxy: false,
            requestTemplates: { 'application/json': "$input.json('$.names.min()')" },
          }),
        );
      });
    expect(refusal).toThrow(/the runner does not serve these methods' integrations/);
    expect(refusal).not.toThrow(/\(GET \/\)/);
    expect(refusal).toThrow(/\(POST \/lambda\): its application\/json template uses \$util\.toJson/);
    expect(refusal).toThrow(
      /\(PUT \/items\): an AWS integration with firehose \(the runner integrates sqs, sns, events, dynamodb, kinesis, states, s3\)/,
    );
    expect(refusal).toThrow(/\(GET \/paths\): its application\/json template uses the JSONPath \$\.names\.min\(\)/);
  });

  test('an HTTP API\'s Lambda authorizer with simple responses on payload 1.0, which takes 2.0 ("must return an IAM policy")', () => {
    expect(() =>
      readCase((stack) => {
        const fn = new LambdaFunction(stack, 'Echo', {
          code: code(),
          handler: 'echo.handler',
          runtime: Runtime.NODEJS_24_X,
        });
        const api = new HttpApi(stack, 'Items');
        api.addRoutes({
          path: '/items',
          integration: new HttpLambdaIntegration('Echo', fn),
          authorizer: new HttpLambdaAuthorizer('Keyed', fn, { responseTypes: [HttpLambdaResponseType.SIMPLE] }),
        });
        for (const child of api.node.findAll())
          if (child instanceof CfnAuthorizer) {
            child.overrideLogicalId('KeyedAuthorizer');
            child.addPropertyOverride('AuthorizerPayloadFormatVersion', '1.0');
          }
      }),
    ).toThrow('KeyedAuthorizer: simple responses with payload format 1.0, which take 2.0');
  });

  test('API keys from a Lambda authorizer (ApiKeySourceType AUTHORIZER): the runner reads X-API-Key alone', () => {
    expect(() =>
      read((_stack, api, fn) => {
        api.root.addMethod('GET', new LambdaIntegration(fn), { apiKeyRequired: true });
        (api.node.defaultChild as CfnRestApi).overrideLogicalId('KeyedApi');
        (api.node.defaultChild as CfnRestApi).apiKeySourceType = 'AUTHORIZER';
      }),
    ).toThrow(
      "KeyedApi: API key source AUTHORIZER (a Lambda authorizer's usageIdentifierKey), which the runner does not serve; HEADER is",
    );
  });

  test('a WebSocket API without a stage, which no client can reach, saying so', () => {
    expect(() =>
      readCase((stack) => {
        new CfnApi(stack, 'Chat', {
          name: 'chat',
          protocolType: 'WEBSOCKET',
          routeSelectionExpression: '$request.body.action',
        });
      }),
    ).toThrow(/^Chat: a WebSocket API with no stage \(AWS::ApiGatewayV2::Stage\)/);
  });

  test('an HTTP API CORS origin with a wildcard other than the documented *, https://* and http://* ("Configure CORS for HTTP APIs")', () => {
    expect(() =>
      readCase((stack) => {
        const api = new HttpApi(stack, 'Items', {
          corsPreflight: { allowOrigins: ['https://*', 'https://*.example.com'] },
        });
        (api.node.defaultChild as CfnApi).overrideLogicalId('Items');
      }),
    ).toThrow(
      /^Items: CorsConfiguration\.AllowOrigins https:\/\/\*\.example\.com, a wildcard API Gateway does not document/,
    );
  });

  test('several stacks, naming them and the option that chooses one; a stack it does not have, naming those it has', () => {
    const outdir = synthesize((app) => {
      for (const name of ['Users', 'Orders']) new Stack(app, name);
    });
    expect(() => readApi(outdir)).toThrow(`${outdir} has 2 stacks (Users, Orders): choose one with --stack NAME`);
    expect(() => readApi(outdir, { stackName: 'Billing' })).toThrow(
      `${outdir} has no stack named Billing; its stacks: Users, Orders`,
    );
  });

  test('several APIs in a stack read as one app, naming them and the option that chooses one; one it does not have', () => {
    const outdir = synthesize((app) => twoApis(new Stack(app, 'Case')));
    expect(() => readApi(outdir)).toThrow(
      'Case has 2 APIs (OrdersApi, UsersApi): the runner serves one at a time, choose one with --api ID',
    );
    expect(() => readApi(outdir, { apiName: 'BillingApi' })).toThrow(
      'Case has no API BillingApi; its APIs: OrdersApi, UsersApi',
    );
    // Served, each is read on its own (readAssembly).
    expect(readAssembly(outdir).apis.map(({ apiId }) => apiId)).toEqual(['OrdersApi', 'UsersApi']);
  });

  // "Mock integrations for REST APIs in API Gateway" does not say what a mock's integration response payload holds.
  test("a mock whose integration response reads the mock's payload ($input.body, $input.path, integration.response.*)", () => {
    const requestTemplates = { 'application/json': '{ statusCode: 200 }' };
    for (const [response, construct] of [
      [
        { responseTemplates: { 'application/json': '{"echo": $input.json(\'$\')}' } },
        'its application/json template reads $input.json',
      ],
      [{ responseTemplates: { 'text/html': '<p>$input.body</p>' } }, 'its text/html template reads $input.body'],
      [
        { responseParameters: { 'method.response.header.X-Id': 'integration.response.body.id' } },
        'parameter method.response.header.X-Id = integration.response.body.id',
      ],
    ] as const)
      expect(() =>
        read((_stack, api) =>
          api.root.addMethod(
            'GET',
            new MockIntegration({ requestTemplates, integrationResponses: [{ statusCode: '200', ...response }] }),
            { methodResponses: [{ statusCode: '200' }] },
          ),
        ),
      ).toThrow(`(GET /) (integration response 200): ${construct}, a mock's payload`);
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

// "Every function is servable and invokable, whatever reaches it": a queue's consumer is read as any function is; one
// that cannot run locally (here a runtime given by an intrinsic, as some providers' are) is listed with its reason
// instead of refusing the app.
test('functions no route or authorizer reaches are read too; one that cannot run is listed with its reason', () => {
  const outdir = synthesize((app) => {
    const stack = new Stack(app, 'Case');
    const fn = new LambdaFunction(stack, 'Echo', {
      code: code(),
      handler: 'echo.handler',
      runtime: Runtime.NODEJS_24_X,
    });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId('EchoFunction');
    new RestApi(stack, 'Api').root.addMethod('GET', new LambdaIntegration(fn));
    const consumer = new LambdaFunction(stack, 'Consumer', {
      code: code(),
      handler: 'echo.handler',
      runtime: Runtime.PYTHON_3_13,
    });
    (consumer.node.defaultChild as CfnFunction).overrideLogicalId('ConsumerFunction');
    const provider = new LambdaFunction(stack, 'Provider', {
      code: code(),
      handler: 'echo.handler',
      runtime: Runtime.PYTHON_3_13,
    });
    (provider.node.defaultChild as CfnFunction).addPropertyOverride('Runtime', { 'Fn::FindInMap': ['M', 'K', 'V'] });
    (provider.node.defaultChild as CfnFunction).overrideLogicalId('ProviderFunction');
  });
  const assembly = readAssembly(outdir);
  expect(servedFunctions(assembly).map(({ name, reached }) => [name, reached])).toEqual([
    ['EchoFunction', true],
    ['ConsumerFunction', false],
  ]);
  expect(namedFunction(assembly, 'ConsumerFunction').fn.runtime).toBe('python3.13');
  expect(assembly.unservable).toEqual([
    {
      stackName: 'Case',
      id: 'ProviderFunction',
      reason: expect.stringMatching(/^ProviderFunction: runtime .* is not run locally/),
    },
  ]);
  expect(() => namedFunction(assembly, 'ProviderFunction')).toThrow(
    /ProviderFunction is not served: ProviderFunction: runtime/,
  );
});

describe('functionVariables', () => {
  test('resolves what has a local meaning, and names a variable that has none', () => {
    const app = read((stack, api, fn) => {
      api.root.addMethod('GET', new LambdaIntegration(fn));
      fn.addEnvironment('REGION', stack.region);
      // A REST API's Ref is its id, which locally is its logical id (its events' apiId).
      fn.addEnvironment('API', api.restApiId);
      // A queue's Ref is its URL, which no local service serves yet.
      fn.addEnvironment('QUEUE', new Queue(stack, 'Jobs').queueUrl);
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

    expect(functionVariables(echo, app, { QUEUE: 'overridden' })).toMatchObject({
      REGION: 'us-east-1',
      API: expect.stringMatching(/^Api\w+$/),
      QUEUE: 'overridden',
      // A function's name (its AWS_LAMBDA_FUNCTION_NAME): with no FunctionName, as CloudFormation generates one.
      DOWNSTREAM: expect.stringMatching(/^\w+-DownstreamFunction-[A-Za-z0-9]{12}$/),
    });
    expect(() => functionVariables(echo, app, {})).toThrow(
      /^EchoFunction: environment variable QUEUE is \{"Ref":"Jobs\w+"\} \(Jobs\w+, an AWS::SQS::Queue: its URL names the port of the local SQS, known only once it serves\), which has no local value; give one with --env-vars$/,
    );
  });
});

describe('readAssembly: several stacks at once', () => {
  /** A stack `name` with a REST API `<name>Api` whose GET /<name> reaches its function `<name>Function`. */
  const apiStack = (app: App, name: string, functionId = `${name}Function`) => {
    const stack = new Stack(app, name);
    const fn = new LambdaFunction(stack, 'Fn', { code: code(), handler: 'echo.handler', runtime: Runtime.NODEJS_24_X });
    (fn.node.defaultChild as CfnFunction).overrideLogicalId(functionId);
    const api = new RestApi(stack, 'Api');
    (api.node.defaultChild as CfnRestApi).overrideLogicalId(`${name}Api`);
    api.root.addResource(name.toLowerCase()).addMethod('GET', new LambdaIntegration(fn));
    return { stack, fn };
  };

  test("every stack's APIs, each its own app; a stack with no API listed; every stack's tables; a cross-stack reference resolved in the stack that exports it", () => {
    const outdir = synthesize((app) => {
      const data = new Stack(app, 'Data');
      const table = new Table(data, 'Plants', { partitionKey: { name: 'id', type: AttributeType.STRING } });
      (table.node.defaultChild as CfnTable).overrideLogicalId('PlantsTable');
      apiStack(app, 'Users');
      // The CDK writes the table's name as an Export of Data and an Fn::ImportValue in Orders.
      apiStack(app, 'Orders').fn.addEnvironment('TABLE', table.tableName);
    });
    const assembly = readAssembly(outdir);
    expect(assembly.apis.map(({ stackName, apiId }) => `${stackName}/${apiId}`)).toEqual([
      'Users/UsersApi',
      'Orders/OrdersApi',
    ]);
    expect(assembly.stacksWithoutApi).toEqual(['Data']);
    expect(assembly.tables.map(({ tableName }) => tableName)).toEqual(['PlantsTable']);
    const orders = assembly.apis[1];
    const fn = orders?.functions.get('OrdersFunction');
    if (!orders || !fn) throw new Error('no OrdersFunction');
    expect(fn.variables.TABLE).toHaveProperty('Fn::ImportValue');
    expect(functionVariables(fn, orders, {}).TABLE).toBe('PlantsTable');
    // One stack chosen: the others' tables are still there, as deployed.
    expect(readAssembly(outdir, { stackName: 'Orders' })).toMatchObject({
      apis: [{ apiId: 'OrdersApi' }],
      tables: [{ tableName: 'PlantsTable' }],
    });
    // One API chosen, found in whichever stack has it.
    expect(readAssembly(outdir, { apiName: 'UsersApi' }).apis.map(({ stackName }) => stackName)).toEqual(['Users']);
  });

  test('two stacks with a function of the same id (one construct in two stacks): each served, named by its stack', () => {
    const twins = synthesize((app) => {
      apiStack(app, 'Dev', 'ApiFunction');
      apiStack(app, 'Prod', 'ApiFunction');
    });
    const assembly = readAssembly(twins);
    const served = servedFunctions(assembly);
    expect(served.map(({ name, context }) => [name, context.stackName])).toEqual([
      ['Dev/ApiFunction', 'Dev'],
      ['Prod/ApiFunction', 'Prod'],
    ]);
    expect(namedFunction(assembly, 'Prod/ApiFunction').context.stackName).toBe('Prod');
    expect(() => namedFunction(assembly, 'ApiFunction')).toThrow(
      'ApiFunction is the logical id of 2 functions, Dev/ApiFunction, Prod/ApiFunction: name one by its construct path or Stack/id',
    );
    // One stack: its functions by their logical ids.
    const prod = readAssembly(twins, { stackName: 'Prod' });
    expect(servedFunctions(prod).map(({ name }) => name)).toEqual(['ApiFunction']);
    expect(namedFunction(prod, 'ApiFunction').context.stackName).toBe('Prod');
  });

  test('refused: two stacks with a table of the same name (locally an unnamed table takes its logical id); no API served', () => {
    const twins = synthesize((app) => {
      for (const name of ['Dev', 'Prod']) {
        const { stack } = apiStack(app, name);
        const table = new Table(stack, 'Plants', { partitionKey: { name: 'id', type: AttributeType.STRING } });
        (table.node.defaultChild as CfnTable).overrideLogicalId('PlantsTable');
      }
    });
    expect(() => readAssembly(twins)).toThrow(
      'Dev and Prod both have a table named PlantsTable, which locally is one: serve one stack at a time with --stack NAME',
    );
    expect(readAssembly(twins, { stackName: 'Prod' }).tables.map(({ tableName }) => tableName)).toEqual([
      'PlantsTable',
    ]);

    // No API at all: served still (its tables, functions and services), as is an API named that no stack has not.
    const empty = synthesize((app) => {
      for (const name of ['Users', 'Orders']) new Stack(app, name);
    });
    expect(readAssembly(empty)).toMatchObject({ apis: [], stacksWithoutApi: ['Users', 'Orders'] });
    expect(() => readAssembly(empty, { apiName: 'UsersApi' })).toThrow(
      `${empty}: none of its stacks (Users, Orders) has an API UsersApi`,
    );
  });

  test("a method whose function is another stack's: read from that stack, its values resolved there", () => {
    const outdir = synthesize((app) => {
      const { stack, fn } = apiStack(app, 'Orders');
      const table = new Table(stack, 'Plants', { partitionKey: { name: 'id', type: AttributeType.STRING } });
      (table.node.defaultChild as CfnTable).overrideLogicalId('OrdersTable');
      fn.addEnvironment('TABLE', table.tableName);
      const api = new RestApi(new Stack(app, 'Gateway'), 'Api');
      (api.node.defaultChild as CfnRestApi).overrideLogicalId('GatewayApi');
      api.root.addMethod('GET', new LambdaIntegration(fn));
    });
    const gateway = readAssembly(outdir, { stackName: 'Gateway' });
    const [served] = servedFunctions(gateway);
    expect(served).toMatchObject({
      name: 'OrdersFunction',
      reached: true,
      context: { stackName: 'Orders' },
    });
    if (!served) throw new Error('no function served');
    // Its Ref to its own stack's table, resolved in that stack.
    expect(functionVariables(served.fn, served.context, {}).TABLE).toBe('OrdersTable');
    // Both stacks at once: one function (one pool), reached by both APIs; every function is Orders', so by its id.
    expect(servedFunctions(readAssembly(outdir)).map(({ name }) => name)).toEqual(['OrdersFunction']);
  });

  test('refused: an API reaching functions of one id from two stacks; two stacks at once with one user pool id', () => {
    const twoImports = synthesize((app) => {
      const functionStack = (name: string) => {
        const stack = new Stack(app, name);
        const fn = new LambdaFunction(stack, 'Fn', {
          code: code(),
          handler: 'echo.handler',
          runtime: Runtime.NODEJS_24_X,
        });
        (fn.node.defaultChild as CfnFunction).overrideLogicalId('Handler');
        return fn;
      };
      const [a, b] = [functionStack('A'), functionStack('B')];
      const api = new RestApi(new Stack(app, 'Gateway'), 'Api');
      api.root.addResource('a').addMethod('GET', new LambdaIntegration(a));
      api.root.addResource('b').addMethod('GET', new LambdaIntegration(b));
    });
    expect(() => readAssembly(twoImports, { stackName: 'Gateway' })).toThrow(
      /: its function Handler has the id of another stack's function this API reaches, which locally is one$/,
    );

    const twoPools = synthesize((app) => {
      for (const name of ['Dev', 'Prod']) {
        const { stack } = apiStack(app, name);
        (new UserPool(stack, 'Users').node.defaultChild as CfnUserPool).overrideLogicalId('UserPool');
      }
    });
    expect(() => readAssembly(twoPools)).toThrow(
      'Dev and Prod both have a user pool UserPool, which locally is one issuer: serve one stack at a time with --stack NAME',
    );
    expect(readAssembly(twoPools, { stackName: 'Dev' }).apis).toHaveLength(1);
  });

  test('a stack is listed as having no API only when it has none, whichever API is chosen', () => {
    const outdir = synthesize((app) => {
      new Stack(app, 'Data');
      apiStack(app, 'Users');
      apiStack(app, 'Orders');
    });
    expect(readAssembly(outdir, { apiName: 'UsersApi' }).stacksWithoutApi).toEqual(['Data']);
  });

  test('refused: an import no stack of the assembly exports, naming it', () => {
    const outdir = synthesize((app) => {
      apiStack(app, 'Orders').fn.addEnvironment('TABLE', Fn.importValue('SharedTableName'));
    });
    const [orders] = readAssembly(outdir).apis;
    const fn = orders?.functions.get('OrdersFunction');
    if (!orders || !fn) throw new Error('no OrdersFunction');
    expect(() => functionVariables(fn, orders, {})).toThrow(
      'OrdersFunction: environment variable TABLE is {"Fn::ImportValue":"SharedTableName"} (no stack of the assembly exports SharedTableName), which has no local value; give one with --env-vars',
    );
  });

  // "AWS::CloudFormation::Stack" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudformation-stack.html):
  // a nested stack is a template of its own (TemplateURL), whose resources CloudFormation deploys with its parent. Seen
  // in aws-samples/aws-cdk-examples, typescript/api-gateway-parallel-step-functions (a VPC in a NestedStack).
  test('a nested stack whose template the assembly does not hold is refused, naming it', () => {
    const outdir = synthesize((app) => {
      new Queue(new NestedStack(apiStack(app, 'Orders').stack, 'Network'), 'Jobs');
    });
    for (const file of readdirSync(outdir).filter((name) => name.endsWith('.nested.template.json')))
      rmSync(join(outdir, file));
    expect(() => readAssembly(outdir)).toThrow(
      /^Orders\/NetworkNestedStack\w+: a nested stack whose template is not in the cloud assembly \(TemplateURL .+\), so what it declares cannot be served$/,
    );
  });

  test('what the runner cannot read in a nested stack refuses the app, naming the nested stack and the resource', () => {
    const outdir = synthesize((app) => {
      const nested = new NestedStack(apiStack(app, 'Orders').stack, 'Spec');
      new CfnRestApi(nested, 'Defined', { body: { openapi: '3.0.1', paths: {} } });
    });
    expect(() => readAssembly(outdir)).toThrow(
      /^the nested stack Orders\/SpecNestedStack\w+ \(Orders-SpecNestedStack\w+-[A-Z0-9]{13}\): Defined: Body, /,
    );
  });
});

// CDK's TableV2 synthesizes an AWS::DynamoDB::GlobalTable ("AWS::DynamoDB::GlobalTable", CloudFormation template
// reference, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-dynamodb-globaltable.html):
// served as the table of the stack's region, with its replica there's read capacity; its return values (Ref: the
// name; Arn, StreamArn, TableId: "that of the replica in the region the stack is deployed to") resolve; its replicas
// in other regions are said at start.
test("a TableV2 (AWS::DynamoDB::GlobalTable): the stack's region's table, its values, its other replicas said", () => {
  const outdir = synthesize((app) => {
    const stack = new Stack(app, 'Shop', { env: { region: 'eu-west-1' } });
    const table = new TableV2(stack, 'Catalog', {
      partitionKey: { name: 'id', type: AttributeType.STRING },
      billing: Billing.provisioned({
        readCapacity: Capacity.fixed(5),
        writeCapacity: Capacity.autoscaled({ maxCapacity: 9 }),
      }),
      globalSecondaryIndexes: [{ indexName: 'byKind', partitionKey: { name: 'kind', type: AttributeType.STRING } }],
      dynamoStream: StreamViewType.NEW_IMAGE,
      timeToLiveAttribute: 'expires',
      replicas: [{ region: 'us-west-2' }],
    });
    (table.node.defaultChild as CfnGlobalTable).overrideLogicalId('Catalog');
    const fn = new LambdaFunction(stack, 'Fn', { code: code(), handler: 'echo.handler', runtime: Runtime.NODEJS_24_X });
    fn.addEnvironment('TABLE', table.tableName);
    fn.addEnvironment('ARN', table.tableArn);
    fn.addEnvironment('STREAM', table.tableStreamArn ?? '');
    fn.addEnvironment('ID', table.tableId ?? '');
  });
  const assembly = readAssembly(outdir);
  const throughput = { ReadCapacityUnits: 5, WriteCapacityUnits: 1 };
  expect(assembly.tables).toEqual([
    {
      id: 'Catalog',
      tableName: 'Catalog',
      properties: {
        AttributeDefinitions: expect.any(Array),
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'byKind',
            KeySchema: [{ AttributeName: 'kind', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
            ProvisionedThroughput: throughput,
          },
        ],
        ProvisionedThroughput: throughput,
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
        TimeToLiveSpecification: { AttributeName: 'expires', Enabled: true },
      },
    },
  ]);
  expect(assembly.notices).toContain(
    "Shop/Catalog: a global table's replicas in us-west-2: not served (the runner serves its table of the stack's region, eu-west-1, alone)",
  );
  const [{ fn, context } = {}] = assembly.otherFunctions;
  if (!fn || !context) throw new Error('no function');
  expect(functionVariables(fn, context, {})).toMatchObject({
    TABLE: 'Catalog',
    ARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/Catalog',
    STREAM: 'arn:aws:dynamodb:us-east-1:000000000000:table/Catalog/stream/1970-01-01T00:00:00.000',
    ID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  });
});
