// Amazon SNS, locally: the topic, subscription and publish operations of the Amazon SNS API Reference over the query
// protocol (query-protocol.ts), on topics and subscriptions kept in the data folder (state-file.ts). Standard and FIFO
// topics, subscriptions to SQS queues, functions and loopback HTTP(S) endpoints, filter policies (sns-filter.ts),
// signatures (sns-signing.ts), and a subscription's dead-letter queue (sns-delivery.ts). Seeded at start from the
// template's AWS::SNS::Topic and AWS::SNS::Subscription resources (app/sns-resources.ts). Other services publish to a
// topic by its ARN through Targets (the `sns` receiver: an EventBridge target, a Lambda destination).
import { createHash, randomUUID } from 'node:crypto';
import { localAws } from '../app/local-aws.ts';
import { subscriptionAttributes } from '../app/sns-resources.ts';
import { ServiceError } from './json-protocol.ts';
import type { QueryInput, QueryService, QueryValue } from './query-protocol.ts';
import {
  type Deliverer,
  deliver,
  isLoopbackEndpoint,
  type Published,
  type Subscriber,
  sendConfirmation,
} from './sns-delivery.ts';
import { type CompiledFilter, compileFilter, type MessageAttribute, passesFilter } from './sns-filter.ts';
import { certificatePath } from './sns-signing.ts';
import type { StateFile } from './state-file.ts';
import { type Delivery, TargetError } from './targets.ts';

type Attributes = Record<string, string>;

interface StoredTopic {
  name: string;
  attributes: Attributes;
  created: number;
  /** FIFO: deduplication ids of the last 5 minutes, with the message id each was answered with. */
  seen: { dedupId: string; at: number; messageId: string }[];
  sequence: number;
  /** The fingerprint of the template's seed that made it, if one did. */
  seeded?: string;
}

interface StoredSubscription extends Subscriber {
  /** An HTTP(S) subscription not yet confirmed, and the token that confirms it. */
  pending: boolean;
  token?: string;
  /** `Stack/LogicalId` of the template's subscription that made it, and that seed's fingerprint. */
  source?: string;
  seeded?: string;
}

export interface TopicState {
  topics: StoredTopic[];
  subscriptions: StoredSubscription[];
}

export const emptyTopics = (): TopicState => ({ topics: [], subscriptions: [] });

export const topicArn = (name: string) =>
  `arn:${localAws.partition}:sns:${localAws.region}:${localAws.accountId}:${name}`;

/** "Amazon SNS message deduplication for FIFO topics": a deduplication id is remembered for 5 minutes. */
const dedupWindow = 5 * 60 * 1000;
/** "Publish": a message is at most 256 KiB. */
const maxMessageBytes = 262_144;
const protocols = ['sqs', 'lambda', 'http', 'https'];

const invalid = (message: string) => new ServiceError('InvalidParameter', `Invalid parameter: ${message}`);
const notFound = (what: string) => new ServiceError('NotFound', `${what} does not exist`, 404);

const optional = (input: QueryInput, key: string) => {
  const value = input[key];
  return typeof value === 'string' ? value : undefined;
};
const text = (input: QueryInput, key: string) => {
  const value = optional(input, key);
  if (value === undefined) throw invalid(`${key}: it is required`);
  return value;
};
const listOf = (value: QueryValue | undefined): QueryInput[] =>
  Array.isArray(value)
    ? value.filter((item): item is QueryInput => typeof item === 'object' && !Array.isArray(item))
    : [];

/** A map the query protocol sends as `entry` `key`/`value` pairs. */
const mapOf = (value: QueryValue | undefined): Attributes =>
  Object.fromEntries(listOf(value).map((entry) => [String(entry.key), String(entry.value ?? '')]));

