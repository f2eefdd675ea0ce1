// Random templates whose gating properties (AuthorizationType, AuthorizerId, ApiKeyRequired) and API references
// (RestApiId, ResourceId, ApiId) are written in every form CloudFormation takes (a literal; a boolean's string; a Ref
// to a parameter with a default; Fn::GetAtt of the id attribute, "Return values" of each resource in the
// CloudFormation template reference; Fn::If on a condition true or false, "Conditions syntax") or in a form the
// runner cannot read (an Fn::If on a parameter without a default, an Fn::Sub, "True", a literal id of no resource, a
// GetAtt of another attribute). The oracle, written from the generated intent alone, says which routes need a token
// or a key and whether the app must be refused: the runner never reads a route open that needs one, never leaves a
// route out, and refuses every unreadable form. A few are served, then called without a token or a key.
// A failure prints fast-check's seed: replay it with FC_SEED=<seed>.
import { afterAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { HttpApi as ReadHttpApi, RestApi as ReadRestApi } from '../../src/app/api.ts';
import { readAssembly } from '../../src/app/assembly.ts';
import { UnsupportedTemplateError } from '../../src/app/cfn.ts';
import { startRunner } from '../../src/runner.ts';
import { handWrittenAssemblies, proxyIntegration } from '../helpers/hand-written-assembly.ts';

type Form = 'literal' | 'string' | 'parameter' | 'getAtt' | 'ifTrue' | 'ifFalse' | 'unreadable';

interface RestIntent {
  auth: 'NONE' | 'CUSTOM' | 'COGNITO_USER_POOLS';
  key: boolean;
  forms: { auth: Form; key: Form; authorizer: Form; api: Form; resource: Form };
}
interface HttpIntent {
  auth: 'NONE' | 'JWT';
  forms: { auth: Form; authorizer: Form; api: Form };
}

const valueForms: Form[] = ['literal', 'parameter', 'ifTrue', 'ifFalse', 'unreadable'];
const booleanForms: Form[] = ['literal', 'string', 'parameter', 'ifTrue', 'ifFalse', 'unreadable'];
const referenceForms: Form[] = ['literal', 'getAtt', 'ifTrue', 'ifFalse', 'unreadable'];
const form = (forms: Form[]) => fc.constantFrom(...forms);

const restIntent: fc.Arbitrary<RestIntent> = fc.record({
  auth: fc.constantFrom('NONE', 'CUSTOM', 'COGNITO_USER_POOLS'),
  key: fc.boolean(),
  forms: fc.record({
    auth: form(valueForms),
    key: form(booleanForms),
    authorizer: form(referenceForms),
    api: form(referenceForms),
    resource: form(referenceForms.filter((f) => f !== 'ifTrue' && f !== 'ifFalse')),
  }),
});
const httpIntent: fc.Arbitrary<HttpIntent> = fc.record({
  auth: fc.constantFrom('NONE', 'JWT'),
  forms: fc.record({ auth: form(valueForms), authorizer: form(referenceForms), api: form(referenceForms) }),
});

/**
 * The template writer: `value` written in `how`; `decoy` is the other branch of an Fn::If (what would open the route
 * if the wrong branch were taken). References (`ref`) are written as `{"Ref": id}` when literal.
 */
const writer = () => {
  const parameters: Record<string, unknown> = {
    Flag: { Type: 'String', Default: 'on' },
    Unset: { Type: 'String' },
  };
  let count = 0;
  const scalar = (value: string | boolean, how: Form, decoy: unknown, unreadable: unknown): unknown => {
    switch (how) {
      case 'literal':
        return value;
      case 'string':
        return String(value);
      case 'parameter': {
        count += 1;
        parameters[`P${count}`] = { Type: 'String', Default: String(value) };
        return { Ref: `P${count}` };
      }
      case 'ifTrue':
        return { 'Fn::If': ['FlagOn', value, decoy] };
      case 'ifFalse':
        return { 'Fn::If': ['FlagOff', decoy, value] };
      default:
        return unreadable;
    }
  };
  const reference = (id: string, idAttribute: string, how: Form, decoy: unknown, unreadable: unknown): unknown => {
    switch (how) {
      case 'literal':
        return { Ref: id };
      case 'getAtt':
        return { 'Fn::GetAtt': [id, idAttribute] };
      case 'ifTrue':
        return { 'Fn::If': ['FlagOn', { Ref: id }, decoy] };
      case 'ifFalse':
        return { 'Fn::If': ['FlagOff', decoy, { 'Fn::GetAtt': [id, idAttribute] }] };
      default:
        return unreadable;
    }
  };
  return { parameters, scalar, reference };
};

/** Unreadable forms, one picked by the run: each must refuse the app. */
const unreadableScalars = [{ 'Fn::If': ['UnsetOn', 'x', 'y'] }, { 'Fn::Sub': 'CUSTOM' }, { Ref: 'Unset' }];
const unreadableBooleans = ['True', 'yes', { 'Fn::If': ['UnsetOn', true, true] }, { Ref: 'Unset' }];
const unreadableReferences = (type: 'Authorizer' | 'Api' | 'Resource') => [
  'abc123',
  { 'Fn::If': ['UnsetOn', { Ref: type }, { Ref: type }] },
  { 'Fn::GetAtt': [type === 'Authorizer' ? 'TokenAuthorizer' : type === 'Api' ? 'Rest' : 'R0', 'Arn'] },
];

const inline = (body: string) => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Runtime: 'nodejs24.x', Handler: 'index.handler', Code: { ZipFile: body } },
});

