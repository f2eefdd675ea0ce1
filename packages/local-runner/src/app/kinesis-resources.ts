// The template's Kinesis streams ("AWS::Kinesis::Stream", CloudFormation template reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-kinesis-stream.html), read into
// what the local Kinesis (services/kinesis.ts) is seeded with at start: Name (else the name CloudFormation generates),
// ShardCount, StreamModeDetails (PROVISIONED, the default, or ON_DEMAND), RetentionPeriodHours (24 by default).
// StreamEncryption and Tags are not applied (records are not encrypted locally). A value the runner cannot know refuses
// the app, naming the stream and the property.
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';
import { generatedStreamName } from './return-values.ts';

/** A stream as the template declares it. */
export interface StreamSeed {
  /** `Stack/LogicalId`, which notices name. */
  source: string;
  name: string;
  mode: 'PROVISIONED' | 'ON_DEMAND';
  shardCount: number;
  retentionHours: number;
}

const numberOf = (value: unknown, source: string, property: string, fallback: number) => {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new UnsupportedTemplateError(`${source}: its ${property} ${JSON.stringify(value)} is not a positive integer`);
  return number;
};

const streamOf = (id: string, resource: CfnResource, context: ValueContext): StreamSeed => {
  const source = `${context.stackName}/${id}`;
  const { Name, ShardCount, StreamModeDetails, RetentionPeriodHours } = props(resource);
  const value = (given: unknown, property: string) => evaluatedProperty(given, context, source, property);
  const details = value(StreamModeDetails, 'StreamModeDetails');
  const mode =
    typeof details === 'object' && details !== null && !Array.isArray(details) ? details.StreamMode : undefined;
  if (mode !== undefined && mode !== 'PROVISIONED' && mode !== 'ON_DEMAND')
    throw new UnsupportedTemplateError(
      `${source}: its StreamMode ${JSON.stringify(mode)} is not PROVISIONED or ON_DEMAND`,
    );
  const name = value(Name, 'Name');
  return {
    source,
    name: typeof name === 'string' ? name : generatedStreamName(context.stackName, id),
    mode: mode ?? 'PROVISIONED',
    shardCount: numberOf(value(ShardCount, 'ShardCount'), source, 'ShardCount', 1),
    retentionHours: numberOf(value(RetentionPeriodHours, 'RetentionPeriodHours'), source, 'RetentionPeriodHours', 24),
  };
};

/** Every stream of `stacks` (each its own context). */
export const kinesisSeedsOf = (stacks: ValueContext[]): StreamSeed[] =>
  stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::Kinesis::Stream').map(([id, resource]) => streamOf(id, resource, context)),
  );