/** Publish's MessageAttributes (`entry.N.Name`, `entry.N.Value.DataType`...), each checked ("Amazon SNS message attributes"). */
const messageAttributesOf = (value: QueryValue | undefined): Record<string, MessageAttribute> => {
  const attributes: Record<string, MessageAttribute> = {};
  for (const entry of listOf(value)) {
    const name = String(entry.Name);
    const given = (typeof entry.Value === 'object' && !Array.isArray(entry.Value) ? entry.Value : {}) as QueryInput;
    const DataType = optional(given, 'DataType') ?? '';
    if (!/^(String|Number|Binary)(\..+)?$/.test(DataType))
      throw invalid(
        `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
      );
    const StringValue = optional(given, 'StringValue');
    const BinaryValue = optional(given, 'BinaryValue');
    // An empty value is none ("ParameterValueInvalid", as LocalStack's test_empty_or_wrong_message_attributes saw on AWS).
    if (!StringValue && !BinaryValue)
      throw new ServiceError(
        'ParameterValueInvalid',
        `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${DataType.split('.')[0]}'.`,
      );
    if (DataType.startsWith('Number') && !Number.isFinite(Number(StringValue)))
      throw invalid(`Could not cast message attribute '${name}' value to number.`);
    if (DataType === 'String.Array' && !Array.isArray(safeJson(StringValue ?? '')))
      throw invalid(`The message attribute '${name}' with type 'String.Array' has an invalid value.`);
    attributes[name] = {
      DataType,
      ...(StringValue !== undefined ? { StringValue } : { BinaryValue: BinaryValue as string }),
    };
  }
  return attributes;
};

const safeJson = (value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
};

/** What every operation works on. */
interface Store {
  file: StateFile<TopicState>;
  deliverer: Deliverer;
  /** Each subscription's deliveries, one after the other (a FIFO queue gets them in order). */
  chains: Map<string, Promise<void>>;
  filters: Map<string, CompiledFilter>;
}

const isFifo = (topic: StoredTopic) => topic.attributes.FifoTopic === 'true';
const findTopic = (state: TopicState, arn: string) => state.topics.find(({ name }) => topicArn(name) === arn);
const topicOf = (state: TopicState, arn: string) => {
  const topic = findTopic(state, arn);
  if (!topic) throw notFound('Topic');
  return topic;
};
const subscriptionOf = (state: TopicState, arn: string) => {
  const subscription = state.subscriptions.find((s) => s.arn === arn);
  if (!subscription) throw notFound('Subscription');
  return subscription;
};

/** "CreateTopic": a name of 1 to 256 letters, digits, `-` and `_` (a FIFO topic's ending `.fifo`). */
const createTopic = (state: TopicState, name: string, attributes: Attributes) => {
  const fifo = attributes.FifoTopic === 'true';
  const bare = fifo ? name.replace(/\.fifo$/, '') : name;
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(bare) || name.length > 256)
    throw invalid('Topic Name: letters, digits, hyphens and underscores, 1 to 256 in length');
  if (fifo !== name.endsWith('.fifo')) throw invalid('Topic Name: a FIFO topic, and it alone, has a name ending .fifo');
  checkTopicAttributes(attributes, fifo);
  const existing = state.topics.find((topic) => topic.name === name);
  if (existing) return existing;
  const topic: StoredTopic = { name, attributes: { ...attributes }, created: Date.now(), seen: [], sequence: 0 };
  state.topics.push(topic);
  return topic;
};

const checkTopicAttributes = (attributes: Attributes, fifo: boolean) => {
  const odd = Object.keys(attributes).find((name) => !/^[A-Za-z][A-Za-z0-9]*$/.test(name));
  if (odd !== undefined) throw invalid(`Attributes Reason: Unknown attribute ${odd}`);
  const { SignatureVersion, ContentBasedDeduplication } = attributes;
  if (SignatureVersion !== undefined && SignatureVersion !== '1' && SignatureVersion !== '2')
    throw invalid('Attributes Reason: SignatureVersion: must be 1 or 2');
  if (ContentBasedDeduplication === 'true' && !fifo)
    throw invalid('Attributes Reason: Content-based deduplication can only be set for FIFO topics');
};

/** The attributes GetTopicAttributes answers: those set, and those computed. */
const topicAttributes = (state: TopicState, topic: StoredTopic): Attributes => {
  const arn = topicArn(topic.name);
  const subscriptions = state.subscriptions.filter((s) => s.topicArn === arn);
  return {
    TopicArn: arn,
    Owner: localAws.accountId,
    DisplayName: '',
    SignatureVersion: '1',
    Policy: JSON.stringify(defaultPolicy(arn)),
    SubscriptionsConfirmed: String(subscriptions.filter((s) => !s.pending).length),
    SubscriptionsPending: String(subscriptions.filter((s) => s.pending).length),
    SubscriptionsDeleted: '0',
    ...(isFifo(topic) && { FifoTopic: 'true', ContentBasedDeduplication: 'false' }),
    ...topic.attributes,
  };
};

