// What the local SQS keeps of a queue besides its behaviour: its encryption settings (KmsMasterKeyId,
// KmsDataKeyReusePeriodSeconds, SqsManagedSseEnabled, "AWS::SQS::Queue"), its RedriveAllowPolicy, and the policy an
// "AWS::SQS::QueuePolicy" gives it (its `Policy` attribute). Kept and shown by GetQueueAttributes, not enforced: the
// local SQS encrypts nothing and checks no policy (said at start, services/sqs.ts). A value with no local meaning (a
// KMS key's ARN, a topic's) is shown as the template writes it rather than leaving the queue out.
import { type CfnResource, ofType, props, refOf, shown } from './cfn.ts';
import { evaluate, noValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';

/** `value` evaluated where the runner knows it; else as the template writes it (an intrinsic the runner cannot know). */
const tolerant = (value: unknown, context: ValueContext): unknown => {
  if (Array.isArray(value)) return value.map((item) => tolerant(item, context));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]?.startsWith('Fn::'))) {
    try {
      const evaluated = evaluate(value, context);
      return evaluated === noValue ? undefined : evaluated;
    } catch (error) {
      if (!(error instanceof UnresolvableValueError)) throw error;
      return value;
    }
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, tolerant(item, context)]));
};

const asText = (value: unknown) => (value === undefined ? undefined : shown(value));

/** The attributes of "AWS::SQS::Queue" the local SQS shows and does not apply: its encryption, its RedriveAllowPolicy. */
export const keptQueueAttributes = (resource: CfnResource, context: ValueContext): Record<string, string> => {
  const properties = props(resource);
  const kept: Record<string, string> = {};
  for (const name of ['KmsMasterKeyId', 'KmsDataKeyReusePeriodSeconds', 'SqsManagedSseEnabled', 'RedriveAllowPolicy']) {
    const value = asText(tolerant(properties[name], context));
    if (value !== undefined) kept[name] = value;
  }
  return kept;
};

/** The name of the queue `item` of a QueuePolicy's Queues (a queue URL) names, if the runner knows it. */
const queueNameOf = (item: unknown, context: ValueContext) => {
  const ref = refOf(item);
  const resolved =
    ref !== undefined && context.resources[ref]?.Type === 'AWS::SQS::Queue'
      ? tolerant({ 'Fn::GetAtt': [ref, 'QueueName'] }, context)
      : tolerant(item, context);
  return typeof resolved === 'string' ? resolved.slice(resolved.lastIndexOf('/') + 1) : undefined;
};

/**
 * The queues `queues` with the policy each "AWS::SQS::QueuePolicy" of `stacks` gives it, as its `Policy` attribute
 * (the policy document as JSON); a queue a policy names that the runner cannot find is said in `notices`.
 */
export const withQueuePolicies = <T extends { name: string; attributes: Record<string, string> }>(
  queues: T[],
  stacks: ValueContext[],
  notices: string[],
): T[] => {
  for (const context of stacks)
    for (const [id, resource] of ofType(context.resources, 'AWS::SQS::QueuePolicy')) {
      const { PolicyDocument, Queues } = props(resource);
      const policy = JSON.stringify(tolerant(PolicyDocument, context));
      for (const item of Array.isArray(Queues) ? Queues : []) {
        const name = queueNameOf(item, context);
        const queue = queues.find((q) => q.name === name);
        if (queue) queue.attributes.Policy = policy;
        else
          notices.push(`${context.stackName}/${id}: its queue ${shown(item)} is not one the runner serves: not kept`);
      }
    }
  return queues;
};