/** The template of `rest` and `http` routes; `pick` chooses among unreadable forms. */
const templateOf = (rest: RestIntent[], http: HttpIntent[], pick: number) => {
  const { parameters, scalar, reference } = writer();
  const choose = <T>(list: T[]) => list[pick % list.length] as T;
  const uri = {
    'Fn::Join': [
      '',
      [
        'arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/',
        { 'Fn::GetAtt': ['Echo', 'Arn'] },
        '/invocations',
      ],
    ],
  };
  const resources: Record<string, unknown> = {
    Echo: inline("exports.handler = async () => ({ statusCode: 200, body: 'ok' });"),
    Authorizer: inline('exports.handler = async () => { throw new Error("Unauthorized"); };'),
    Pool: { Type: 'AWS::Cognito::UserPool', Properties: {} },
    Rest: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'rest' } },
    TokenAuthorizer: {
      Type: 'AWS::ApiGateway::Authorizer',
      Properties: {
        RestApiId: { Ref: 'Rest' },
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerUri: {
          'Fn::Join': [
            '',
            [
              'arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/',
              { 'Fn::GetAtt': ['Authorizer', 'Arn'] },
              '/invocations',
            ],
          ],
        },
      },
    },
    PoolAuthorizer: {
      Type: 'AWS::ApiGateway::Authorizer',
      Properties: {
        RestApiId: { 'Fn::GetAtt': ['Rest', 'RestApiId'] },
        Type: 'COGNITO_USER_POOLS',
        IdentitySource: 'method.request.header.Authorization',
        ProviderARNs: [{ 'Fn::GetAtt': ['Pool', 'Arn'] }],
      },
    },
    Http: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'http', ProtocolType: 'HTTP' } },
    HttpIntegration: proxyIntegration('Echo'),
    JwtAuthorizer: {
      Type: 'AWS::ApiGatewayV2::Authorizer',
      Properties: {
        ApiId: { 'Fn::GetAtt': ['Http', 'ApiId'] },
        AuthorizerType: 'JWT',
        IdentitySource: ['$request.header.Authorization'],
        JwtConfiguration: { Issuer: 'https://issuer.example.com', Audience: ['property'] },
      },
    },
  };
  rest.forEach((intent, i) => {
    const authorizer = intent.auth === 'COGNITO_USER_POOLS' ? 'PoolAuthorizer' : 'TokenAuthorizer';
    resources[`R${i}`] = {
      Type: 'AWS::ApiGateway::Resource',
      Properties: {
        RestApiId: { Ref: 'Rest' },
        ParentId: { 'Fn::GetAtt': ['Rest', 'RootResourceId'] },
        PathPart: `r${i}`,
      },
    };
    resources[`M${i}`] = {
      Type: 'AWS::ApiGateway::Method',
      Properties: {
        RestApiId: reference('Rest', 'RestApiId', intent.forms.api, 'abc123', choose(unreadableReferences('Api'))),
        ResourceId: reference(
          `R${i}`,
          'ResourceId',
          intent.forms.resource,
          null,
          choose(unreadableReferences('Resource')),
        ),
        HttpMethod: 'GET',
        AuthorizationType: scalar(intent.auth, intent.forms.auth, 'NONE', choose(unreadableScalars)),
        ...(intent.auth !== 'NONE' && {
          AuthorizerId: reference(
            authorizer,
            'AuthorizerId',
            intent.forms.authorizer,
            'abc123',
            choose(unreadableReferences('Authorizer')),
          ),
        }),
        ApiKeyRequired: scalar(intent.key, intent.forms.key, false, choose(unreadableBooleans)),
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST', Uri: uri },
      },
    };
  });
  http.forEach((intent, i) => {
    resources[`H${i}`] = {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: {
        ApiId: reference('Http', 'ApiId', intent.forms.api, 'abc123', choose(unreadableReferences('Api'))),
        RouteKey: `GET /h${i}`,
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'HttpIntegration' }]] },
        AuthorizationType: scalar(intent.auth, intent.forms.auth, 'NONE', choose(unreadableScalars)),
        ...(intent.auth !== 'NONE' && {
          AuthorizerId: reference(
            'JwtAuthorizer',
            'AuthorizerId',
            intent.forms.authorizer,
            'abc123',
            choose(unreadableReferences('Authorizer')),
          ),
        }),
      },
    };
  });
  return {
    Parameters: parameters,
    Conditions: {
      FlagOn: { 'Fn::Equals': [{ Ref: 'Flag' }, 'on'] },
      FlagOff: { 'Fn::Not': [{ Condition: 'FlagOn' }] },
      UnsetOn: { 'Fn::Equals': [{ Ref: 'Unset' }, 'on'] },
    },
    Resources: resources,
  };
};