/** The policy a topic has until one is set: its owner may do everything (kept and shown, not enforced). */
const defaultPolicy = (arn: string) => ({
  Version: '2008-10-17',
  Id: '__default_policy_ID',
  Statement: [
    {
      Sid: '__default_statement_ID',
      Effect: 'Allow',
      Principal: { AWS: '*' },
      Action: ['SNS:GetTopicAttributes', 'SNS:SetTopicAttributes', 'SNS:Subscribe', 'SNS:Publish'],
      Resource: arn,
      Condition: { StringEquals: { 'AWS:SourceOwner': localAws.accountId } },
    },
  ],
});

/** A subscription attribute checked as SetSubscriptionAttributes and Subscribe take it. */
const checkSubscriptionAttribute = (store: Store, name: string, value: string, attributes: Attributes) => {
  if (!subscriptionAttributes.includes(name)) throw invalid(`AttributeName: ${name} is not a subscription attribute`);
  if (name === 'RawMessageDelivery' && value !== 'true' && value !== 'false')
    throw invalid(`Attributes Reason: RawMessageDelivery: Invalid value [${value}]. Must be true or false.`);
  if (name === 'RedrivePolicy' && value !== '') {
    const policy = safeJson(value) as { deadLetterTargetArn?: unknown } | undefined;
    if (typeof policy?.deadLetterTargetArn !== 'string' || !/^arn:[^:]+:sqs:/.test(policy.deadLetterTargetArn))
      throw invalid('RedrivePolicy: deadLetterTargetArn must be the ARN of an SQS queue');
  }
  const policy = name === 'FilterPolicy' ? value : attributes.FilterPolicy;
  const scope = name === 'FilterPolicyScope' ? value : attributes.FilterPolicyScope;
  if (policy) compiledFilter(store, policy, scope);
};

const compiledFilter = (store: Store, policy: string, scope: string | undefined) => {
  const key = `${scope ?? ''}\n${policy}`;
  const known = store.filters.get(key);
  if (known) return known;
  const compiled = compileFilter(policy, scope);
  store.filters.set(key, compiled);
  return compiled;
};

/** Creates a subscription (an HTTP(S) one pending, its confirmation sent); "Subscribe". */
const subscribe = (store: Store, state: TopicState, given: Omit<Subscriber, 'arn'>, source?: string) => {
  const topic = topicOf(state, given.topicArn);
  const { protocol, endpoint } = given;
  if (!protocols.includes(protocol))
    throw invalid(`Protocol: ${protocol}: the local SNS delivers to sqs, lambda, http and https alone`);
  if ((protocol === 'http' || protocol === 'https') && !isLoopbackEndpoint(endpoint))
    throw invalid(`Endpoint: ${endpoint}: the local SNS delivers to HTTP(S) endpoints on loopback alone`);
  if (protocol === 'sqs' || protocol === 'lambda') {
    if (!new RegExp(`^arn:[^:]+:${protocol}:`).test(endpoint))
      throw invalid(`${protocol} endpoint must be an ARN: ${endpoint}`);
    if (isFifo(topic) && protocol !== 'sqs') throw invalid('Invalid protocol type: a FIFO topic delivers to SQS alone');
  }
  for (const [name, value] of Object.entries(given.attributes))
    checkSubscriptionAttribute(store, name, value, given.attributes);
  const same = state.subscriptions.find(
    (s) => s.topicArn === given.topicArn && s.protocol === protocol && s.endpoint === endpoint,
  );
  if (same) return same;
  const http = protocol === 'http' || protocol === 'https';
  const subscription: StoredSubscription = {
    ...given,
    arn: `${given.topicArn}:${randomUUID()}`,
    pending: http,
    ...(http && { token: createHash('sha256').update(randomUUID()).digest('hex') }),
    ...(source !== undefined && { source }),
  };
  state.subscriptions.push(subscription);
  return subscription;
};

const confirm = (store: Store, subscription: StoredSubscription) => {
  if (subscription.pending && subscription.token)
    void sendConfirmation(store.deliverer, subscription, subscription.token);
};

