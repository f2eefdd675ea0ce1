// What `Ref` and `Fn::GetAtt` give for each resource type, as data: CloudFormation's "Return values" tables (the
// CloudFormation template reference, one page per type, e.g.
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ssm-parameter.html#aws-resource-ssm-parameter-return-values),
// with the local values of what a local part serves: a table's name, a function's, an API's id. A name the template
// gives is given as it is; an ARN is built from the name, the local region and account. What the runner cannot know
// (a name CloudFormation generates for a resource nothing serves locally, a queue's URL no service serves yet) is a
// reason, which the evaluator (intrinsics.ts) turns into a refusal naming the reference.
import { createHash } from 'node:crypto';
import { templateStreamLabel } from '../database/streams/stream-log.ts';
import type { CfnResource } from './cfn.ts';
import { localAws } from './local-aws.ts';
import { localPoolId, poolArn, poolIssuer } from './user-pools.ts';

/** The resource a value is asked of: its logical id, stack, and its properties' values (`text` evaluates one). */
export interface Subject {
  id: string;
  stackName: string;
  resource: CfnResource;
  /** The property `name`, evaluated to text; undefined when absent. */
  text: (name: string) => string | undefined;
  /** The local SQS's address, once it listens. */
  sqsEndpoint?: string;
}

/** A value, or why the runner cannot know it. */
export type Known = { value: string } | { unknown: string };
type Getter = (subject: Subject) => Known;

export interface ReturnValues {
  ref: Getter;
  attributes: Record<string, Getter>;
  /** Any other attribute's (a type nothing serves yet): absent, an attribute not in the table is refused. */
  others?: Getter;
}

const known = (value: string): Known => ({ value });
const unknown =
  (why: string): Getter =>
  () => ({ unknown: why });

/** Letters and digits of a hash of `text`: the part of a generated name CloudFormation makes random, stable here. */
const stableSuffix = (text: string, length: number) =>
  createHash('sha256')
    .update(text)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, length);

/**
 * The name of a nested stack (AWS::CloudFormation::Stack): its AWS::StackName, and the stack name in the names generated
 * for its resources. CloudFormation names it `<parent stack>-<logical id>-<random>`, the pattern deployed nested stacks
 * show ("Nested stacks" in the CloudFormation User Guide documents no format); kept within a stack name's 128
 * characters here, how CloudFormation shortens a longer one is not documented.
 */
export const generatedNestedStackName = (parentName: string, id: string) =>
  `${`${parentName}-${id}`.slice(0, 114)}-${stableSuffix(`${parentName}/${id}`, 13).toUpperCase()}`;

/** The name the template gives in `property`; else `generated`, or unknown when the runner cannot give one. */
const named =
  (property: string, generated?: (subject: Subject) => string): Getter =>
  (subject) => {
    const given = subject.text(property);
    if (given !== undefined) return known(given);
    if (generated) return known(generated(subject));
    return { unknown: `its ${property} is not given, and CloudFormation makes one up at deployment` };
  };

/** `arn:<partition>:<service>:<region>:<account>:<resource>`, `resource` built from the name `of` gives. */
const arnOf =
  (service: string, resource: (name: string, subject: Subject) => string, of: Getter, regional = true): Getter =>
  (subject) => {
    const name = of(subject);
    if ('unknown' in name) return name;
    const region = regional ? localAws.region : '';
    const account = service === 's3' ? '' : localAws.accountId;
    return known(`arn:${localAws.partition}:${service}:${region}:${account}:${resource(name.value, subject)}`);
  };

/** The logical id: what the runner uses, locally, as the physical id of what it serves by id. */
const logicalId: Getter = ({ id }) => known(id);

/** A type whose `Ref` and id attribute (`Fn::GetAtt` [id, attribute]) are its id, locally its logical id. */
const byId = (attribute: string): ReturnValues => ({ ref: logicalId, attributes: { [attribute]: logicalId } });

