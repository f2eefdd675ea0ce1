// An integration's URI names its function in any form CloudFormation resolves ("Intrinsic function reference":
// "Fn::Sub", "Fn::If", "Fn::Join", https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference.html),
// and the runner reads the text that results as API Gateway does: a function's ARN, alone or in the integration path
// `arn:aws:apigateway:<region>:lambda:path/2015-03-31/functions/<function ARN>/invocations`
// ("AWS::ApiGatewayV2::Integration" IntegrationUri,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigatewayv2-integration.html),
// an alias's ARN (`<function ARN>:<alias>`) invoking that alias. A URI naming no function of the template refuses the
// app, naming the resource.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Runner, startRunner } from '../../src/runner.ts';
import { handWrittenAssemblies } from '../helpers/hand-written-assembly.ts';

const { assemblyOf, removeAll } = handWrittenAssemblies('function-uris');
afterAll(removeAll);

/** A function answering its own name and the ARN it was invoked by. */
const fn = {
  Type: 'AWS::Lambda::Function',
  Properties: {
    Runtime: 'nodejs24.x',
    Handler: 'index.handler',
    Code: {
      ZipFile:
        'exports.handler = async (event, context) => ({ statusCode: 200, body: context.functionName + " " + context.invokedFunctionArn });',
    },
  },
};

/** The routes `GET /<key>`, each to an integration whose IntegrationUri is `uris[key]`. */
const templateOf = (uris: Record<string, unknown>) => ({
  Parameters: { Stage: { Type: 'String', Default: 'test' } },
  Conditions: { IsProd: { 'Fn::Equals': [{ Ref: 'Stage' }, 'prod'] } },
  Resources: {
    Echo: fn,
    Other: fn,
    Live: {
      Type: 'AWS::Lambda::Alias',
      Properties: { FunctionName: { Ref: 'Echo' }, FunctionVersion: '1', Name: 'live' },
    },
    Http: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'http', ProtocolType: 'HTTP' } },
    ...Object.fromEntries(
      Object.entries(uris).flatMap(([key, uri]) => [
        [
          `Integration${key}`,
          {
            Type: 'AWS::ApiGatewayV2::Integration',
            Properties: {
              ApiId: { Ref: 'Http' },
              IntegrationType: 'AWS_PROXY',
              PayloadFormatVersion: '2.0',
              IntegrationUri: uri,
            },
          },
        ],
        [
          `Route${key}`,
          {
            Type: 'AWS::ApiGatewayV2::Route',
            Properties: {
              ApiId: { Ref: 'Http' },
              RouteKey: `GET /${key}`,
              Target: { 'Fn::Join': ['/', ['integrations', { Ref: `Integration${key}` }]] },
            },
          },
        ],
      ]),
    ),
  },
});

const integrationPath =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
  'arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${Echo.Arn}/invocations';

const start = (template: unknown) =>
  startRunner({
    cloudAssemblyDir: assemblyOf(template),
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    log: () => {},
    functionLog: () => {},
  });

describe('URIs written with Fn::Sub, Fn::If and an alias joined on', () => {
  let served: Runner | undefined;
  beforeAll(async () => {
    served = await start(
      templateOf({
        sub: { 'Fn::Sub': integrationPath },
        if: { 'Fn::If': ['IsProd', { 'Fn::GetAtt': ['Echo', 'Arn'] }, { 'Fn::GetAtt': ['Other', 'Arn'] }] },
        alias: { 'Fn::Join': [':', [{ 'Fn::GetAtt': ['Echo', 'Arn'] }, 'live']] },
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await served?.close();
  });

  const answer = async (path: string) => {
    const response = await fetch(`${served?.url}${path}`);
    return { status: response.status, body: await response.text() };
  };

  test('each route reaches the function its URI names once resolved', async () => {
    const arn = 'arn:aws:lambda:us-east-1:000000000000:function';
    expect(await answer('/sub')).toEqual({ status: 200, body: `Echo ${arn}:Echo` });
    expect(await answer('/if')).toEqual({ status: 200, body: `Other ${arn}:Other` });
    expect(await answer('/alias')).toEqual({ status: 200, body: `Echo ${arn}:Echo:live` });
  });
});

test('a URI naming no function of the template refuses the app, naming the route', async () => {
  const foreign = 'arn:aws:lambda:us-east-1:123456789012:function:elsewhere';
  await expect(start(templateOf({ away: foreign }))).rejects.toThrow(
    `Routeaway (GET /away): its URI ${foreign} does not name one Lambda function of the template`,
  );
}, 120_000);