const operationSubscribe = (store: Store) => (input: QueryInput) => {
  const state = store.file.read();
  const subscription = subscribe(store, state, {
    topicArn: text(input, 'TopicArn'),
    protocol: text(input, 'Protocol'),
    endpoint: text(input, 'Endpoint'),
    attributes: mapOf(input.Attributes),
  });
  store.file.write(state);
  confirm(store, subscription);
  const shown = subscription.pending && optional(input, 'ReturnSubscriptionArn') !== 'true';
  return { SubscriptionArn: shown ? 'pending confirmation' : subscription.arn };
};

const confirmSubscription = (store: Store) => (input: QueryInput) => {
  const state = store.file.read();
  const arn = text(input, 'TopicArn');
  const token = text(input, 'Token');
  const subscription = state.subscriptions.find((s) => s.topicArn === arn && s.token === token);
  if (!subscription) throw invalid('Token');
  subscription.pending = false;
  store.file.write(state);
  store.deliverer.log(`SNS: ${subscription.endpoint} confirmed its subscription to ${topicOf(state, arn).name}`);
  return { SubscriptionArn: subscription.arn };
};

const unsubscribe = (store: Store) => (input: QueryInput) => {
  const state = store.file.read();
  const subscription = subscriptionOf(state, text(input, 'SubscriptionArn'));
  state.subscriptions = state.subscriptions.filter((s) => s !== subscription);
  store.file.write(state);
  return undefined;
};

const listed = (subscription: StoredSubscription) => ({
  SubscriptionArn: subscription.pending ? 'PendingConfirmation' : subscription.arn,
  Owner: localAws.accountId,
  Protocol: subscription.protocol,
  Endpoint: subscription.endpoint,
  TopicArn: subscription.topicArn,
});

const subscriptionAttributesOf = (subscription: StoredSubscription) =>
  new Map(
    Object.entries({
      SubscriptionArn: subscription.arn,
      TopicArn: subscription.topicArn,
      Owner: localAws.accountId,
      Protocol: subscription.protocol,
      Endpoint: subscription.endpoint,
      PendingConfirmation: String(subscription.pending),
      ConfirmationWasAuthenticated: String(!subscription.pending),
      RawMessageDelivery: 'false',
      ...(subscription.attributes.FilterPolicy && { FilterPolicyScope: 'MessageAttributes' }),
      ...subscription.attributes,
    }),
  );

/** The message text for `protocol`: MessageStructure json gives one per protocol, and `default` ("Publish"). */
const messageFor = (message: string, structure: string | undefined, protocol: string) => {
  if (structure !== 'json') return message;
  const parsed = JSON.parse(message) as Record<string, string>;
  return parsed[protocol] ?? (parsed.default as string);
};

const checkStructure = (message: string, structure: string | undefined) => {
  if (structure === undefined) return;
  if (structure !== 'json') throw invalid('MessageStructure: Invalid value, must be json');
  const parsed = safeJson(message);
  if (typeof parsed !== 'object' || parsed === null || typeof (parsed as Record<string, unknown>).default !== 'string')
    throw invalid('Message Structure - No default entry in JSON message body');
};

/** A FIFO topic's group and deduplication id, and whether the message is a duplicate of the last 5 minutes. */
const fifoFields = (topic: StoredTopic, entry: QueryInput, message: string, now: number) => {
  const groupId = optional(entry, 'MessageGroupId');
  if (groupId === undefined) throw invalid('The MessageGroupId parameter is required for FIFO topics');
  const given = optional(entry, 'MessageDeduplicationId');
  if (given === undefined && topic.attributes.ContentBasedDeduplication !== 'true')
    throw invalid(
      'The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
    );
  const dedupId = given ?? createHash('sha256').update(message).digest('hex');
  const seen = topic.seen.find((s) => s.dedupId === dedupId && now - s.at < dedupWindow);
  return { groupId, dedupId, duplicateOf: seen?.messageId };
};

