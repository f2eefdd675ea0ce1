// The two values of issue 51 that public apps write and the runner refused, served as CloudFormation deploys them:
// - an HTTP API route whose Target joins `integrations` and the integration's Ref with `/` ("Fn::Join": "appends a set
//   of values into a single value, separated by the specified delimiter",
//   https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-join.html;
//   "AWS::ApiGatewayV2::Route" Target: "The target for the route", `integrations/<IntegrationId>`,
//   https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigatewayv2-route.html);
// - a function's environment holding the Ref of an AWS::SSM::Parameter with a literal Name ("AWS::SSM::Parameter"
//   return values: "Ref returns the name of the SSM parameter",
//   https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ssm-parameter.html#aws-resource-ssm-parameter-return-values).
// And a queue's Ref, its URL at the local SQS, known once that listens: in a function's environment.
import { afterAll, describe, expect, test } from '@jest/globals';
import { handWrittenAssemblies, inlineFunction, proxyIntegration } from '../helpers/hand-written-assembly.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

const { assemblyOf, removeAll } = handWrittenAssemblies('evaluator-e2e');

/** An HTTP API whose GET /value answers the function's PARAMETER variable; `variables` set in its environment. */
const templateOf = (variables: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  Resources: {
    Greeting: {
      Type: 'AWS::SSM::Parameter',
      Properties: { Name: '/plant-store/greeting', Type: 'String', Value: 'hello' },
    },
    Echo: inlineFunction(
      'exports.handler = async () => ({ statusCode: 200, body: process.env.PARAMETER ?? "unset" });',
      { Environment: { Variables: variables } },
    ),
    Http: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'http', ProtocolType: 'HTTP' } },
    Integration: proxyIntegration('Echo'),
    Route: {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: {
        ApiId: { Ref: 'Http' },
        RouteKey: 'GET /value',
        Target: { 'Fn::Join': ['/', ['integrations', { Ref: 'Integration' }]] },
      },
    },
    ...extra,
  },
});

afterAll(removeAll);

/** GET /value of the app `served` serves. */
const answerOf = async (served: ReturnType<typeof servedBeforeAll>) => {
  const response = await fetch(`${served.urlOf('Http')}/value`);
  return { status: response.status, body: await response.text() };
};

describe('a route Target joined with "/" and a Ref of an SSM parameter in an environment', () => {
  const served = servedBeforeAll(() => assemblyOf(templateOf({ PARAMETER: { Ref: 'Greeting' } })));

  test("the route is served, and the function reads the parameter's Name", async () => {
    expect(await answerOf(served)).toEqual({ status: 200, body: '/plant-store/greeting' });
  });
});

describe("a queue's Ref in an environment", () => {
  const served = servedBeforeAll(() =>
    assemblyOf(
      templateOf(
        { PARAMETER: { Ref: 'Jobs' } },
        { Jobs: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } } },
      ),
    ),
  );

  // "AWS::SQS::Queue" return values: "Ref returns the queue URL"
  // (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sqs-queue.html#aws-resource-sqs-queue-return-values).
  test("is the queue's URL at the local SQS", async () => {
    expect(await answerOf(served)).toEqual({ status: 200, body: `${served.api.serviceUrls.sqs}/000000000000/jobs` });
  });
});