/**
 * The name of a parameter whose template gives none: CloudFormation generates `CFN-<logical id>-<random>` (the pattern
 * deployed stacks show; "AWS::SSM::Parameter" says only "If you don't specify a name, AWS CloudFormation generates a
 * unique physical ID"), the random part a hash of the stack and id, the same at every start. The local Parameter
 * Store seeds the parameter under this name (service-resources.ts).
 */
export const generatedParameterName = (stackName: string, id: string) =>
  `CFN-${id}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/**
 * The name of a queue whose template gives none: CloudFormation generates `<stack>-<logical id>-<random>` ("AWS::SQS::Queue"
 * QueueName: "If you don't specify a name, AWS CloudFormation generates a unique physical ID"), at most 80
 * characters, `.fifo` ending a FIFO queue's; stable here.
 */
export const generatedQueueName = (stackName: string, id: string, fifo: boolean) =>
  `${`${stackName}-${id}`.slice(0, fifo ? 62 : 67)}-${stableSuffix(`${stackName}/${id}`, 12)}${fifo ? '.fifo' : ''}`;

/**
 * The name of a schedule or schedule group whose template gives none: CloudFormation generates
 * `<stack>-<logical id>-<random>` ("AWS::Scheduler::Schedule" Name), at most 64 characters; stable here.
 */
export const generatedScheduleName = (stackName: string, id: string) =>
  `${`${stackName}-${id}`.slice(0, 51)}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/** "AWS::Scheduler::Schedule" Arn: `arn:aws:scheduler:<region>:<account>:schedule/<group>/<name>`. */
export const localScheduleArn = (group: string, name: string) =>
  `arn:${localAws.partition}:scheduler:${localAws.region}:${localAws.accountId}:schedule/${group}/${name}`;

/**
 * The name of a function whose template gives none: CloudFormation generates `<stack>-<logical id>-<random>`
 * ("AWS::Lambda::Function" FunctionName: "If you don't specify a name, AWS CloudFormation generates a unique physical
 * ID and uses that ID for the function's name"; the shape deployed stacks show), at most 64 characters; stable here.
 * `context.functionName`, AWS_LAMBDA_FUNCTION_NAME, the function's Ref and its ARN are this name.
 */