/** One message published to `topic`: checked, its id (a duplicate's the first's), and what its subscribers get. */
const publishOne = (store: Store, state: TopicState, topic: StoredTopic, entry: QueryInput) => {
  const message = text(entry, 'Message');
  if (message === '') throw invalid('Empty message');
  if (Buffer.byteLength(message) > maxMessageBytes) throw invalid('Message too long');
  const subject = optional(entry, 'Subject');
  if (subject !== undefined && (subject === '' || subject.length > 100 || /[\r\n]/.test(subject)))
    throw invalid('Subject: 1 to 100 characters, no line break');
  const structure = optional(entry, 'MessageStructure');
  checkStructure(message, structure);
  const attributes = messageAttributesOf(entry.MessageAttributes);
  const now = Date.now();
  const id = randomUUID();
  const fifo = isFifo(topic) ? fifoFields(topic, entry, message, now) : undefined;
  if (fifo?.duplicateOf !== undefined) return { MessageId: fifo.duplicateOf, deliveries: [] };
  if (fifo) {
    topic.sequence += 1;
    topic.seen = [
      ...topic.seen.filter((s) => now - s.at < dedupWindow),
      { dedupId: fifo.dedupId, at: now, messageId: id },
    ];
  }
  const sequence = fifo ? String(topic.sequence).padStart(20, '0') : undefined;
  const base = {
    id,
    topicArn: topicArn(topic.name),
    subject,
    attributes,
    timestamp: new Date(now).toISOString(),
    signatureVersion: topic.attributes.SignatureVersion ?? '1',
    groupId: fifo?.groupId ?? optional(entry, 'MessageGroupId'),
    dedupId: fifo?.dedupId,
    sequence,
  };
  const deliveries = subscribersOf(state, topic).flatMap((subscription) => {
    const published: Published = { ...base, message: messageFor(message, structure, subscription.protocol) };
    return passes(store, subscription, published) ? [{ subscription, published }] : [];
  });
  return { MessageId: id, ...(sequence !== undefined && { SequenceNumber: sequence }), deliveries };
};

const subscribersOf = (state: TopicState, topic: StoredTopic) =>
  state.subscriptions.filter((s) => s.topicArn === topicArn(topic.name) && !s.pending);

const passes = (store: Store, subscription: StoredSubscription, published: Published) => {
  const { FilterPolicy, FilterPolicyScope } = subscription.attributes;
  if (!FilterPolicy) return true;
  return passesFilter(compiledFilter(store, FilterPolicy, FilterPolicyScope), published.message, published.attributes);
};

/**
 * Hands each delivery to its subscription's chain (one after the other per subscription); resolves once every
 * delivery to a queue or a function is handed over (an HTTP(S) endpoint's goes on in the background).
 */
const dispatch = (store: Store, deliveries: { subscription: StoredSubscription; published: Published }[]) => {
  const handed: Promise<void>[] = [];
  for (const { subscription, published } of deliveries) {
    const previous = store.chains.get(subscription.arn) ?? Promise.resolve();
    const next = previous.then(() => deliver(store.deliverer, subscription, published));
    const settled = next.catch((error: unknown) =>
      store.deliverer.log(`SNS: a delivery failed: ${(error as Error).stack ?? String(error)}`),
    );
    store.chains.set(subscription.arn, settled);
    if (subscription.protocol === 'sqs' || subscription.protocol === 'lambda') handed.push(settled);
  }
  return Promise.all(handed);
};

const publishTarget = (input: QueryInput) => {
  if (optional(input, 'PhoneNumber') !== undefined)
    throw invalid('PhoneNumber: the local SNS sends no SMS (publish to a topic)');
  return optional(input, 'TopicArn') ?? text(input, 'TargetArn');
};

const publish = (store: Store) => async (input: QueryInput) => {
  const state = store.file.read();
  const topic = topicOf(state, publishTarget(input));
  const { deliveries, ...answer } = publishOne(store, state, topic, input);
  store.file.write(state);
  await dispatch(store, deliveries);
  return answer;
};

