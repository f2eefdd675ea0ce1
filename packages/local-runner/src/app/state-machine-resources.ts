// The template's Step Functions state machines ("AWS::StepFunctions::StateMachine", CloudFormation template reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-stepfunctions-statemachine.html),
// as the local Step Functions (services/states/) is seeded with them: the definition from DefinitionString (CDK writes
// it with Fn::Join and Fn::Sub, evaluated by the one evaluator, intrinsics.ts) or Definition, its
// DefinitionSubstitutions applied; StateMachineType STANDARD or EXPRESS. DefinitionS3Location is refused by name (the
// runner reads no definition from S3); LoggingConfiguration and TracingConfiguration are said and not applied (the
// runner logs each execution state by state). A value the evaluator cannot know refuses the app, naming the property.
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';
import { activityArn, generatedStateMachineName, stateMachineArn } from './return-values.ts';

/**
 * What a queue's URL (`Ref` of an AWS::SQS::Queue) names in a definition while the template is read: the local SQS's
 * address is known only once it listens, and the service puts it in place of this mark (services/states/).
 */
export const queueEndpointMark = 'http://local-sqs.invalid';

export interface StateMachineSeed {
  /** `Stack/LogicalId`. */
  source: string;
  name: string;
  arn: string;
  type: 'STANDARD' | 'EXPRESS';
  /** The Amazon States Language definition, parsed, its substitutions applied. */
  definition: Record<string, unknown>;
  roleArn?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `${key}` replaced by each substitution's value in every string of `value` ("DefinitionSubstitutions"). */
const substituted = (value: unknown, substitutions: Record<string, string>): unknown => {
  if (typeof value === 'string')
    return value.replace(/\$\{([^}]+)\}/g, (whole, key: string) => substitutions[key] ?? whole);
  if (Array.isArray(value)) return value.map((item) => substituted(item, substitutions));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituted(item, substitutions)]));
  return value;
};

const substitutionsOf = (given: unknown, source: string): Record<string, string> => {
  if (given === undefined) return {};
  if (!isObject(given)) throw new UnsupportedTemplateError(`${source}: its DefinitionSubstitutions is not a map`);
  return Object.fromEntries(
    Object.entries(given).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
};

/** The definition, from DefinitionString or Definition, evaluated and parsed; refused when neither or S3 gives it. */
const definitionOf = (resource: CfnResource, context: ValueContext, source: string) => {
  const { DefinitionString, Definition, DefinitionS3Location, DefinitionSubstitutions } = props(resource);
  if (DefinitionS3Location !== undefined)
    throw new UnsupportedTemplateError(
      `${source}: its DefinitionS3Location is not read locally (the runner serves no definition from S3): give the definition in DefinitionString or Definition`,
    );
  const substitutions = substitutionsOf(
    evaluatedProperty(DefinitionSubstitutions, context, source, 'DefinitionSubstitutions'),
    source,
  );
  let definition: unknown;
  if (DefinitionString !== undefined) {
    const text = evaluatedProperty(DefinitionString, context, source, 'DefinitionString');
    try {
      definition = JSON.parse(String(substituted(text, substitutions)));
    } catch {
      throw new UnsupportedTemplateError(`${source}: its DefinitionString is not JSON`);
    }
  } else definition = substituted(evaluatedProperty(Definition, context, source, 'Definition'), substitutions);
  if (!isObject(definition) || !isObject(definition.States) || typeof definition.StartAt !== 'string')
    throw new UnsupportedTemplateError(`${source}: a state machine with no definition (StartAt and States)`);
  return definition;
};

const stateMachineOf = (id: string, resource: CfnResource, stack: ValueContext, notices: string[]) => {
  const source = `${stack.stackName}/${id}`;
  const context = { ...stack, sqsEndpoint: queueEndpointMark };
  const properties = props(resource);
  const given = evaluatedProperty(properties.StateMachineName, context, source, 'StateMachineName');
  const name = given === undefined ? generatedStateMachineName(context.stackName, id) : String(given);
  const type = String(
    evaluatedProperty(properties.StateMachineType, context, source, 'StateMachineType') ?? 'STANDARD',
  );
  if (type !== 'STANDARD' && type !== 'EXPRESS')
    throw new UnsupportedTemplateError(`${source}: its StateMachineType ${type} is neither STANDARD nor EXPRESS`);
  for (const property of ['LoggingConfiguration', 'TracingConfiguration'])
    if (properties[property] !== undefined)
      notices.push(`${source}: its ${property} is not applied locally (the runner logs each execution state by state)`);
  let roleArn: string | undefined;
  try {
    const role = evaluatedProperty(properties.RoleArn, context, source, 'RoleArn');
    if (typeof role === 'string') roleArn = role;
  } catch (error) {
    // A role CloudFormation names at deployment: its ARN is only shown (ExecutionStarted's roleArn), never checked.
    if (!(error instanceof UnsupportedTemplateError)) throw error;
  }
  const seed: StateMachineSeed = {
    source,
    name,
    arn: stateMachineArn(name),
    type,
    definition: definitionOf(resource, context, source),
    ...(roleArn !== undefined && { roleArn }),
  };
  return seed;
};

/** Each state machine of every stack of `stacks`; what is not applied locally is said in `notices`. */
export const stateMachinesOf = (stacks: ValueContext[], notices: string[]): StateMachineSeed[] =>
  stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::StepFunctions::StateMachine').map(([id, resource]) =>
      stateMachineOf(id, resource, context, notices),
    ),
  );

export interface ActivitySeed {
  /** `Stack/LogicalId`. */
  source: string;
  name: string;
  arn: string;
}

/**
 * Each activity of every stack ("AWS::StepFunctions::Activity", CloudFormation template reference,
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-stepfunctions-activity.html):
 * its Name (required); its Tags and EncryptionConfiguration are not applied locally.
 */
export const activitiesOf = (stacks: ValueContext[]): ActivitySeed[] =>
  stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::StepFunctions::Activity').map(([id, resource]) => {
      const source = `${context.stackName}/${id}`;
      const name = evaluatedProperty(props(resource).Name, context, source, 'Name');
      if (typeof name !== 'string' || name === '')
        throw new UnsupportedTemplateError(`${source}: an activity with no Name`);
      return { source, name, arn: activityArn(name) };
    }),
  );
