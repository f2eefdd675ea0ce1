// How the local SNS hands a published message to each subscription, through Targets (targets.ts) or over HTTP:
// - an SQS queue: the message itself with its attributes as the queue's message attributes when RawMessageDelivery is
//   true, else the JSON envelope ("Amazon SNS raw message delivery", https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html;
//   the envelope's fields as "Parsing Amazon SNS message formats" lists them), a FIFO topic's group and deduplication
//   id passed on ("Message ordering and grouping for FIFO topics");
// - a function: an asynchronous invocation with the SNS event ("Invoking Lambda functions with Amazon SNS notifications",
//   https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html, its sample event);
// - an HTTP(S) endpoint on loopback: a POST of the envelope with the `x-amz-sns-*` headers, after the
//   SubscriptionConfirmation the endpoint confirms by its SubscribeURL ("Subscribing an HTTP/S endpoint to an Amazon SNS
//   topic", https://docs.aws.amazon.com/sns/latest/dg/sns-subscribe-https-s-endpoints-to-topic.html).
// A delivery that fails goes to the subscription's dead-letter queue when its RedrivePolicy names one ("Amazon SNS
// dead-letter queues (DLQs)", https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html), else is said.
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { MessageAttribute } from './sns-filter.ts';
import { certificatePath, type SigningKey, type SnsSigningKey, signatureOf } from './sns-signing.ts';
import { TargetError, type Targets } from './targets.ts';

/** A message as published, for one subscription's protocol (MessageStructure json chose its text). */
export interface Published {
  id: string;
  topicArn: string;
  message: string;
  subject?: string | undefined;
  attributes: Record<string, MessageAttribute>;
  timestamp: string;
  signatureVersion: string;
  groupId?: string | undefined;
  dedupId?: string | undefined;
  sequence?: string | undefined;
}

export interface Subscriber {
  arn: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  attributes: Record<string, string>;
}

/** What every delivery needs: the services by ARN, the signing key, the local SNS's address (its links), the log. */
export interface Deliverer {
  targets: Targets;
  key: SnsSigningKey;
  url: () => string;
  log: (line: string) => void;
}

const nameOfArn = (arn: string) => arn.slice(arn.lastIndexOf(':') + 1);

/** The envelope's MessageAttributes: each attribute's Type and Value (a Binary's base64). */
const envelopeAttributes = (attributes: Record<string, MessageAttribute>) =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, { DataType, StringValue, BinaryValue }]) => [
      name,
      { Type: DataType, Value: StringValue ?? BinaryValue ?? '' },
    ]),
  );

const unsubscribeUrl = (deliverer: Deliverer, subscriptionArn: string) =>
  `${deliverer.url()}/?Action=Unsubscribe&SubscriptionArn=${encodeURIComponent(subscriptionArn)}`;

/** The JSON envelope of a notification, signed (SQS without raw delivery, HTTP(S)). */
const envelopeOf = (deliverer: Deliverer, key: SigningKey, subscription: Subscriber, published: Published) => {
  const fields = {
    Type: 'Notification',
    MessageId: published.id,
    ...(published.sequence !== undefined && { SequenceNumber: published.sequence }),
    TopicArn: published.topicArn,
    ...(published.subject !== undefined && { Subject: published.subject }),
    Message: published.message,
    Timestamp: published.timestamp,
  };
  return {
    ...fields,
    SignatureVersion: published.signatureVersion,
    Signature: signatureOf(key, fields, published.signatureVersion),
    SigningCertURL: `${deliverer.url()}${certificatePath(key)}`,
    UnsubscribeURL: unsubscribeUrl(deliverer, subscription.arn),
    ...(Object.keys(published.attributes).length > 0 && {
      MessageAttributes: envelopeAttributes(published.attributes),
    }),
  };
};

/** The SNS event a subscribed function is invoked with (one record; Lambda's sample event's fields). */
const lambdaEventOf = (deliverer: Deliverer, key: SigningKey, subscription: Subscriber, published: Published) => {
  const envelope = envelopeOf(deliverer, key, subscription, published);
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: subscription.arn,
        Sns: {
          Type: envelope.Type,
          MessageId: envelope.MessageId,
          TopicArn: envelope.TopicArn,
          Subject: published.subject ?? null,
          Message: envelope.Message,
          Timestamp: envelope.Timestamp,
          SignatureVersion: envelope.SignatureVersion,
          Signature: envelope.Signature,
          SigningCertUrl: envelope.SigningCertURL,
          UnsubscribeUrl: envelope.UnsubscribeURL,
          MessageAttributes: envelopeAttributes(published.attributes),
        },
      },
    ],
  };
};

/** How the log names a subscription's endpoint: a queue's or function's name, an HTTP(S) URL as it is. */
const endpointName = ({ protocol, endpoint }: Subscriber) =>
  protocol === 'sqs' || protocol === 'lambda' ? `${protocol} ${nameOfArn(endpoint)}` : endpoint;

const isRaw = (subscription: Subscriber) => subscription.attributes.RawMessageDelivery === 'true';

/** Whether `endpoint` is an http(s) URL on a loopback address: the only ones the runner delivers to. */
export const isLoopbackEndpoint = (endpoint: string) => {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (host === 'localhost') return true;
  return (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
};

/** POSTs `body` to an HTTP(S) endpoint with SNS's headers; throws TargetError unless it answers 2xx. */
const post = async (endpoint: string, type: string, headers: Record<string, string>, body: string) => {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'text/plain; charset=UTF-8',
      'User-Agent': 'Amazon Simple Notification Service Agent',
      'x-amz-sns-message-type': type,
      ...headers,
    },
    body,
    signal: AbortSignal.timeout(15_000),
  }).catch((error: unknown) => {
    throw new TargetError(`${endpoint}: ${(error as Error).message}`);
  });
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status > 299) throw new TargetError(`${endpoint} answered ${response.status}`);
};

