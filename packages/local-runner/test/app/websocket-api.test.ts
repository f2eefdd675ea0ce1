// A WebSocket API's template read as the runner serves it, from resources as the CDK writes them (WebSocketApi,
// WebSocketStage, WebSocketLambdaIntegration, WebSocketLambdaAuthorizer): its routes, its RouteSelectionExpression
// (`$request.body.<path>`, "Working with routes for WebSocket APIs"), its stages, its $connect authorizer; and what it
// cannot serve refused, naming the resource and the property (the runner fails closed).
import { describe, expect, test } from '@jest/globals';
import type { CfnResource } from '../../src/app/cfn.ts';
import { getAttOf } from '../../src/app/cfn.ts';
import { readWebSocketApi } from '../../src/app/websocket-api.ts';

const functionOfUri = (uri: unknown, where: string) => {
  const parts = (uri as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const id = parts.map(getAttOf).find(Boolean)?.[0];
  if (!id) throw new Error(`${where}: no function`);
  return { functionId: id };
};
const uriOf = (functionId: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/',
      { 'Fn::GetAtt': [functionId, 'Arn'] },
      '/invocations',
    ],
  ],
});

/** A chat API as the CDK writes it; `change` edits its resources. */
const template = (change: (resources: Record<string, CfnResource>) => void = () => undefined) => {
  const resources: Record<string, CfnResource> = {
    Chat: {
      Type: 'AWS::ApiGatewayV2::Api',
      Properties: { Name: 'Chat', ProtocolType: 'WEBSOCKET', RouteSelectionExpression: '$request.body.action' },
    },
    Stage: { Type: 'AWS::ApiGatewayV2::Stage', Properties: { ApiId: { Ref: 'Chat' }, StageName: 'dev' } },
    Integration: {
      Type: 'AWS::ApiGatewayV2::Integration',
      Properties: { ApiId: { Ref: 'Chat' }, IntegrationType: 'AWS_PROXY', IntegrationUri: uriOf('ChatFunction') },
    },
    Auth: {
      Type: 'AWS::ApiGatewayV2::Authorizer',
      Properties: {
        ApiId: { Ref: 'Chat' },
        AuthorizerType: 'REQUEST',
        AuthorizerUri: uriOf('AuthFunction'),
        IdentitySource: ['route.request.header.Auth', 'route.request.querystring.token'],
      },
    },
    ...Object.fromEntries(
      ['$connect', '$disconnect', '$default', 'sendmessage'].map((routeKey) => [
        `Route${routeKey.replace('$', '')}`,
        {
          Type: 'AWS::ApiGatewayV2::Route',
          Properties: {
            ApiId: { Ref: 'Chat' },
            RouteKey: routeKey,
            Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] },
            ...(routeKey === '$connect' && { AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: 'Auth' } }),
            ...(routeKey === '$default' && { RouteResponseSelectionExpression: '$default' }),
          },
        },
      ]),
    ),
  };
  change(resources);
  return resources;
};
const read = (change?: (resources: Record<string, CfnResource>) => void) =>
  readWebSocketApi(template(change), 'Chat', functionOfUri);
const properties = (resource: CfnResource | undefined) => resource?.Properties as Record<string, unknown>;

test('its routes, their functions, the route response, the stage, the selection path, the $connect authorizer', () => {
  const api = read();
  expect(api.routeSelectionPath).toEqual(['action']);
  expect(api.stages.map(({ name }) => name)).toEqual(['dev']);
  expect(api.routes).toEqual([
    {
      routeKey: '$connect',
      functionId: 'ChatFunction',
      integrationTimeoutMs: 29_000,
      authorizerId: 'Auth',
      iam: false,
      routeResponse: false,
    },
    {
      routeKey: '$disconnect',
      functionId: 'ChatFunction',
      integrationTimeoutMs: 29_000,
      authorizerId: undefined,
      iam: false,
      routeResponse: false,
    },
    {
      routeKey: '$default',
      functionId: 'ChatFunction',
      integrationTimeoutMs: 29_000,
      authorizerId: undefined,
      iam: false,
      routeResponse: true,
    },
    {
      routeKey: 'sendmessage',
      functionId: 'ChatFunction',
      integrationTimeoutMs: 29_000,
      authorizerId: undefined,
      iam: false,
      routeResponse: false,
    },
  ]);
  expect(api.authorizers.get('Auth')).toEqual({
    type: 'REQUEST',
    id: 'Auth',
    functionId: 'AuthFunction',
    identitySources: [
      { from: 'header', name: 'Auth' },
      { from: 'querystring', name: 'token' },
    ],
    ttlSeconds: 0,
  });
});