/** "PublishBatch": up to 10 entries, each answered Successful or Failed. */
const publishBatch = (store: Store) => async (input: QueryInput) => {
  const state = store.file.read();
  const topic = topicOf(state, text(input, 'TopicArn'));
  const entries = listOf(input.PublishBatchRequestEntries);
  if (entries.length === 0)
    throw new ServiceError('EmptyBatchRequest', "The batch request doesn't contain any entries");
  if (entries.length > 10)
    throw new ServiceError('TooManyEntriesInBatchRequest', 'The batch request contains more entries than permissible');
  const ids = entries.map((entry) => optional(entry, 'Id'));
  if (new Set(ids).size !== ids.length)
    throw new ServiceError('BatchEntryIdsNotDistinct', 'Two or more batch entries in the request have the same Id');
  const Successful: unknown[] = [];
  const Failed: unknown[] = [];
  const deliveries: Parameters<typeof dispatch>[1] = [];
  for (const entry of entries) {
    try {
      const { deliveries: more, ...answer } = publishOne(store, state, topic, entry);
      Successful.push({ Id: optional(entry, 'Id'), ...answer });
      deliveries.push(...more);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      Failed.push({ Id: optional(entry, 'Id'), Code: error.type, Message: error.message, SenderFault: true });
    }
  }
  store.file.write(state);
  await dispatch(store, deliveries);
  return { Successful, Failed };
};

const topicOperations = (store: Store) => ({
  CreateTopic: (input: QueryInput) => {
    const state = store.file.read();
    const topic = createTopic(state, text(input, 'Name'), mapOf(input.Attributes));
    store.file.write(state);
    return { TopicArn: topicArn(topic.name) };
  },
  DeleteTopic: (input: QueryInput) => {
    const state = store.file.read();
    const arn = text(input, 'TopicArn');
    state.topics = state.topics.filter((topic) => topicArn(topic.name) !== arn);
    state.subscriptions = state.subscriptions.filter((s) => s.topicArn !== arn);
    store.file.write(state);
    return undefined;
  },
  ListTopics: () => ({
    Topics: store.file.read().topics.map(({ name }) => ({ TopicArn: topicArn(name) })),
  }),
  GetTopicAttributes: (input: QueryInput) => {
    const state = store.file.read();
    return { Attributes: new Map(Object.entries(topicAttributes(state, topicOf(state, text(input, 'TopicArn'))))) };
  },
  SetTopicAttributes: (input: QueryInput) => {
    const state = store.file.read();
    const topic = topicOf(state, text(input, 'TopicArn'));
    const name = text(input, 'AttributeName');
    const value = optional(input, 'AttributeValue') ?? '';
    if (name === 'FifoTopic') throw invalid('AttributeName: FifoTopic is set when the topic is created');
    checkTopicAttributes({ [name]: value }, isFifo(topic));
    topic.attributes[name] = value;
    store.file.write(state);
    return undefined;
  },
});

const subscriptionOperations = (store: Store) => ({
  Subscribe: operationSubscribe(store),
  ConfirmSubscription: confirmSubscription(store),
  Unsubscribe: unsubscribe(store),
  ListSubscriptions: () => ({ Subscriptions: store.file.read().subscriptions.map(listed) }),
  ListSubscriptionsByTopic: (input: QueryInput) => {
    const state = store.file.read();
    const arn = topicArn(topicOf(state, text(input, 'TopicArn')).name);
    return { Subscriptions: state.subscriptions.filter((s) => s.topicArn === arn).map(listed) };
  },
  GetSubscriptionAttributes: (input: QueryInput) => ({
    Attributes: subscriptionAttributesOf(subscriptionOf(store.file.read(), text(input, 'SubscriptionArn'))),
  }),
  SetSubscriptionAttributes: (input: QueryInput) => {
    const state = store.file.read();
    const subscription = subscriptionOf(state, text(input, 'SubscriptionArn'));
    const name = text(input, 'AttributeName');
    const value = optional(input, 'AttributeValue') ?? '';
    checkSubscriptionAttribute(store, name, value, subscription.attributes);
    if (value === '') delete subscription.attributes[name];
    else subscription.attributes[name] = value;
    store.file.write(state);
    return undefined;
  },
});

/** A topic as the template declares it, and its subscriptions (sns-resources.ts). */
export interface TopicSeed {
  source: string;
  name: string;
  attributes: Attributes;
  fingerprint: string;
}
export interface SubscriptionSeed {
  source: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  attributes: Attributes;
  fingerprint: string;
}

/**
 * Creates each topic and subscription of the template not there (by its seed's fingerprint); one the template changed
 * gets its new attributes. A subscription the local SNS cannot serve is said, not made. Lines to say at start.
 */