/** Sends the SubscriptionConfirmation of an HTTP(S) subscription, whose SubscribeURL confirms it with `token`. */
export const sendConfirmation = async (deliverer: Deliverer, subscription: Subscriber, token: string) => {
  const key = await deliverer.key.get();
  const subscribeUrl = `${deliverer.url()}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(subscription.topicArn)}&Token=${token}`;
  const fields = {
    Type: 'SubscriptionConfirmation',
    MessageId: randomUUID(),
    Token: token,
    TopicArn: subscription.topicArn,
    Message: `You have chosen to subscribe to the topic ${subscription.topicArn}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
    SubscribeURL: subscribeUrl,
    Timestamp: new Date().toISOString(),
  };
  const message = {
    ...fields,
    SignatureVersion: '1',
    Signature: signatureOf(key, fields, '1'),
    SigningCertURL: `${deliverer.url()}${certificatePath(key)}`,
  };
  try {
    await post(
      subscription.endpoint,
      'SubscriptionConfirmation',
      { 'x-amz-sns-message-id': fields.MessageId, 'x-amz-sns-topic-arn': subscription.topicArn },
      JSON.stringify(message),
    );
    deliverer.log(
      `SNS: sent the SubscriptionConfirmation of ${subscription.endpoint} to ${nameOfArn(subscription.topicArn)}`,
    );
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    deliverer.log(`SNS: the SubscriptionConfirmation to ${subscription.endpoint} failed: ${error.message}`);
  }
};

/** Hands `published` to the subscription's endpoint; TargetError when it does not take it. */
const deliverOnce = async (deliverer: Deliverer, subscription: Subscriber, published: Published) => {
  const key = await deliverer.key.get();
  const source = `sns:${nameOfArn(published.topicArn)}`;
  const { protocol, endpoint } = subscription;
  if (protocol === 'sqs')
    return deliverer.targets.deliver(endpoint, {
      body: isRaw(subscription)
        ? published.message
        : JSON.stringify(envelopeOf(deliverer, key, subscription, published), null, 2),
      ...(isRaw(subscription) && Object.keys(published.attributes).length > 0 && { attributes: published.attributes }),
      ...(published.groupId !== undefined && { messageGroupId: published.groupId }),
      ...(published.dedupId !== undefined && { messageDeduplicationId: published.dedupId }),
      source,
    });
  if (protocol === 'lambda')
    return deliverer.targets.deliver(endpoint, {
      body: JSON.stringify(lambdaEventOf(deliverer, key, subscription, published)),
      source,
    });
  return post(
    endpoint,
    'Notification',
    {
      'x-amz-sns-message-id': published.id,
      'x-amz-sns-topic-arn': published.topicArn,
      'x-amz-sns-subscription-arn': subscription.arn,
      ...(isRaw(subscription) && { 'x-amz-sns-rawdelivery': 'true' }),
    },
    isRaw(subscription) ? published.message : JSON.stringify(envelopeOf(deliverer, key, subscription, published)),
  );
};

/** The subscription's dead-letter queue's ARN, if its RedrivePolicy names one. */
const deadLetterQueueOf = (subscription: Subscriber) => {
  const policy = subscription.attributes.RedrivePolicy;
  if (!policy) return undefined;
  const { deadLetterTargetArn } = JSON.parse(policy) as { deadLetterTargetArn?: unknown };
  return typeof deadLetterTargetArn === 'string' ? deadLetterTargetArn : undefined;
};

/** A failed delivery, to the dead-letter queue (the envelope, the message's attributes as the queue's) or said. */
const deadLettered = async (deliverer: Deliverer, subscription: Subscriber, published: Published, why: string) => {
  const target = endpointName(subscription);
  const queue = deadLetterQueueOf(subscription);
  const said = `SNS: ${nameOfArn(published.topicArn)} -> ${target}: message ${published.id} not delivered (${why})`;
  if (queue === undefined) return deliverer.log(`${said}; the subscription has no dead-letter queue`);
  const key = await deliverer.key.get();
  try {
    await deliverer.targets.deliver(queue, {
      body: JSON.stringify(envelopeOf(deliverer, key, subscription, published), null, 2),
      ...(Object.keys(published.attributes).length > 0 && { attributes: published.attributes }),
      ...(published.groupId !== undefined && { messageGroupId: published.groupId }),
      ...(published.dedupId !== undefined && { messageDeduplicationId: published.dedupId }),
      source: `sns:${nameOfArn(published.topicArn)}`,
    });
    deliverer.log(`${said}: sent to its dead-letter queue ${nameOfArn(queue)}`);
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    deliverer.log(`${said}, nor to its dead-letter queue ${nameOfArn(queue)} (${error.message})`);
  }
};

/** Delivers `published` to `subscription`, said in the log; a failure to its dead-letter queue. */
export const deliver = async (deliverer: Deliverer, subscription: Subscriber, published: Published) => {
  try {
    await deliverOnce(deliverer, subscription, published);
    deliverer.log(
      `SNS: ${nameOfArn(published.topicArn)} -> ${endpointName(subscription)}${isRaw(subscription) ? ' (raw)' : ''}: delivered message ${published.id}`,
    );
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    await deadLettered(deliverer, subscription, published, error.message);
  }
};
