// An HTTP API route's first-class AWS service integration (an AWS_PROXY integration with an IntegrationSubtype:
// "Create AWS service integrations for HTTP APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services.html), its
// request parameters as the "Integration subtype reference"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-aws-services-reference.html)
// lists them for each subtype, each a static value or one with `$request.*`, `$context.*` and `$stageVariables.*`
// mapping expressions in it. The subtypes of the services the runner serves; another is refused, named.
import { UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';
import { awsSqsEndpoint } from './local-aws.ts';

/** A subtype the runner serves: the service's local endpoint, its JSON protocol's target, and its parameters. */
interface Subtype {
  service: 'sqs' | 'events' | 'kinesis' | 'states';
  /** Its JSON protocol's version (the content type `application/x-amz-json-<version>`). */
  json: '1.0' | '1.1';
  target: string;
  required: string[];
  optional: string[];
}

const subtypes: Record<string, Subtype> = {
  'SQS-SendMessage': {
    service: 'sqs',
    json: '1.0',
    target: 'AmazonSQS.SendMessage',
    required: ['QueueUrl', 'MessageBody'],
    optional: [
      'DelaySeconds',
      'MessageAttributes',
      'MessageDeduplicationId',
      'MessageGroupId',
      'MessageSystemAttributes',
    ],
  },
  'SQS-ReceiveMessage': {
    service: 'sqs',
    json: '1.0',
    target: 'AmazonSQS.ReceiveMessage',
    required: ['QueueUrl'],
    optional: [
      'AttributeNames',
      'MaxNumberOfMessages',
      'MessageAttributeNames',
      'ReceiveRequestAttemptId',
      'VisibilityTimeout',
      'WaitTimeSeconds',
    ],
  },
  'SQS-DeleteMessage': {
    service: 'sqs',
    json: '1.0',
    target: 'AmazonSQS.DeleteMessage',
    required: ['ReceiptHandle', 'QueueUrl'],
    optional: [],
  },
  'SQS-PurgeQueue': {
    service: 'sqs',
    json: '1.0',
    target: 'AmazonSQS.PurgeQueue',
    required: ['QueueUrl'],
    optional: [],
  },
  'EventBridge-PutEvents': {
    service: 'events',
    json: '1.1',
    target: 'AWSEvents.PutEvents',
    required: ['Detail', 'DetailType', 'Source'],
    optional: ['Time', 'EventBusName', 'Resources', 'TraceHeader'],
  },
  'StepFunctions-StartExecution': {
    service: 'states',
    json: '1.0',
    target: 'AWSStepFunctions.StartExecution',
    required: ['StateMachineArn'],
    optional: ['Name', 'Input'],
  },
  'StepFunctions-StartSyncExecution': {
    service: 'states',
    json: '1.0',
    target: 'AWSStepFunctions.StartSyncExecution',
    required: ['StateMachineArn'],
    optional: ['Name', 'Input', 'TraceHeader'],
  },
  'StepFunctions-StopExecution': {
    service: 'states',
    json: '1.0',
    target: 'AWSStepFunctions.StopExecution',
    required: ['ExecutionArn'],
    optional: ['Cause', 'Error'],
  },
  'Kinesis-PutRecord': {
    service: 'kinesis',
    json: '1.1',
    target: 'Kinesis_20131202.PutRecord',
    required: ['StreamName', 'Data', 'PartitionKey'],
    optional: ['SequenceNumberForOrdering', 'ExplicitHashKey'],
  },
};

export interface HttpServiceIntegration {
  subtype: string;
  service: Subtype['service'];
  json: Subtype['json'];
  /** The JSON protocol's X-Amz-Target of the subtype's operation. */
  target: string;
  /** Each parameter's value: static text with mapping expressions in it (gateway/http/service.ts fills them). */
  parameters: Record<string, string>;
  /** CredentialsArn: the role API Gateway would assume, noted on each request; no IAM policy is evaluated. */
  credentials: string | undefined;
}

/** A mapping expression of an HTTP API's parameter (`$request.body.a.b`, `$context.requestId`, ...). */
export const httpMappingExpression =
  /\$(?:request\.(?:body(?:\.[\w.[\]*'"-]+)?|header\.[\w-]+|querystring\.[\w-]+|path\.[\w-]+)|context\.[\w.]+|stageVariables\.\w+)/g;

/** `value` with its expressions taken out: anything left with a `$` is one the runner does not read. */
const refusedExpression = (value: string) => /\$/.test(value.replace(httpMappingExpression, ''));

/** The role's name as the template gives it (an ARN, or the role's logical id), for the request's notes. */
const credentialsOf = (value: unknown) => {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return `${String(getAtt[0])} (a role of the template)`;
  return value === undefined ? undefined : String(value);
};

/** The integration `id` (of the route `where`), its subtype and parameters checked. */
export const readHttpServiceIntegration = (
  properties: Record<string, unknown>,
  id: string,
  where: string,
  app: ValueContext,
): HttpServiceIntegration => {
  const name = String(properties.IntegrationSubtype);
  const subtype = subtypes[name];
  if (!subtype)
    throw new UnsupportedTemplateError(
      `${where}: the integration subtype ${name} (the runner serves ${Object.keys(subtypes).join(', ')})`,
    );
  const withQueues = { ...app, sqsEndpoint: app.sqsEndpoint ?? awsSqsEndpoint };
  const evaluated = evaluatedProperty(
    properties.RequestParameters,
    withQueues,
    `${app.stackName}/${id}`,
    'RequestParameters',
  );
  const parameters = (evaluated ?? {}) as Record<string, unknown>;
  const known = new Set([...subtype.required, ...subtype.optional, 'Region']);
  for (const [parameter, value] of Object.entries(parameters))
    if (!known.has(parameter) || typeof value !== 'string' || refusedExpression(value))
      throw new UnsupportedTemplateError(`${where}: ${name}'s parameter ${parameter} = ${JSON.stringify(value)}`);
  const missing = subtype.required.filter((parameter) => parameters[parameter] === undefined);
  if (missing.length > 0) throw new UnsupportedTemplateError(`${where}: ${name} without ${missing.join(', ')}`);
  const { Region: _region, ...sent } = parameters as Record<string, string>;
  return {
    subtype: name,
    service: subtype.service,
    json: subtype.json,
    target: subtype.target,
    parameters: sent,
    credentials: credentialsOf(properties.CredentialsArn),
  };
};
