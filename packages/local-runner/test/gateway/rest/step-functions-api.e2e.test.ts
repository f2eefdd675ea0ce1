// CDK's StepFunctionsRestApi served as on AWS ("aws-cdk-lib.aws_apigateway module", StepFunctionsRestApi: "the
// execution input includes the request body, query string and path"; the answer is the execution's output, or 500 with
// its error and cause; StartSyncExecution, https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartSyncExecution.html):
// the AWS integration with Step Functions and CDK's mapping templates, on our fixture app.
import { expect, test } from '@jest/globals';
import { synthesizeStepFunctionsApiApp } from '../../fixtures/step-functions-api-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeStepFunctionsApiApp);

const post = (api: string, path: string, body: unknown) =>
  fetch(`${served.urlOf(api)}/prod${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

test("a synchronous express execution answers its output: the request's body, query string and path", async () => {
  const response = await post('EchoApi', '/?plant=fern', { note: "it's watered" });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ body: { note: "it's watered" }, querystring: { plant: 'fern' }, path: {} });
});

test('a failed execution answers 500 with its error and cause', async () => {
  const response = await post('FailingApi', '/', {});
  expect(response.status).toBe(500);
  expect(await response.json()).toEqual({ error: 'Plants.Wilted', cause: 'no water' });
});

// An AWS integration with Step Functions' StartExecution (its answer, executionArn and startDate: "StartExecution",
// https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html): an execution of the state
// machine started, its input the request's body.
test('an AWS integration with StartExecution starts an execution, and answers its ARN', async () => {
  const response = await post('EchoApi', '/started', { plant: 'ivy' });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({
    executionArn: expect.stringMatching(/^arn:aws:states:[\w-]+:\d{12}:(?:execution|express):Echo[\w-]*:/),
    startDate: expect.any(Number),
  });
});

// "Integration subtype reference" (StepFunctions-StartSyncExecution 1.0,
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services-reference.html).
test("an HTTP API's StepFunctions-StartSyncExecution: the body is the input, the answer StartSyncExecution's", async () => {
  const response = await fetch(`${served.urlOf('HttpRuns')}/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ plant: 'moss' }),
  });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { status: string; output: string };
  expect(answer.status).toBe('SUCCEEDED');
  expect(JSON.parse(answer.output)).toEqual({ plant: 'moss' });
});
