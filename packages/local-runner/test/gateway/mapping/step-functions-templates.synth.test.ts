// CDK's StepFunctionsRestApi ("aws-cdk-lib.aws_apigateway module", StepFunctionsRestApi: a synchronous express
// execution, StartSyncExecution, behind a REST API) writes mapping templates that lean on Velocity's Java: its request
// template builds the execution's input with `length()`, `substring()` and `replaceAll()`, its response template
// answers the output, or 500 with the error and cause when `$input.path('$.status').toString().equals("FAILED")`. The
// engine renders them as API Gateway does ("StartSyncExecution", AWS Step Functions API Reference,
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartSyncExecution.html: `status`, `output`,
// `error`, `cause`); the templates taken from the stack the CDK synthesizes.
import { describe, expect, test } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { StepFunctionsRestApi } from 'aws-cdk-lib/aws-apigateway';
import { Pass, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { type MappingInput, renderTemplate, templateRefusal } from '../../../src/gateway/mapping/template.ts';

const machineArn = 'arn:aws:states:us-east-1:000000000000:stateMachine:Machine';

/** A template value with its Fn::Join parts joined, a reference (the state machine's) as its ARN. */
const text = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return join ? join[1].map(text).join(join[0]) : machineArn;
};

/** The REST API's method's integration as the CDK writes it. */
const integration = () => {
  const stack = new Stack(new App(), 'Sync');
  const stateMachine = new StateMachine(stack, 'Machine', {
    definition: new Pass(stack, 'Echo'),
    stateMachineType: StateMachineType.EXPRESS,
  });
  new StepFunctionsRestApi(stack, 'Api', { stateMachine });
  const resources = Object.values(
    (stack.node.root as App).synth().getStackByName('Sync').template.Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >,
  );
  const method = resources.find(
    ({ Type, Properties }) => Type === 'AWS::ApiGateway::Method' && Properties.HttpMethod === 'ANY',
  );
  const found = method?.Properties.Integration as {
    RequestTemplates: Record<string, unknown>;
    IntegrationResponses: { ResponseTemplates?: Record<string, unknown> }[];
  };
  return {
    request: text(found.RequestTemplates['application/json']),
    responses: found.IntegrationResponses.flatMap(({ ResponseTemplates = {} }) =>
      Object.values(ResponseTemplates).map(text),
    ),
  };
};

const input = (body: string, context: Record<string, unknown> = {}): MappingInput => ({
  body,
  params: { path: {}, querystring: { plant: 'fern' }, header: { Accept: '*/*' } },
  context: { stage: 'prod', responseOverride: { header: {} }, ...context },
  stageVariables: {},
});

describe('StepFunctionsRestApi', () => {
  const { request, responses } = integration();
  const [response = ''] = responses;

  test('its templates use nothing the runner refuses', () => {
    expect(templateRefusal(request)).toBeUndefined();
    for (const template of responses) expect(templateRefusal(template)).toBeUndefined();
  });

  test("the request template's StartSyncExecution input: the body, the query string and the path, as JSON", () => {
    const rendered = JSON.parse(renderTemplate(request, input(JSON.stringify({ note: "it's a fern" }))));
    expect(rendered.stateMachineArn).toBe(machineArn);
    expect(JSON.parse(rendered.input)).toEqual({
      body: { note: "it's a fern" },
      querystring: { plant: 'fern' },
      path: {},
    });
  });

  test("the response template answers a SUCCEEDED execution's output", () => {
    const answer = JSON.stringify({ status: 'SUCCEEDED', output: JSON.stringify({ greeting: 'hi' }) });
    expect(JSON.parse(renderTemplate(response, input(answer)))).toEqual({ greeting: 'hi' });
  });

  test('the response template answers a FAILED execution with 500, its error and cause', () => {
    const context: Record<string, unknown> = { responseOverride: { header: {} } };
    const answer = JSON.stringify({ status: 'FAILED', error: 'States.TaskFailed', cause: 'the task failed' });
    const rendered = renderTemplate(response, input(answer, context));
    expect(JSON.parse(rendered)).toEqual({ error: 'States.TaskFailed', cause: 'the task failed' });
    expect(context.responseOverride).toEqual({ header: {}, status: 500 });
  });
});