test('$request.body.<path>: a nested path', () => {
  expect(
    read((resources) => {
      properties(resources.Chat).RouteSelectionExpression = '$request.body.message.type';
    }).routeSelectionPath,
  ).toEqual(['message', 'type']);
});

describe('refused, naming the resource and the property', () => {
  test.each([
    [
      'another selection expression',
      (resources: Record<string, CfnResource>) => {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: AWS's own `${...}` form, literally
        properties(resources.Chat).RouteSelectionExpression = '${request.body.action}';
      },
      /^Chat: RouteSelectionExpression \$\{request\.body\.action\}/,
    ],
    [
      'a selection expression on a header',
      (resources: Record<string, CfnResource>) => {
        properties(resources.Chat).RouteSelectionExpression = '$request.header.action';
      },
      /^Chat: RouteSelectionExpression/,
    ],
    [
      'a model selection expression on a header',
      (resources: Record<string, CfnResource>) => {
        Object.assign(properties(resources.Routedefault), {
          ModelSelectionExpression: '$request.header.kind',
          RequestModels: {},
        });
      },
      /^Routedefault: ModelSelectionExpression \$request\.header\.kind/,
    ],
    [
      'a request model that is the Name of no model of the API',
      (resources: Record<string, CfnResource>) => {
        Object.assign(properties(resources.Routedefault), {
          ModelSelectionExpression: '$request.body.action',
          RequestModels: { $default: 'Missing' },
        });
      },
      /^Routedefault \(\$default\): request model .*Missing.*, the Name of no model \(AWS::ApiGatewayV2::Model\)/,
    ],
    [
      'no stage',
      (resources: Record<string, CfnResource>) => {
        delete resources.Stage;
      },
      /^Chat: a WebSocket API with no stage/,
    ],
    [
      'an integration that is not AWS_PROXY',
      (resources: Record<string, CfnResource>) => {
        properties(resources.Integration).IntegrationType = 'AWS';
      },
      /^Integration: IntegrationType AWS/,
    ],
    [
      // "Controlling and managing access to a WebSocket API in API Gateway": authorization on $connect alone.
      'IAM authorization on another route than $connect',
      (resources: Record<string, CfnResource>) => {
        Object.assign(properties(resources.Routesendmessage), { AuthorizationType: 'AWS_IAM' });
      },
      /^Routesendmessage \(sendmessage\): AuthorizationType AWS_IAM/,
    ],
    [
      "an authorizer's result cache (HTTP APIs' alone)",
      (resources: Record<string, CfnResource>) => {
        properties(resources.Auth).AuthorizerResultTtlInSeconds = 300;
      },
      /^Auth: AuthorizerResultTtlInSeconds 300/,
    ],
    [
      'an identity source the runner does not read',
      (resources: Record<string, CfnResource>) => {
        properties(resources.Auth).IdentitySource = ['$request.header.Auth'];
      },
      /^Auth: IdentitySource \$request\.header\.Auth/,
    ],
    [
      'a route response selection other than $default',
      (resources: Record<string, CfnResource>) => {
        properties(resources.Routesendmessage).RouteResponseSelectionExpression = '$integration.response.statuscode';
      },
      /^Routesendmessage \(sendmessage\): RouteResponseSelectionExpression/,
    ],
    [
      'an API key on a route',
      (resources: Record<string, CfnResource>) => {
        properties(resources.Routesendmessage).ApiKeyRequired = true;
      },
      /^Routesendmessage \(sendmessage\): ApiKeyRequired/,
    ],
  ])('%s', (_case, change, message) => {
    expect(() => read(change)).toThrow(message);
  });
});