export const generatedFunctionName = (stackName: string, id: string) =>
  `${`${stackName}-${id}`.slice(0, 51)}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/**
 * The name of a topic whose template gives none: `<stack>-<logical id>-<random>` as CloudFormation generates it
 * ("AWS::SNS::Topic" TopicName: "If you don't specify a name, AWS CloudFormation generates a unique physical ID"),
 * `.fifo` ending a FIFO topic's; stable here. The local SNS serves the topic under this name (sns-resources.ts).
 */
export const generatedTopicName = (stackName: string, id: string, fifo: boolean) =>
  `${`${stackName}-${id}`.slice(0, 230)}-${stableSuffix(`${stackName}/${id}`, 12)}${fifo ? '.fifo' : ''}`;

/**
 * The name of a bucket whose template gives none: CloudFormation generates `<stack>-<logical id>-<random>`, lower case
 * ("AWS::S3::Bucket" BucketName: "If you don't specify a name, AWS CloudFormation generates a unique ID and uses that
 * ID for the bucket name"; the shape deployed stacks show), at most 63 characters; stable here. The local S3 serves
 * the bucket under this name (s3-resources.ts).
 */
export const generatedBucketName = (stackName: string, id: string) =>
  `${`${stackName}-${id}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, 50)}-${stableSuffix(`${stackName}/${id}`, 12).toLowerCase()}`;

/** The name of a secret whose template gives none: `<logical id>-<random>`, as deployed stacks show; stable here. */
export const generatedSecretName = (stackName: string, id: string) => `${id}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/**
 * A secret's ARN ("AWS::SecretsManager::Secret" return values: Ref gives it): Secrets Manager adds `-` and six random
 * characters to its name; here a hash of the name.
 */
export const localSecretArn = (name: string) =>
  `arn:${localAws.partition}:secretsmanager:${localAws.region}:${localAws.accountId}:secret:${name}-${stableSuffix(name, 6)}`;

/** A parameter's ARN (a name without a leading `/` gets one): `arn:aws:ssm:<region>:<account>:parameter/<name>`. */
export const localParameterArn = (name: string) =>
  `arn:${localAws.partition}:ssm:${localAws.region}:${localAws.accountId}:parameter${name.startsWith('/') ? '' : '/'}${name}`;

/**
 * The name of a rule whose template gives none: CloudFormation generates `<stack>-<logical id>-<random>` ("AWS::Events::Rule"
 * return values: "such as mystack-ScheduledRule-ABCDEFGHIJK"), at most 64 characters; stable here.
 */
export const generatedRuleName = (stackName: string, id: string) =>
  `${`${stackName}-${id}`.slice(0, 51)}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/** The stream ARN of a template's table: its label is the fixed one the database gives those streams. */
export const localTableStreamArn = (table: string) =>
  `arn:${localAws.partition}:dynamodb:${localAws.region}:${localAws.accountId}:table/${table}/stream/${templateStreamLabel}`;

/** An event bus's ARN: `arn:aws:events:<region>:<account>:event-bus/<name>`. */
export const eventBusArn = (name: string) =>
  `arn:${localAws.partition}:events:${localAws.region}:${localAws.accountId}:event-bus/${name}`;

/** A rule's ARN: `rule/<name>` on the default bus, `rule/<bus>/<name>` on another. */
export const ruleArn = (bus: string, name: string) =>
  `arn:${localAws.partition}:events:${localAws.region}:${localAws.accountId}:rule/${bus === 'default' ? '' : `${bus}/`}${name}`;

/** What every local function's ARN starts with, its name (fnName) and any qualifier following. */
export const functionArnPrefix = () =>
  `arn:${localAws.partition}:lambda:${localAws.region}:${localAws.accountId}:function:`;

/** The version a published AWS::Lambda::Version is locally: the function's first. */
export const localVersion = '1';

/**
 * A function's ARN locally, from its name (its FunctionName, else the generated one: its AWS_LAMBDA_FUNCTION_NAME) or
 * its ARN, with the alias's or version's `qualifier` it was invoked by: what the runtime gets as invokedFunctionArn.
 */
export const functionArn = (name: string, qualifier?: string) =>
  `${name.startsWith('arn:') ? name : `${functionArnPrefix()}${name}`}${qualifier === undefined ? '' : `:${qualifier}`}`;

/** An alias's or a version's ARN: the function's (its FunctionName, evaluated) with the qualifier. */
const qualified =
  (qualifier: (subject: Subject) => string | undefined): Getter =>
  (subject) => {
    const fn = subject.text('FunctionName');
    const name = qualifier(subject);
    if (fn === undefined || name === undefined) return { unknown: 'it names no function, or no qualifier' };
    return known(`${functionArn(fn)}:${name}`);
  };

const tableName = named('TableName', ({ id }) => id);
/**
 * The name of a Kinesis stream whose template gives none: CloudFormation generates `<stack>-<logical id>-<random>`
 * ("AWS::Kinesis::Stream" Name: "If you don't specify a name, AWS CloudFormation generates a unique physical ID and
 * uses that ID for the stream name"), at most 128 characters; stable here.
 */
export const generatedStreamName = (stackName: string, id: string) =>
  `${`${stackName}-${id}`.slice(0, 115)}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/**
 * A table's stream ARN: `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`, the label of a template's
 * table's stream fixed (database/streams/stream-log.ts, templateStreamLabel), so it is known before the database starts.
 */
const tableStreamArn: Getter = (subject) => {
  const spec = subject.resource.Properties?.StreamSpecification as { StreamViewType?: unknown } | undefined;
  if (spec?.StreamViewType === undefined) return { unknown: 'it has no StreamSpecification, so no stream' };
  return withName(tableName(subject), (name) => localTableStreamArn(name));
};
const tableArn = arnOf('dynamodb', (name) => `table/${name}`, tableName);
/**
 * "AWS::DynamoDB::GlobalTable" TableId: the table's unique identifier, a UUID (`a123b456-01ab-23cd-123a-111222aaabbb`);
 * locally a hash of the stack and logical id in that shape, the same at every start.
 */
const tableId: Getter = ({ id, stackName }) => {
  const hex = createHash('sha256').update(`${stackName}/${id}`).digest('hex');
  return known([hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-'));
};
/** A function's name: the template's FunctionName, else the one CloudFormation generates (generatedFunctionName). */
const fnName: Getter = ({ id, stackName, text }) => known(text('FunctionName') ?? generatedFunctionName(stackName, id));
const secret: Getter = ({ id, stackName, text }) =>
  known(localSecretArn(text('Name') ?? generatedSecretName(stackName, id)));
const parameterName: Getter = ({ id, stackName, text }) => known(text('Name') ?? generatedParameterName(stackName, id));
const pool =
  (value: (poolId: string) => string): Getter =>
  ({ id }) =>
    known(value(localPoolId(id)));
const roleName = named('RoleName');
const queueName: Getter = ({ id, stackName, text }) =>
  known(text('QueueName') ?? generatedQueueName(stackName, id, text('FifoQueue') === 'true'));
/** A queue's URL: the local SQS's address, the account and its name ("AWS::SQS::Queue" Ref returns the queue URL). */
const queueUrl: Getter = (subject) => {
  const name = queueName(subject);
  if ('unknown' in name) return name;
  if (subject.sqsEndpoint === undefined)
    return { unknown: 'its URL names the port of the local SQS, known only once it serves' };
  return known(`${subject.sqsEndpoint}/${localAws.accountId}/${name.value}`);
};
const bucketName = named('BucketName', ({ stackName, id }) => generatedBucketName(stackName, id));
const scheduleName = named('Name', ({ stackName, id }) => generatedScheduleName(stackName, id));
const scheduleArn: Getter = (subject) => {
  const name = scheduleName(subject);
  return 'unknown' in name ? name : known(localScheduleArn(subject.text('GroupName') ?? 'default', name.value));
};
const topicName: Getter = ({ id, stackName, text }) =>
  known(text('TopicName') ?? generatedTopicName(stackName, id, text('FifoTopic') === 'true'));
const topicArn = arnOf('sns', (name) => name, topicName);
const ruleName: Getter = ({ id, stackName, text }) => known(text('Name') ?? generatedRuleName(stackName, id));
const streamName: Getter = ({ id, stackName, text }) => known(text('Name') ?? generatedStreamName(stackName, id));
const ruleBus = ({ text }: Subject) => (text('EventBusName') ?? 'default').replace(/^arn:.*:event-bus\//, '');

/**
 * The name of a state machine whose template gives none: CloudFormation generates `<logical id>-<random>`
 * ("AWS::StepFunctions::StateMachine" StateMachineName: "If you don't specify a name, AWS CloudFormation generates a
 * unique physical ID"; the shape deployed stacks show), at most 80 characters; stable here.
 */
export const generatedStateMachineName = (stackName: string, id: string) =>
  `${id.slice(0, 67)}-${stableSuffix(`${stackName}/${id}`, 12)}`;

/** "AWS::StepFunctions::StateMachine" Arn: `arn:aws:states:<region>:<account>:stateMachine:<name>`. */
export const stateMachineArn = (name: string) =>
  `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}:stateMachine:${name}`;
const stateMachineName: Getter = ({ id, stackName, text }) =>
  known(text('StateMachineName') ?? generatedStateMachineName(stackName, id));

/** "AWS::StepFunctions::Activity" Ref: `arn:aws:states:<region>:<account>:activity:<name>`. */
export const activityArn = (name: string) =>
  `arn:${localAws.partition}:states:${localAws.region}:${localAws.accountId}:activity:${name}`;

/** The return values of every type the runner knows, by type. */
export const returnValues: Record<string, ReturnValues> = {
  // Served locally (the database, the functions, the gateway, the issuer standing in for Cognito).
  'AWS::DynamoDB::Table': {
    ref: tableName,
    attributes: { Arn: tableArn, StreamArn: tableStreamArn },
  },
  // Served as the table of the stack's region (tables.ts), whose values its return values are ("The ARN returned is
  // that of the replica in the region the stack is deployed to").
  'AWS::DynamoDB::GlobalTable': {
    ref: tableName,
    attributes: { Arn: tableArn, StreamArn: tableStreamArn, TableId: tableId },
  },
  'AWS::Lambda::Function': {
    ref: fnName,
    attributes: { Arn: arnOf('lambda', (name) => `function:${name}`, fnName) },
  },
  // A published version runs locally as the function's first (functions.ts).
  'AWS::Lambda::Version': {
    ref: qualified(() => localVersion),
    attributes: { Version: () => known(localVersion), FunctionArn: qualified(() => localVersion) },
  },
  'AWS::Lambda::Alias': {
    ref: qualified(({ text }) => text('Name')),
    attributes: { AliasArn: qualified(({ text }) => text('Name')) },
  },
  'AWS::Lambda::Url': {
    ref: unknown("its URL is the runner's address, known only once it serves"),
    attributes: {
      FunctionArn: ({ text }) => {
        const target = text('TargetFunctionArn');
        return target === undefined ? { unknown: 'it names no function' } : known(functionArn(target));
      },
      FunctionUrl: unknown("its URL is the runner's address, known only once it serves"),
    },
  },
  'AWS::SSM::Parameter': {
    ref: parameterName,
    attributes: {
      Type: named('Type'),
      Value: named('Value'),
    },
  },
  'AWS::SecretsManager::Secret': { ref: secret, attributes: { Id: secret } },
  'AWS::Cognito::UserPool': {
    ref: pool((poolId) => poolId),
    attributes: {
      Arn: pool(poolArn),
      ProviderURL: pool(poolIssuer),
      ProviderName: pool((poolId) => poolIssuer(poolId).slice('https://'.length)),
      UserPoolId: pool((poolId) => poolId),
    },
  },
  'AWS::Cognito::UserPoolClient': byId('ClientId'),
  'AWS::ApiGateway::RestApi': byId('RestApiId'),
  'AWS::ApiGateway::Resource': byId('ResourceId'),
  'AWS::ApiGateway::Authorizer': byId('AuthorizerId'),
  'AWS::ApiGateway::Deployment': byId('DeploymentId'),
  'AWS::ApiGateway::RequestValidator': byId('RequestValidatorId'),
  'AWS::ApiGateway::UsagePlan': byId('Id'),
  'AWS::ApiGateway::ApiKey': byId('APIKeyId'),
  'AWS::ApiGateway::Model': { ref: named('Name'), attributes: {} },
  'AWS::ApiGateway::Stage': { ref: named('StageName'), attributes: {} },
  'AWS::ApiGatewayV2::Api': byId('ApiId'),
  'AWS::ApiGatewayV2::Authorizer': byId('AuthorizerId'),
  'AWS::ApiGatewayV2::Integration': byId('IntegrationId'),
  'AWS::ApiGatewayV2::Route': byId('RouteId'),
  'AWS::ApiGatewayV2::Deployment': byId('DeploymentId'),
  'AWS::ApiGatewayV2::Stage': { ref: named('StageName'), attributes: {} },
  // Not served (a function's VPC is said at start): "AWS::EC2::VPC" return values, Ref and VpcId its id (locally its
  // logical id), CidrBlock the one it gives (one IPAM allocates refuses).
  'AWS::EC2::VPC': { ref: logicalId, attributes: { VpcId: logicalId, CidrBlock: named('CidrBlock') } },
  // Not served: a name the template gives, and the ARN built from it.
  'AWS::IAM::Role': {
    ref: roleName,
    attributes: {
      Arn: arnOf('iam', (name, { text }) => `role${text('Path') ?? '/'}${name}`, roleName, false),
      RoleId: unknown('IAM makes up a role id at deployment'),
    },
  },
  'AWS::S3::Bucket': {
    ref: bucketName,
    attributes: {
      Arn: arnOf('s3', (name) => name, bucketName, false),
      DomainName: (subject) => withName(bucketName(subject), (name) => `${name}.s3.${localAws.urlSuffix}`),
      RegionalDomainName: (subject) =>
        withName(bucketName(subject), (name) => `${name}.s3.${localAws.region}.${localAws.urlSuffix}`),
    },
  },
  'AWS::Logs::LogGroup': {
    ref: named('LogGroupName'),
    attributes: { Arn: arnOf('logs', (name) => `log-group:${name}:*`, named('LogGroupName')) },
  },
  // Served by the local SQS (services/sqs.ts): its name and ARN are known from the template; its URL names the
  // service's port, chosen when it listens: known in a function's environment, not while the template is read.
  'AWS::SQS::Queue': {
    ref: queueUrl,
    attributes: { Arn: arnOf('sqs', (name) => name, queueName), QueueName: queueName, QueueUrl: queueUrl },
  },
  'AWS::Scheduler::Schedule': { ref: scheduleName, attributes: { Arn: scheduleArn } },
  'AWS::Scheduler::ScheduleGroup': {
    ref: scheduleName,
    attributes: { Arn: arnOf('scheduler', (name) => `schedule-group/${name}`, scheduleName) },
  },
  // Served by the local SNS (services/sns.ts): its name and ARN are known from the template ("AWS::SNS::Topic" return
  // values: Ref gives the topic's ARN).
  'AWS::SNS::Topic': { ref: topicArn, attributes: { TopicArn: topicArn, TopicName: topicName } },
  // Served by the local EventBridge (services/eventbridge.ts). A rule's Ref is its name on the default bus and
  // `<bus>|<name>` on another, as deployed stacks show (cloudformation-coverage-roadmap #1131).
  'AWS::Events::EventBus': {
    ref: named('Name'),
    attributes: { Arn: (subject) => withName(named('Name')(subject), eventBusArn), Name: named('Name') },
  },
  'AWS::Events::Rule': {
    ref: (subject) =>
      withName(ruleName(subject), (name) => (ruleBus(subject) === 'default' ? name : `${ruleBus(subject)}|${name}`)),
    attributes: { Arn: (subject) => withName(ruleName(subject), (name) => ruleArn(ruleBus(subject), name)) },
  },
  // Served by the local Kinesis (services/kinesis.ts): "AWS::Kinesis::Stream" Ref gives its name, Arn its ARN.
  'AWS::Kinesis::Stream': {
    ref: streamName,
    attributes: { Arn: arnOf('kinesis', (name) => `stream/${name}`, streamName) },
  },
  // Served by the local Step Functions (services/states/): Ref is the state machine's ARN ("Return values").
  'AWS::StepFunctions::StateMachine': {
    ref: (subject) => withName(stateMachineName(subject), stateMachineArn),
    attributes: {
      Arn: (subject) => withName(stateMachineName(subject), stateMachineArn),
      Name: stateMachineName,
    },
  },
  // "AWS::StepFunctions::Activity" return values: Ref gives its ARN, Fn::GetAtt Name its name (Name is required).
  'AWS::StepFunctions::Activity': {
    ref: (subject) => withName(named('Name')(subject), activityArn),
    attributes: { Name: named('Name') },
  },
};

const withName = (name: Known, value: (name: string) => string): Known =>
  'unknown' in name ? name : known(value(name.value));
