// Template values read as CloudFormation reads them (src/app/values.ts): a reference by Ref or by the Fn::GetAtt
// attribute CloudFormation documents as the same id ("Return values" of each resource in the CloudFormation template
// reference), booleans written as strings, Fn::If on the template's Conditions; what cannot be read refuses the app.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { App, CfnCondition, CfnParameter, Fn, Stack } from 'aws-cdk-lib';
import {
  type CfnMethod,
  type CfnModel,
  type CfnRestApi,
  JsonSchemaType,
  LambdaIntegration,
  RequestValidator,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { type CfnFunction, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { HttpApi as ReadHttpApi, RestApi as ReadRestApi } from '../../src/app/api.ts';
import { readApi } from '../../src/app/assembly.ts';
import { synthesizeTemplateValuesApp } from '../fixtures/template-values-app.ts';
import { proxyIntegration } from '../helpers/hand-written-assembly.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const synthesize = (build: (stack: Stack) => void) => {
  const outdir = mkdtempSync(join(tmpdir(), 'local-runner-values-'));
  folders.push(outdir);
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  build(new Stack(app, 'Case'));
  app.synth();
  return outdir;
};

/** The function every case's methods call: the fixtures' echo, as EchoFunction. */
const echoFunction = (stack: Stack) => {
  const fn = new LambdaFunction(stack, 'Echo', {
    code: Code.fromAsset(new URL('../fixtures/functions', import.meta.url).pathname),
    handler: 'echo.handler',
    runtime: Runtime.NODEJS_24_X,
  });
  (fn.node.defaultChild as CfnFunction).overrideLogicalId('EchoFunction');
  return fn;
};

/** A REST API with one method (GET /items) to a function, `change` applied to that method's CfnMethod. */
const methodCase = (change: (method: CfnMethod, stack: Stack) => void) =>
  readApi(
    synthesize((stack) => {
      const fn = echoFunction(stack);
      const api = new RestApi(stack, 'Api');
      (api.node.defaultChild as CfnRestApi).overrideLogicalId('Api');
      const method = api.root.addResource('items').addMethod('GET', new LambdaIntegration(fn));
      change(method.node.defaultChild as CfnMethod, stack);
    }),
  ) as ReadRestApi;

describe('the app whose ids are written as Fn::GetAtt (test/fixtures/template-values-app.ts)', () => {
  let dir = '';
  beforeAll(() => {
    dir = synthesizeTemplateValuesApp();
    folders.push(join(dir, '..'));
  }, 60_000);

  test('item 1 and 10: REST methods under a resource named by GetAtt RootResourceId/ResourceId, their authorizers by GetAtt AuthorizerId', () => {
    const app = readApi(dir, { apiName: 'Rest' }) as ReadRestApi;
    const routes = Object.fromEntries(app.routes.map((route) => [route.resourcePath, route]));
    expect(routes['/token']).toMatchObject({ method: 'GET', authorizerId: 'TokenAuthorizer' });
    expect(routes['/cognito']).toMatchObject({ method: 'GET', authorizerId: 'CognitoAuthorizer' });
    expect([...app.authorizers.keys()].sort()).toEqual(['CognitoAuthorizer', 'TokenAuthorizer']);
  });

  test('item 2: ApiKeyRequired "true" (a string, which CloudFormation coerces) requires a key', () => {
    const app = readApi(dir, { apiName: 'Rest' }) as ReadRestApi;
    expect(app.routes.find(({ resourcePath }) => resourcePath === '/keyed')?.apiKeyRequired).toBe(true);
  });

  test('item 1 and 10: an HTTP API whose route, integration, stage and authorizer name it by GetAtt ApiId', () => {
    const httpApi = readApi(dir, { apiName: 'Http' }) as ReadHttpApi;
    expect(httpApi?.routes).toEqual([
      expect.objectContaining({ routeKey: 'GET /secured', functionId: 'EchoFunction', authorizerId: 'JwtAuthorizer' }),
    ]);
    expect([...(httpApi?.authorizers.keys() ?? [])]).toEqual(['JwtAuthorizer']);
  });
});

describe('booleans as CloudFormation takes them', () => {
  test('ApiKeyRequired "false" requires none; "True", "yes" or an intrinsic refuse the app, naming the method and property', () => {
    expect(
      methodCase((method) => method.addPropertyOverride('ApiKeyRequired', 'false')).routes[0]?.apiKeyRequired,
    ).toBe(false);
    for (const value of ['True', 'yes', { 'Fn::Sub': 'true' }])
      expect(() => methodCase((method) => method.addPropertyOverride('ApiKeyRequired', value))).toThrow(
        /^Api\w*GET\w*: ApiKeyRequired .*not a boolean/,
      );
  });
});

describe('Conditions ("Conditions syntax" in the CloudFormation user guide)', () => {
  test("Fn::If on a condition over a parameter's default: the branch a deployment with the defaults takes", () => {
    const app = methodCase((method, stack) => {
      const secured = new CfnParameter(stack, 'Secured', { default: 'yes' });
      const condition = new CfnCondition(stack, 'IsSecured', { expression: Fn.conditionEquals(secured, 'yes') });
      condition.overrideLogicalId('IsSecured');
      method.addPropertyOverride('ApiKeyRequired', Fn.conditionIf('IsSecured', 'true', false));
    });
    expect(app.routes[0]?.apiKeyRequired).toBe(true);
  });

  test('Fn::If on a condition the runner cannot evaluate (a parameter without a default) refuses the app', () => {
    expect(() =>
      methodCase((method, stack) => {
        const secured = new CfnParameter(stack, 'Secured');
        new CfnCondition(stack, 'IsSecured', { expression: Fn.conditionEquals(secured, 'yes') }).overrideLogicalId(
          'IsSecured',
        );
        method.addPropertyOverride('ApiKeyRequired', Fn.conditionIf('IsSecured', true, false));
      }),
    ).toThrow(/^Api\w*GET\w*: ApiKeyRequired \{"Fn::If".*not a boolean/);
  });
});

describe('references the runner refuses, naming the resource and the property', () => {
  test('an AuthorizerId that names no authorizer of the template (a literal id)', () => {
    expect(() =>
      methodCase((method) => {
        method.addPropertyOverride('AuthorizationType', 'CUSTOM');
        method.addPropertyOverride('AuthorizerId', 'abc123');
      }),
    ).toThrow(/^Api\w*GET\w*: AuthorizerId abc123, not a Ref or Fn::GetAtt of a AWS::ApiGateway::Authorizer/);
  });

  // AWS::ApiGateway::Method's AuthorizerId: "Required: Conditional. ... when the AuthorizationType is CUSTOM or
  // COGNITO_USER_POOLS"; what a deployment does with one under NONE is not documented: refused, not dropped.
  test.each([
    ['NONE', (method: CfnMethod) => method.addPropertyOverride('AuthorizationType', 'NONE')],
    ['absent', (method: CfnMethod) => method.addPropertyDeletionOverride('AuthorizationType')],
  ])('an AuthorizerId with AuthorizationType %s, naming the method and both properties', (_type, setType) => {
    expect(() =>
      methodCase((method) => {
        setType(method);
        method.addPropertyOverride('AuthorizerId', 'abc123');
      }),
    ).toThrow(/^\w+ \(GET \/items\): AuthorizerId abc123 with AuthorizationType NONE/);
  });

  test('a method of a RestApiId written as another attribute of the API (not its id)', () => {
    expect(() =>
      methodCase((method) => method.addPropertyOverride('RestApiId', { 'Fn::GetAtt': ['Api', 'RootResourceId'] })),
    ).toThrow(/RestApiId .*an attribute of Api that is not its id \(RestApiId\)/);
  });
});

describe('item 12: request models that refer to others by URL, flattened as API Gateway flattens them', () => {
  /** "Data models for REST APIs": "https://apigateway.amazonaws.com/restapis/{restapi_id}/models/{model_name}". */
  const modelsCase = (refTo: (api: RestApi, model: { modelId: string }) => unknown, named = true) =>
    readApi(
      synthesize((stack) => {
        const fn = echoFunction(stack);
        const api = new RestApi(stack, 'Api');
        const name = api.addModel('Name', {
          modelName: named ? 'Name' : undefined,
          contentType: 'application/json',
          schema: { type: JsonSchemaType.STRING, minLength: 1 },
        });
        const plant = api.addModel('Plant', {
          contentType: 'application/json',
          schema: {
            type: JsonSchemaType.OBJECT,
            required: ['name'],
            properties: { name: { ref: refTo(api, name) as string } },
          },
        });
        (name.node.defaultChild as CfnModel).overrideLogicalId('NameModel');
        api.root.addResource('plants').addMethod('POST', new LambdaIntegration(fn), {
          requestValidator: new RequestValidator(stack, 'Validator', { restApi: api, validateRequestBody: true }),
          requestModels: { 'application/json': plant },
        });
      }),
    ) as ReadRestApi;

  test("a $ref to another model's URL (the API's Ref, the model's name) is replaced by that model's schema", () => {
    const app = modelsCase((api, model) =>
      Fn.join('', ['https://apigateway.amazonaws.com/restapis/', api.restApiId, '/models/', model.modelId]),
    );
    const schema = app.routes[0]?.validation?.models['application/json'] as { properties: Record<string, unknown> };
    expect(schema.properties.name).toEqual({ type: 'string', minLength: 1 });
  });

  // AWS::ApiGateway::Model's Name: "If you don't specify a name, AWS CloudFormation generates a unique physical ID";
  // that generated name is what its Ref gives, never its logical id.
  const urlOf = (api: RestApi, name: string) =>
    Fn.join('', ['https://apigateway.amazonaws.com/restapis/', api.restApiId, '/models/', name]);

  test("a model without Name, referred to by its Ref in the URL: replaced by that model's schema", () => {
    const app = modelsCase((api, model) => urlOf(api, model.modelId), false);
    const schema = app.routes[0]?.validation?.models['application/json'] as { properties: Record<string, unknown> };
    expect(schema.properties.name).toEqual({ type: 'string', minLength: 1 });
  });

  test('a model without Name, referred to by its logical id written as text (not its generated name): refused', () => {
    expect(() => modelsCase((api) => urlOf(api, 'NameModel'), false)).toThrow(
      /POST \/plants\): a model's \$ref .*which names no model of this API/,
    );
  });

  test("a $ref to a model of no API of the template (another API's id) is refused, naming the method", () => {
    expect(() => modelsCase(() => 'https://apigateway.amazonaws.com/restapis/abc123/models/Name')).toThrow(
      /POST \/plants\): a model's \$ref .*which names no model of this API/,
    );
  });
});