/** The oracle: refused when any property written is unreadable; else each route's token and key, from the intent. */
const oracle = (rest: RestIntent[], http: HttpIntent[]) => {
  const unreadable =
    rest.some(({ auth, forms }) =>
      [forms.auth, forms.key, forms.api, forms.resource, ...(auth === 'NONE' ? [] : [forms.authorizer])].includes(
        'unreadable',
      ),
    ) ||
    http.some(({ auth, forms }) =>
      [forms.auth, forms.api, ...(auth === 'NONE' ? [] : [forms.authorizer])].includes('unreadable'),
    );
  return {
    refused: unreadable,
    rest: rest.map(({ auth, key }, i) => ({
      path: `/r${i}`,
      authorizer: auth === 'NONE' ? undefined : auth === 'CUSTOM' ? 'TokenAuthorizer' : 'PoolAuthorizer',
      key,
    })),
    http: http.map(({ auth }, i) => ({ path: `/h${i}`, authorizer: auth === 'NONE' ? undefined : 'JwtAuthorizer' })),
  };
};

const { assemblyOf, removeAll } = handWrittenAssemblies('values-property');
afterAll(removeAll);

const intents = fc.record({
  rest: fc.array(restIntent, { minLength: 1, maxLength: 4 }),
  http: fc.array(httpIntent, { minLength: 1, maxLength: 3 }),
  pick: fc.nat(11),
});

test('read: every route as the oracle says (its authorizer, its key), none left out; every unreadable form refused', () => {
  fc.assert(
    fc.property(intents, ({ rest, http, pick }) => {
      const expected = oracle(rest, http);
      const dir = assemblyOf(templateOf(rest, http, pick));
      if (expected.refused) {
        expect(() => readAssembly(dir)).toThrow(UnsupportedTemplateError);
        return;
      }
      const { apis } = readAssembly(dir);
      const restApp = apis.find(({ apiId }) => apiId === 'Rest') as ReadRestApi | undefined;
      const httpApp = apis.find(({ apiId }) => apiId === 'Http') as ReadHttpApi | undefined;
      expect(
        restApp?.routes
          .map(({ resourcePath, authorizerId, apiKeyRequired }) => ({
            path: resourcePath,
            authorizer: authorizerId,
            key: apiKeyRequired,
          }))
          .sort((a, b) => a.path.localeCompare(b.path)),
      ).toEqual(expected.rest);
      expect(
        httpApp?.routes
          .map(({ resourcePath, authorizerId }) => ({ path: resourcePath, authorizer: authorizerId }))
          .sort((a, b) => a.path.localeCompare(b.path)),
      ).toEqual(expected.http);
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 5_000 : 500 },
  );
});

test('served: a sample of readable templates, each route called without a token or a key, answers as AWS does', async () => {
  const readable = intents.filter(({ rest, http }) => !oracle(rest, http).refused);
  await fc.assert(
    fc.asyncProperty(readable, async ({ rest, http, pick }) => {
      const expected = oracle(rest, http);
      const served = await startRunner({
        cloudAssemblyDir: assemblyOf(templateOf(rest, http, pick)),
        port: 0,
        dataDir: undefined,
        maxWorkers: 1,
        log: () => {},
        functionLog: () => {},
      });
      try {
        const urlOf = (apiId: string) => served.apis.find(({ app }) => app.apiId === apiId)?.url;
        for (const { path, authorizer, key } of expected.rest) {
          const response = await fetch(`${urlOf('Rest')}${path}`);
          // No token: 401 (UNAUTHORIZED) from the authorizer's identity source; no key: 403 (INVALID_API_KEY).
          expect(response.status).toBe(authorizer !== undefined ? 401 : key ? 403 : 200);
        }
        for (const { path, authorizer } of expected.http) {
          const response = await fetch(`${urlOf('Http')}${path}`);
          expect(response.status).toBe(authorizer !== undefined ? 401 : 200);
        }
      } finally {
        await served.close();
      }
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 40 : 6 },
  );
}, 300_000);
