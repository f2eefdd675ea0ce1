// The template's SNS resources, read into what the local SNS (services/sns.ts) is seeded with at start:
// - "AWS::SNS::Topic": TopicName (else generated), FifoTopic, ContentBasedDeduplication, DisplayName,
//   SignatureVersion, KmsMasterKeyId (kept; messages are not encrypted locally), and its inline `Subscription` list;
// - "AWS::SNS::Subscription": TopicArn, Protocol, Endpoint, RawMessageDelivery, FilterPolicy (an object or its JSON),
//   FilterPolicyScope, RedrivePolicy, DeliveryPolicy, SubscriptionRoleArn;
// - "AWS::SNS::TopicPolicy": its PolicyDocument kept as each of its Topics' Policy attribute (shown, not enforced).
// (CloudFormation template reference, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sns-topic.html
// and the pages beside it.) A value the evaluator cannot know leaves that resource unseeded, said at start.
import { type CfnResource, ofType, props } from './cfn.ts';
import { evaluate, noValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { generatedTopicName } from './return-values.ts';

interface TopicSeed {
  source: string;
  name: string;
  attributes: Record<string, string>;
}

interface SubscriptionSeed {
  source: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  attributes: Record<string, string>;
}

export interface SnsSeeds {
  topics: TopicSeed[];
  subscriptions: SubscriptionSeed[];
}

class Unseeded extends Error {}

/** `value` evaluated: text as it is, an object or a list as its JSON; undefined when absent. */
const textOf = (value: unknown, context: ValueContext, where: string): string | undefined => {
  if (value === undefined) return undefined;
  try {
    const evaluated = evaluate(value, context);
    if (evaluated === noValue) return undefined;
    return typeof evaluated === 'object' && evaluated !== null ? JSON.stringify(evaluated) : String(evaluated);
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw new Unseeded(`${where} ${error.message} has no local value`);
  }
};

const topicAttributes = ['FifoTopic', 'ContentBasedDeduplication', 'DisplayName', 'SignatureVersion', 'KmsMasterKeyId'];
/** A subscription's attributes: the template's properties, and what SetSubscriptionAttributes takes. */
export const subscriptionAttributes = [
  'RawMessageDelivery',
  'FilterPolicy',
  'FilterPolicyScope',
  'RedrivePolicy',
  'DeliveryPolicy',
  'SubscriptionRoleArn',
];

const attributesOf = (given: Record<string, unknown>, names: string[], context: ValueContext, where: string) => {
  const attributes: Record<string, string> = {};
  for (const name of names) {
    const value = textOf(given[name], context, `${where}: its ${name}`);
    if (value !== undefined) attributes[name] = value;
  }
  return attributes;
};

const topicOf = (id: string, resource: CfnResource, context: ValueContext) => {
  const source = `${context.stackName}/${id}`;
  const properties = props(resource);
  const attributes = attributesOf(properties, topicAttributes, context, source);
  const name =
    textOf(properties.TopicName, context, `${source}: its TopicName`) ??
    generatedTopicName(context.stackName, id, attributes.FifoTopic === 'true');
  return {
    topic: { source, name, attributes },
    inline: Array.isArray(properties.Subscription) ? properties.Subscription : [],
  };
};

const subscriptionOf = (given: Record<string, unknown>, topicArn: string, context: ValueContext, source: string) => ({
  source,
  topicArn,
  protocol: textOf(given.Protocol, context, `${source}: its Protocol`) ?? '',
  endpoint: textOf(given.Endpoint, context, `${source}: its Endpoint`) ?? '',
  attributes: attributesOf(given, subscriptionAttributes, context, source),
});

/** Runs `read`; a resource it cannot evaluate is a notice instead. */
const orNotice = (notices: string[], read: () => void) => {
  try {
    read();
  } catch (error) {
    if (!(error instanceof Unseeded)) throw error;
    notices.push(`${error.message}: not served by the local SNS`);
  }
};

/** Each topic and subscription of every stack (`stacks`, each its own context); what cannot be read, in `notices`. */
export const snsSeedsOf = (stacks: ValueContext[], notices: string[]): SnsSeeds => {
  const seeds: SnsSeeds = { topics: [], subscriptions: [] };
  for (const context of stacks) {
    for (const [id, resource] of ofType(context.resources, 'AWS::SNS::Topic'))
      orNotice(notices, () => {
        const { topic, inline } = topicOf(id, resource, context);
        seeds.topics.push(topic);
        const topicArn = textOf({ Ref: id }, context, topic.source) as string;
        inline.forEach((given: unknown, index: number) => {
          const source = `${topic.source}/Subscription[${index}]`;
          orNotice(notices, () => {
            seeds.subscriptions.push(subscriptionOf(given as Record<string, unknown>, topicArn, context, source));
          });
        });
      });
    for (const [id, resource] of ofType(context.resources, 'AWS::SNS::Subscription'))
      orNotice(notices, () => {
        const source = `${context.stackName}/${id}`;
        const topicArn = textOf(props(resource).TopicArn, context, `${source}: its TopicArn`) ?? '';
        seeds.subscriptions.push(subscriptionOf(props(resource), topicArn, context, source));
      });
    for (const [id, resource] of ofType(context.resources, 'AWS::SNS::TopicPolicy'))
      orNotice(notices, () => policyOf(seeds, id, resource, context));
  }
  return seeds;
};

/** A topic policy's document, set as the Policy attribute of each of its topics the template has. */
const policyOf = (seeds: SnsSeeds, id: string, resource: CfnResource, context: ValueContext) => {
  const source = `${context.stackName}/${id}`;
  const { PolicyDocument, Topics } = props(resource);
  const policy = textOf(PolicyDocument, context, `${source}: its PolicyDocument`);
  const topics = Array.isArray(Topics) ? Topics.map((topic) => textOf(topic, context, `${source}: its Topics`)) : [];
  for (const topic of seeds.topics)
    if (policy !== undefined && topics.some((arn) => arn?.endsWith(`:${topic.name}`))) topic.attributes.Policy = policy;
};