// "How API Gateway resource policies affect authorization workflow" and "Controlling access to a REST API with API
// Gateway resource policies" (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-resource-policies.html):
// API Gateway judges each call against the policy; the runner does not, so it serves only a policy that restricts no one.
describe("a REST API's resource policy (Policy)", () => {
  const policyCase = (policy: unknown) =>
    methodCase((_method, stack) => {
      (stack.node.findChild('Api').node.defaultChild as CfnRestApi).addPropertyOverride('Policy', policy);
    });
  const allowAll = {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { AWS: '*' }, Action: 'execute-api:Invoke', Resource: 'execute-api:/*' }],
  };
  const statement = (change: Record<string, unknown>) => ({
    Version: '2012-10-17',
    Statement: [{ ...allowAll.Statement[0], ...change }],
  });

  test('one that allows anyone every call (an object, or its JSON text): served', () => {
    expect(policyCase(allowAll).routes.map(({ resourcePath }) => resourcePath)).toEqual(['/items']);
    expect(
      policyCase(JSON.stringify(statement({ Principal: '*', Action: ['execute-api:*'], Resource: ['*'] }))).routes,
    ).toHaveLength(1);
  });

  test.each([
    [
      'a Deny by source IP',
      {
        Version: '2012-10-17',
        Statement: [
          allowAll.Statement[0],
          {
            Effect: 'Deny',
            Principal: '*',
            Action: 'execute-api:Invoke',
            Resource: 'execute-api:/*',
            Condition: { NotIpAddress: { 'aws:SourceIp': ['192.0.2.0/24'] } },
          },
        ],
      },
    ],
    ['an Allow limited to a path', statement({ Resource: 'execute-api:/*/GET/items' })],
    ['an Allow with a Condition', statement({ Condition: { StringEquals: { 'aws:SourceVpce': 'vpce-1a2b3c4d' } } })],
    ['an Allow of one account', statement({ Principal: { AWS: 'arn:aws:iam::123456789012:root' } })],
  ])('%s: refused, naming the API and Policy', (_case, policy) => {
    expect(() => policyCase(policy)).toThrow(/^Api: Policy .* a resource policy, which the runner does not evaluate/);
  });
});

