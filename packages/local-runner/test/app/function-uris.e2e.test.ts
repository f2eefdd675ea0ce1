// Integration URIs read through the one evaluator, then parsed for the function's ARN: every form CloudFormation takes
// for the same value names the same function.
// - "Fn::Sub": "substitutes variables in an input string with values that you specify", `${Id.Attribute}` being
//   Fn::GetAtt, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-sub.html
// - "Condition functions" (Fn::If: "Returns one value if the specified condition evaluates to true and another value if
//   the specified condition evaluates to false"),
//   https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-conditions.html
// - "Fn::Join", https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-join.html,
//   here building an alias's ARN ("AWS::Lambda::Alias": Ref "returns the resource ARN",
//   https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-alias.html).
// "AWS::ApiGatewayV2::Integration" IntegrationUri: "For a Lambda integration, specify the URI of a Lambda function",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigatewayv2-integration.html.
// The function answers its context's invokedFunctionArn ("Using the Lambda context object to retrieve Node.js function
// information": "The Amazon Resource Name (ARN) that's used to invoke the function. Indicates if the invoker specified
// a version number or alias", https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { UnsupportedTemplateError } from '../../src/app/cfn.ts';
import { generatedFunctionName } from '../../src/app/return-values.ts';
import { startRunner } from '../../src/runner.ts';
import { handWrittenAssemblies, inlineFunction } from '../helpers/hand-written-assembly.ts';

const { assemblyOf, removeAll } = handWrittenAssemblies('function-uris-e2e');

// biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own syntax.
const path = 'arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/';

/** An HTTP API whose route GET /<key> integrates the URI `uris[key]`; Echo answers the ARN it was invoked by. */
const templateOf = (uris: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  Parameters: { Stage: { Type: 'String', Default: 'local' } },
  Conditions: { IsLocal: { 'Fn::Equals': [{ Ref: 'Stage' }, 'local'] } },
  Resources: {
    Echo: inlineFunction(
      'exports.handler = async (_, context) => ({ statusCode: 200, body: context.invokedFunctionArn });',
    ),
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
              Target: { 'Fn::Sub': `integrations/\${Integration${key}}` },
            },
          },
        ],
      ]),
    ),
    ...extra,
  },
});

const start = (dir: string) =>
  startRunner({
    cloudAssemblyDir: dir,
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    log: () => {},
    functionLog: () => {},
  });

afterAll(removeAll);

describe('integration URIs written with Fn::Sub, Fn::If and Fn::Join', () => {
  let served: Awaited<ReturnType<typeof startRunner>> | undefined;
  beforeAll(async () => {
    const uris = {
      sub: { 'Fn::Sub': `${path}\${Echo.Arn}/invocations` },
      if: { 'Fn::If': ['IsLocal', { 'Fn::GetAtt': ['Echo', 'Arn'] }, 'arn:aws:lambda:us-east-1:1:function:elsewhere'] },
      alias: {
        'Fn::Join': [
          ':',
          [
            'arn',
            { Ref: 'AWS::Partition' },
            'lambda',
            { Ref: 'AWS::Region' },
            { Ref: 'AWS::AccountId' },
            'function',
            { Ref: 'Echo' },
            'live',
          ],
        ],
      },
    };
    served = await start(assemblyOf(templateOf(uris)));
  }, 120_000);
  afterAll(async () => {
    await served?.close();
  });

  test.each([
    ['sub', `arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName('Case', 'Echo')}`],
    ['if', `arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName('Case', 'Echo')}`],
    ['alias', `arn:aws:lambda:us-east-1:000000000000:function:${generatedFunctionName('Case', 'Echo')}:live`],
  ])('GET /%s reaches Echo, invoked by %s', async (key, arn) => {
    const url = served?.apis.find(({ app }) => app.apiId === 'Http')?.url;
    const response = await fetch(`${url}/${key}`);
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: arn });
  });
});

test('a URI the evaluator cannot know refuses the app, naming the integration, the property and the reference', async () => {
  const dir = assemblyOf(
    templateOf(
      { stream: { 'Fn::Sub': `${path}\${Plants.StreamArn}/invocations` } },
      {
        Plants: {
          Type: 'AWS::DynamoDB::Table',
          Properties: {
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
            AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            BillingMode: 'PAY_PER_REQUEST',
          },
        },
      },
    ),
  );
  const started = start(dir);
  await expect(started).rejects.toThrow(UnsupportedTemplateError);
  // A table without a StreamSpecification has no stream (its StreamArn refuses: return-values.ts).
  await expect(started).rejects.toThrow(/Integrationstream \(IntegrationUri\).*Plants, an AWS::DynamoDB::Table/);
}, 120_000);

test("a URI naming a function outside the app refuses it, naming the function's ARN", async () => {
  const started = start(assemblyOf(templateOf({ other: 'arn:aws:lambda:us-east-1:111111111111:function:Other' })));
  await expect(started).rejects.toThrow(
    /IntegrationUri\).*: its value arn:aws:lambda:us-east-1:111111111111:function:Other .*names no Lambda function/,
  );
}, 120_000);