const seed = (store: Store, topics: TopicSeed[], subscriptions: SubscriptionSeed[]) => {
  const state = store.file.read();
  const said: string[] = [];
  for (const { name, attributes, fingerprint } of topics) {
    const topic = state.topics.find((t) => t.name === name);
    if (topic?.seeded === fingerprint) continue;
    if (topic) topic.attributes = { ...attributes };
    (topic ?? createTopic(state, name, attributes)).seeded = fingerprint;
  }
  const made: StoredSubscription[] = [];
  for (const given of subscriptions) {
    const existing = state.subscriptions.find((s) => s.source === given.source);
    if (existing?.seeded === given.fingerprint) continue;
    if (existing) state.subscriptions = state.subscriptions.filter((s) => s !== existing);
    try {
      const subscription = subscribe(store, state, given, given.source);
      subscription.seeded = given.fingerprint;
      made.push(subscription);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      said.push(`${given.source}: SNS subscription not served: ${error.message}`);
    }
  }
  store.file.write(state);
  for (const subscription of state.subscriptions) confirm(store, subscription);
  return said;
};

/** What another local service sends to a topic by its ARN (an EventBridge target, a Lambda destination): a Publish. */
const receiveDelivery = (store: Store) => async (arn: string, delivery: Delivery) => {
  const state = store.file.read();
  const topic = findTopic(state, arn);
  if (!topic) throw new TargetError(`${arn}: no such topic is served`);
  const entry: QueryInput = {
    Message: delivery.body,
    ...(delivery.subject !== undefined && { Subject: delivery.subject }),
    ...(delivery.messageGroupId !== undefined && { MessageGroupId: delivery.messageGroupId }),
    ...(delivery.messageDeduplicationId !== undefined && { MessageDeduplicationId: delivery.messageDeduplicationId }),
    ...(delivery.attributes && {
      MessageAttributes: Object.entries(delivery.attributes).map(([Name, Value]) => ({ Name, Value: { ...Value } })),
    }),
  };
  try {
    const { deliveries } = publishOne(store, state, topic, entry);
    store.file.write(state);
    await dispatch(store, deliveries);
  } catch (error) {
    if (error instanceof ServiceError) throw new TargetError(`${arn}: ${error.type}: ${error.message}`);
    throw error;
  }
};

/** A topic as the banner shows it, with its subscriptions. */
export interface TopicListing {
  name: string;
  arn: string;
  subscriptions: { protocol: string; endpoint: string; attributes: Attributes; pending: boolean }[];
}

/** The service on `file`, delivering with `deliverer`: its operations, seeding, receiver and banner. */
export const simpleNotificationService = (file: StateFile<TopicState>, deliverer: Deliverer) => {
  const store: Store = { file, deliverer, chains: new Map(), filters: new Map() };
  const service: QueryService = {
    name: 'sns',
    signingName: 'sns',
    xmlns: 'http://sns.amazonaws.com/doc/2010-03-31/',
    operations: {
      ...topicOperations(store),
      ...subscriptionOperations(store),
      Publish: publish(store),
      PublishBatch: publishBatch(store),
    },
    // The links a message carries: SubscribeURL and UnsubscribeURL, followed by whoever has the message.
    unsigned: ['ConfirmSubscription', 'Unsubscribe'],
    file: (path) => {
      const key = deliverer.key.current();
      return key && path === certificatePath(key)
        ? { type: 'application/x-x509-ca-cert', body: key.certificate }
        : undefined;
    },
  };
  return {
    service,
    seed: (topics: TopicSeed[], subscriptions: SubscriptionSeed[]) => seed(store, topics, subscriptions),
    /** What other local services send to a topic by its ARN (Targets' `sns` receiver). */
    receive: receiveDelivery(store),
    /** The topics and their subscriptions, for the banner. */
    topics: (): TopicListing[] => {
      const state = store.file.read();
      return state.topics.map(({ name }) => ({
        name,
        arn: topicArn(name),
        subscriptions: state.subscriptions
          .filter((s) => s.topicArn === topicArn(name))
          .map(({ protocol, endpoint, attributes, pending }) => ({ protocol, endpoint, attributes, pending })),
      }));
    },
    /** Resolves once every delivery under way is done (a test's, or a stop's). */
    settled: () => Promise.all(store.chains.values()),
  };
};