describe('an assembly written by hand', () => {
  const handWritten = (resources: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), 'local-runner-values-'));
    folders.push(dir);
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        artifacts: { Case: { type: 'aws:cloudformation:stack', properties: { templateFile: 't.json' } } },
      }),
    );
    writeFileSync(join(dir, 't.json'), JSON.stringify({ Resources: resources }));
    return dir;
  };
  const http = {
    Http: { Type: 'AWS::ApiGatewayV2::Api', Properties: { ProtocolType: 'HTTP', Name: 'h' } },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Runtime: 'nodejs24.x',
        Handler: 'index.handler',
        Code: { ZipFile: 'exports.handler=async()=>({})' },
      },
    },
    Integration: proxyIntegration('Fn'),
  };

  test('item 10: a route of an API the template does not have (a literal ApiId) refuses the app, not left out', () => {
    expect(() =>
      readApi(
        handWritten({
          ...http,
          Route: {
            Type: 'AWS::ApiGatewayV2::Route',
            Properties: { ApiId: 'a1b2c3', RouteKey: 'GET /x', Target: 'integrations/xyz' },
          },
        }),
      ),
    ).toThrow(/^Route: ApiId a1b2c3, not a Ref or Fn::GetAtt of a AWS::ApiGatewayV2::Api of the template/);
  });

  // AWS::ApiGatewayV2::Route's AuthorizerId applies with AuthorizationType CUSTOM or JWT (the API reference); with none
  // (NONE by default) what AWS does is not documented: refused, not dropped.
  test('a route with an AuthorizerId and no AuthorizationType refuses the app, naming the route and both properties', () => {
    expect(() =>
      readApi(
        handWritten({
          ...http,
          Auth: {
            Type: 'AWS::ApiGatewayV2::Authorizer',
            Properties: {
              ApiId: { Ref: 'Http' },
              AuthorizerType: 'JWT',
              Name: 'jwt',
              IdentitySource: ['$request.header.Authorization'],
              JwtConfiguration: { Issuer: 'https://issuer.example.com', Audience: ['api'] },
            },
          },
          Route: {
            Type: 'AWS::ApiGatewayV2::Route',
            Properties: {
              ApiId: { Ref: 'Http' },
              RouteKey: 'GET /x',
              AuthorizerId: { Ref: 'Auth' },
              Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] },
            },
          },
        }),
      ),
    ).toThrow(/^Route \(GET \/x\): AuthorizerId \{"Ref":"Auth"\} with AuthorizationType NONE/);
  });

  // AWS::ApiGatewayV2::Api's CorsConfiguration ("Configure CORS for HTTP APIs"), read as CloudFormation reads its
  // values: AllowCredentials a boolean (or its text), MaxAge an integer (or its text), origins strings.
  describe("an HTTP API's CorsConfiguration", () => {
    const withCors = (cors: Record<string, unknown>) =>
      (
        readApi(
          handWritten({
            ...http,
            Http: { ...http.Http, Properties: { ...http.Http.Properties, CorsConfiguration: cors } },
            Route: {
              Type: 'AWS::ApiGatewayV2::Route',
              Properties: {
                ApiId: { Ref: 'Http' },
                RouteKey: 'GET /x',
                Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] },
              },
            },
          }),
        ) as ReadHttpApi
      ).cors;

    test('AllowCredentials "true" and MaxAge "600" (text, which CloudFormation coerces) are read as true and 600', () => {
      expect(
        withCors({ AllowOrigins: ['https://app.example.com'], AllowCredentials: 'true', MaxAge: '600' }),
      ).toMatchObject({ allowOrigins: ['https://app.example.com'], allowCredentials: true, maxAge: 600 });
    });

    test.each([
      ['AllowOrigins', { AllowOrigins: [{ 'Fn::ImportValue': 'WebOrigin' }] }],
      ['AllowCredentials', { AllowOrigins: ['https://app.example.com'], AllowCredentials: 'yes' }],
      ['MaxAge', { AllowOrigins: ['https://app.example.com'], MaxAge: 'a day' }],
    ])('%s unreadable: refused, naming the API and the property', (property, cors) => {
      expect(() => withCors(cors)).toThrow(new RegExp(`^Http: CorsConfiguration.${property} `));
    });
  });
});
