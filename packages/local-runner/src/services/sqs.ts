// Amazon SQS, locally: the queue and message operations of the Amazon SQS API Reference over the JSON protocol the
// SDK v3 speaks (AWS JSON 1.0, `X-Amz-Target: AmazonSQS.<operation>`), on queues kept in the data folder
// (state-file.ts). Standard and FIFO queues, visibility timeouts, delays, long polling, message attributes and a
// RedrivePolicy's dead-letter queue, as "Amazon SQS Developer Guide" describes them. Seeded at start from the
// template's AWS::SQS::Queue resources (seed).
import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { localAws } from '../app/local-aws.ts';
import { type JsonInput, type JsonService, ServiceError } from './json-protocol.ts';
import type { StateFile } from './state-file.ts';
import { type Delivery, TargetError } from './targets.ts';

type Attributes = Record<string, string>;

interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

interface StoredMessage {
  id: string;
  body: string;
  attributes: Record<string, MessageAttribute>;
  /** Epoch milliseconds. */
  sent: number;
  visibleAt: number;
  receiveCount: number;
  firstReceive?: number;
  /** The handle of its last receive: a delete or a visibility change takes that one alone. */
  receipt?: string;
  groupId?: string;
  dedupId?: string;
  sequence?: string;
  /** The ARN of the queue it came from, in a dead-letter queue (DeadLetterQueueSourceArn): where a redrive sends it. */
  deadLetterSource?: string;
}

interface StoredQueue {
  name: string;
  attributes: Attributes;
  created: number;
  messages: StoredMessage[];
  /** FIFO: deduplication ids seen in the last 5 minutes, with the message id each was answered with. */
  seen: { dedupId: string; at: number; messageId: string }[];
  sequence: number;
  /** The fingerprint of the template's seed that made it, if one did. */
  seeded?: string;
}

export interface QueueState {
  queues: StoredQueue[];
  /** The message move tasks (redrives out of a dead-letter queue), the last 10 of each source queue. */
  moveTasks?: MoveTask[];
}

/** A message move task ("StartMessageMoveTask"): what it moves and how far it went. */
interface MoveTask {
  taskId: string;
  /** The source queue's name. */
  source: string;
  destinationArn?: string;
  rate?: number;
  status: 'RUNNING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';
  started: number;
  toMove: number;
  moved: number;
  /** The ids of the messages it has yet to move: those in the source queue when it started. */
  pending: string[];
  failure?: string;
}

export const emptyQueues = (): QueueState => ({ queues: [] });

/** "Exactly-once processing in Amazon SQS": a deduplication id is remembered for 5 minutes. */
const dedupWindow = 5 * 60 * 1000;
const defaults: Attributes = {
  VisibilityTimeout: '30',
  DelaySeconds: '0',
  MessageRetentionPeriod: '345600',
  MaximumMessageSize: '262144',
  ReceiveMessageWaitTimeSeconds: '0',
};

const invalid = (message: string) => new ServiceError('InvalidParameterValue', message);
const missing = (name: string) =>
  new ServiceError('MissingParameter', `The request must contain the parameter ${name}.`);
const noQueue = () => new ServiceError('QueueDoesNotExist', 'The specified queue does not exist.');

const text = (input: JsonInput, key: string): string => {
  const value = input[key];
  if (typeof value !== 'string') throw missing(key);
  return value;
};

const integer = (value: unknown, name: string, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw invalid(
      `Value ${String(value)} for parameter ${name} is invalid. Reason: must be between ${min} and ${max}.`,
    );
  return number;
};

export const queueArn = (name: string) =>
  `arn:${localAws.partition}:sqs:${localAws.region}:${localAws.accountId}:${name}`;

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

/**
 * MD5OfMessageAttributes as "Calculating the MD5 message digest for message attributes" (Amazon SQS Developer Guide)
 * builds it: for each attribute by name, the name, its data type, a transport byte (1 string, 2 binary) and the
 * value, each length-prefixed (4 bytes, big-endian).
 */
const attributesDigest = (attributes: Record<string, MessageAttribute>) => {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const parts: Buffer[] = [];
  const prefixed = (data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    parts.push(length, data);
  };
  for (const name of names) {
    const { DataType, StringValue, BinaryValue } = attributes[name] as MessageAttribute;
    prefixed(Buffer.from(name));
    prefixed(Buffer.from(DataType));
    const binary = BinaryValue !== undefined;
    parts.push(Buffer.from([binary ? 2 : 1]));
    prefixed(binary ? Buffer.from(BinaryValue, 'base64') : Buffer.from(StringValue ?? ''));
  }
  return md5(Buffer.concat(parts));
};

const messageAttributesOf = (given: unknown): Record<string, MessageAttribute> => {
  if (given === undefined) return {};
  if (typeof given !== 'object' || given === null) throw invalid('MessageAttributes must be a map');
  const attributes: Record<string, MessageAttribute> = {};
  for (const [name, value] of Object.entries(given as Record<string, Record<string, unknown>>)) {
    const { DataType, StringValue, BinaryValue } = value ?? {};
    if (typeof DataType !== 'string' || !/^(String|Number|Binary)(\..+)?$/.test(DataType))
      throw invalid(`The message attribute '${name}' has an invalid message attribute type.`);
    attributes[name] = {
      DataType,
      ...(typeof StringValue === 'string' && { StringValue }),
      ...(typeof BinaryValue === 'string' && { BinaryValue }),
    };
  }
  return attributes;
};

const nameOfUrl = (url: string) => url.slice(url.lastIndexOf('/') + 1);
const isFifo = (queue: StoredQueue) => queue.attributes.FifoQueue === 'true';
const attributeNumber = (queue: StoredQueue, name: string) => Number(queue.attributes[name] ?? defaults[name]);

/**
 * "MessageRetentionPeriod" (SetQueueAttributes, Amazon SQS API Reference): a message older than the queue's retention
 * period is deleted, received or not. Checked whenever the queue's messages are read (a receive, its attributes, a
 * move), not by a timer.
 */
const dropExpired = (queue: StoredQueue, now: number) => {
  const retention = attributeNumber(queue, 'MessageRetentionPeriod') * 1000;
  queue.messages = queue.messages.filter((m) => now - m.sent < retention);
};

/** A policy attribute (RedrivePolicy, RedriveAllowPolicy) as JSON; undefined when absent or not JSON. */
const policyOf = (text: string | undefined): Record<string, unknown> | undefined => {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Whether the dead-letter queue `target`'s RedriveAllowPolicy lets `source` name it ("Using dead-letter queues in
 * Amazon SQS": allowAll, denyAll, or byQueue with sourceQueueArns); said when it does not.
 */
const redriveAllowed = (target: StoredQueue, source: StoredQueue, log: (line: string) => void) => {
  const policy = policyOf(target.attributes.RedriveAllowPolicy);
  if (policy === undefined) return true;
  const { redrivePermission = 'allowAll', sourceQueueArns } = policy;
  const allowed =
    redrivePermission === 'allowAll' ||
    (redrivePermission === 'byQueue' &&
      Array.isArray(sourceQueueArns) &&
      sourceQueueArns.includes(queueArn(source.name)));
  if (!allowed)
    log(
      `SQS: ${source.name} names ${target.name} as its dead-letter queue, whose RedriveAllowPolicy does not allow it: the message stays`,
    );
  return allowed;
};

/**
 * What a message moved to a dead-letter queue carries besides: its source queue's ARN (DeadLetterQueueSourceArn) and,
 * from a FIFO queue, its id as its deduplication id ("Learn how to configure a dead-letter queue redrive") and a new
 * enqueue time ("Setting-up dead-letter queue retention in Amazon SQS"; a standard queue's message keeps its own).
 */
const deadLetterFields = (queue: StoredQueue, message: StoredMessage) => ({
  deadLetterSource: queueArn(queue.name),
  ...(isFifo(queue) && { dedupId: message.id, sent: Date.now() }),
});

/** What every operation works on: the queues' file, the server's address (queue URLs) and the wake-ups of long polls. */
interface Store {
  file: StateFile<QueueState>;
  url: () => string;
  changed: EventEmitter;
}

const urlOf = (store: Store, name: string) => `${store.url()}/${localAws.accountId}/${name}`;

const findQueue = (state: QueueState, name: string) => state.queues.find((q) => q.name === name);
const queueOf = (state: QueueState, input: JsonInput) => {
  const queue = findQueue(state, nameOfUrl(text(input, 'QueueUrl')));
  if (!queue) throw noQueue();
  return queue;
};

const checkedQueueName = (name: string, fifo: boolean) => {
  if (!/^[a-zA-Z0-9_-]{1,80}$/.test(fifo ? name.replace(/\.fifo$/, '') : name) || name.length > 80)
    throw invalid(
      `Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length (${JSON.stringify(name)})`,
    );
  if (fifo !== name.endsWith('.fifo'))
    throw invalid(
      'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix',
    );
  return name;
};

/** Creates (or, with the same attributes, finds) the queue `name`; "CreateQueue". */
const createQueue = (state: QueueState, name: string, attributes: Attributes) => {
  const fifo = attributes.FifoQueue === 'true';
  checkedQueueName(name, fifo);
  const existing = findQueue(state, name);
  if (existing) {
    const differs = Object.entries(attributes).some(
      ([key, value]) => (existing.attributes[key] ?? defaults[key]) !== value,
    );
    if (differs)
      throw new ServiceError(
        'QueueNameExists',
        `A queue already exists with the same name and a different value for an attribute (${name})`,
      );
    return existing;
  }
  const queue: StoredQueue = {
    name,
    attributes: { ...attributes },
    created: Date.now(),
    messages: [],
    seen: [],
    sequence: 0,
  };
  state.queues.push(queue);
  return queue;
};

const stringMap = (given: unknown): Attributes =>
  Object.fromEntries(Object.entries((given ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));

const operationCreateQueue = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = createQueue(state, text(input, 'QueueName'), stringMap(input.Attributes));
  store.file.write(state);
  return { QueueUrl: urlOf(store, queue.name) };
};

const getQueueUrl = (store: Store) => (input: JsonInput) => {
  const queue = findQueue(store.file.read(), text(input, 'QueueName'));
  if (!queue) throw noQueue();
  return { QueueUrl: urlOf(store, queue.name) };
};

const listQueues = (store: Store) => (input: JsonInput) => {
  const prefix = typeof input.QueueNamePrefix === 'string' ? input.QueueNamePrefix : '';
  const names = store.file
    .read()
    .queues.map((q) => q.name)
    .filter((n) => n.startsWith(prefix));
  return { QueueUrls: names.sort().map((name) => urlOf(store, name)) };
};

const deleteQueue = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  store.file.write({ queues: state.queues.filter((q) => q !== queue) });
  return {};
};

const purgeQueue = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  queueOf(state, input).messages = [];
  store.file.write(state);
  return {};
};

/** The attributes GetQueueAttributes computes, beside those set. */
const computedAttributes = (queue: StoredQueue, now: number): Attributes => {
  dropExpired(queue, now);
  const inFlight = queue.messages.filter((m) => m.visibleAt > now && m.receipt !== undefined).length;
  const delayed = queue.messages.filter((m) => m.visibleAt > now && m.receipt === undefined).length;
  return {
    QueueArn: queueArn(queue.name),
    ApproximateNumberOfMessages: String(queue.messages.length - inFlight - delayed),
    ApproximateNumberOfMessagesNotVisible: String(inFlight),
    ApproximateNumberOfMessagesDelayed: String(delayed),
    CreatedTimestamp: String(Math.floor(queue.created / 1000)),
    LastModifiedTimestamp: String(Math.floor(queue.created / 1000)),
  };
};

const getQueueAttributes = (store: Store) => (input: JsonInput) => {
  const queue = queueOf(store.file.read(), input);
  const all = {
    ...defaults,
    ...queue.attributes,
    ...computedAttributes(queue, Date.now()),
  };
  const names = Array.isArray(input.AttributeNames) ? (input.AttributeNames as string[]) : [];
  const chosen = names.includes('All')
    ? all
    : Object.fromEntries(names.filter((n) => n in all).map((n) => [n, all[n]]));
  return { Attributes: chosen };
};

const setQueueAttributes = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  Object.assign(queue.attributes, stringMap(input.Attributes));
  store.file.write(state);
  store.changed.emit('changed');
  return {};
};

/** One message sent: its MessageId (a duplicate's is the first's) and digests, or the error that refuses it. */
const sendOne = (queue: StoredQueue, entry: JsonInput, now: number) => {
  const body = text(entry, 'MessageBody');
  if (Buffer.byteLength(body) > attributeNumber(queue, 'MaximumMessageSize'))
    throw invalid(
      `One or more parameters are invalid. Reason: Message must be shorter than ${attributeNumber(queue, 'MaximumMessageSize')} bytes.`,
    );
  const attributes = messageAttributesOf(entry.MessageAttributes);
  const delay = integer(entry.DelaySeconds, 'DelaySeconds', 0, 900) ?? attributeNumber(queue, 'DelaySeconds');
  const digests = {
    MD5OfMessageBody: md5(body),
    ...(attributesDigest(attributes) && {
      MD5OfMessageAttributes: attributesDigest(attributes),
    }),
  };
  const message: StoredMessage = {
    id: randomUUID(),
    body,
    attributes,
    sent: now,
    visibleAt: now + delay * 1000,
    receiveCount: 0,
  };
  if (isFifo(queue)) {
    const fifo = fifoFields(queue, entry, body, delay);
    const seen = queue.seen.find((s) => s.dedupId === fifo.dedupId && now - s.at < dedupWindow);
    // "Exactly-once processing": a duplicate within the interval is accepted, answered, and not delivered.
    if (seen) return { MessageId: seen.messageId, ...digests };
    queue.sequence += 1;
    Object.assign(message, fifo, {
      sequence: String(queue.sequence).padStart(20, '0'),
    });
    queue.seen = [
      ...queue.seen.filter((s) => now - s.at < dedupWindow),
      { dedupId: fifo.dedupId, at: now, messageId: message.id },
    ];
  }
  queue.messages.push(message);
  return {
    MessageId: message.id,
    ...digests,
    ...(message.sequence && { SequenceNumber: message.sequence }),
  };
};

/** A FIFO message's group and deduplication id (given, or the body's SHA-256 with ContentBasedDeduplication). */
const fifoFields = (queue: StoredQueue, entry: JsonInput, body: string, delay: number) => {
  if (typeof entry.MessageGroupId !== 'string') throw missing('MessageGroupId');
  if (entry.DelaySeconds !== undefined && delay !== 0)
    throw invalid(
      'Value for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.',
    );
  const given = typeof entry.MessageDeduplicationId === 'string' ? entry.MessageDeduplicationId : undefined;
  if (given === undefined && queue.attributes.ContentBasedDeduplication !== 'true')
    throw invalid(
      'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
    );
  return {
    groupId: entry.MessageGroupId,
    dedupId: given ?? createHash('sha256').update(body).digest('hex'),
  };
};

const sendMessage = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const answer = sendOne(queueOf(state, input), input, Date.now());
  store.file.write(state);
  store.changed.emit('changed');
  return answer;
};

/** Runs `each` on every entry of a batch call, answering Successful and Failed as the batch operations do. */
const batch = (input: JsonInput, each: (entry: JsonInput) => Record<string, unknown>) => {
  const entries = Array.isArray(input.Entries) ? (input.Entries as JsonInput[]) : [];
  if (entries.length === 0)
    throw new ServiceError('EmptyBatchRequest', 'There should be at least one entry in the request.');
  if (entries.length > 10)
    throw new ServiceError('TooManyEntriesInBatchRequest', 'Maximum number of entries per request are 10.');
  const Successful: Record<string, unknown>[] = [];
  const Failed: Record<string, unknown>[] = [];
  for (const entry of entries) {
    try {
      Successful.push({ Id: entry.Id, ...each(entry) });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      Failed.push({
        Id: entry.Id,
        SenderFault: true,
        Code: error.type,
        Message: error.message,
      });
    }
  }
  return { Successful, Failed };
};

const sendMessageBatch = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  const now = Date.now();
  const answer = batch(input, (entry) => sendOne(queue, entry, now));
  store.file.write(state);
  store.changed.emit('changed');
  return answer;
};

/** The message `receipt` names in `queue`; ReceiptHandleIsInvalid when none does. */
const byReceipt = (queue: StoredQueue, receipt: string) => {
  const message = queue.messages.find((m) => m.receipt === receipt);
  if (!message)
    throw new ServiceError(
      'ReceiptHandleIsInvalid',
      `The input receipt handle "${receipt}" is not a valid receipt handle.`,
    );
  return message;
};

const deleteMessage = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  const message = byReceipt(queue, text(input, 'ReceiptHandle'));
  queue.messages = queue.messages.filter((m) => m !== message);
  store.file.write(state);
  store.changed.emit('changed');
  return {};
};

const deleteMessageBatch = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  const answer = batch(input, (entry) => {
    const message = byReceipt(queue, text(entry, 'ReceiptHandle'));
    queue.messages = queue.messages.filter((m) => m !== message);
    return {};
  });
  store.file.write(state);
  store.changed.emit('changed');
  return answer;
};

const changeVisibility = (queue: StoredQueue, entry: JsonInput, now: number) => {
  const message = byReceipt(queue, text(entry, 'ReceiptHandle'));
  const timeout = integer(entry.VisibilityTimeout, 'VisibilityTimeout', 0, 43200);
  if (timeout === undefined) throw missing('VisibilityTimeout');
  if (message.visibleAt <= now)
    throw new ServiceError('MessageNotInflight', 'The message referred to is not in flight.');
  message.visibleAt = now + timeout * 1000;
  return {};
};

const changeMessageVisibility = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const answer = changeVisibility(queueOf(state, input), input, Date.now());
  store.file.write(state);
  store.changed.emit('changed');
  return answer;
};

const changeMessageVisibilityBatch = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  const now = Date.now();
  const answer = batch(input, (entry) => changeVisibility(queue, entry, now));
  store.file.write(state);
  store.changed.emit('changed');
  return answer;
};

/** The queue's RedrivePolicy: its dead-letter queue's name and maxReceiveCount, if it has one. */
const redriveOf = (queue: StoredQueue) => {
  const policy = queue.attributes.RedrivePolicy;
  if (!policy) return undefined;
  const { deadLetterTargetArn, maxReceiveCount } = JSON.parse(policy) as {
    deadLetterTargetArn?: string;
    maxReceiveCount?: unknown;
  };
  if (typeof deadLetterTargetArn !== 'string') return undefined;
  return {
    target: deadLetterTargetArn.slice(deadLetterTargetArn.lastIndexOf(':') + 1),
    max: Number(maxReceiveCount),
  };
};

/**
 * The messages a receive may take now, in order: visible ones; in a FIFO queue, none of a group with a message in
 * flight ("Message ordering in Amazon SQS FIFO queues"), and a group's first ones.
 */
const receivable = (queue: StoredQueue, now: number) => {
  dropExpired(queue, now);
  const visible = queue.messages.filter((m) => m.visibleAt <= now);
  if (!isFifo(queue)) return visible;
  const blocked = new Set(
    queue.messages.filter((m) => m.visibleAt > now && m.receipt !== undefined).map((m) => m.groupId),
  );
  return visible.filter((m) => !blocked.has(m.groupId));
};

/** Moves `message` to the dead-letter queue (a message past its maxReceiveCount); whether it did. */
const redriven = (state: QueueState, queue: StoredQueue, message: StoredMessage, log: (line: string) => void) => {
  const redrive = redriveOf(queue);
  if (!redrive || message.receiveCount < redrive.max) return false;
  const target = findQueue(state, redrive.target);
  if (!target || !redriveAllowed(target, queue, log)) return false;
  queue.messages = queue.messages.filter((m) => m !== message);
  // "Using dead-letter queues in Amazon SQS": the message keeps its id and its receive count, and is visible there.
  target.messages.push({
    ...message,
    visibleAt: Date.now(),
    receipt: undefined,
    ...deadLetterFields(queue, message),
  } as StoredMessage);
  log(
    `SQS: message ${message.id} of ${queue.name} went to its dead-letter queue ${target.name} after ${message.receiveCount} receives`,
  );
  return true;
};

const systemAttributes = (message: StoredMessage): Attributes => ({
  SenderId: localAws.accountId,
  SentTimestamp: String(message.sent),
  ApproximateReceiveCount: String(message.receiveCount),
  ApproximateFirstReceiveTimestamp: String(message.firstReceive ?? message.sent),
  ...(message.groupId && { MessageGroupId: message.groupId }),
  ...(message.dedupId && { MessageDeduplicationId: message.dedupId }),
  ...(message.sequence && { SequenceNumber: message.sequence }),
  ...(message.deadLetterSource && { DeadLetterQueueSourceArn: message.deadLetterSource }),
});

const selected = <T>(all: Record<string, T>, names: unknown) => {
  const asked = Array.isArray(names) ? (names as string[]) : [];
  if (asked.includes('All') || asked.includes('.*')) return all;
  return Object.fromEntries(
    Object.entries(all).filter(([name]) =>
      asked.some((a) => a === name || (a.endsWith('.*') && name.startsWith(a.slice(0, -1)))),
    ),
  );
};

/** A message as ReceiveMessage answers it, with the attributes asked for. */
const shownMessage = (message: StoredMessage, input: JsonInput) => {
  const attributes = selected(systemAttributes(message), [
    ...((input.AttributeNames as string[] | undefined) ?? []),
    ...((input.MessageSystemAttributeNames as string[] | undefined) ?? []),
  ]);
  const messageAttributes = selected(message.attributes, input.MessageAttributeNames);
  const digest = attributesDigest(messageAttributes);
  return {
    MessageId: message.id,
    ReceiptHandle: message.receipt,
    MD5OfBody: md5(message.body),
    Body: message.body,
    ...(Object.keys(attributes).length > 0 && { Attributes: attributes }),
    ...(digest && {
      MessageAttributes: messageAttributes,
      MD5OfMessageAttributes: digest,
    }),
  };
};

/** Takes up to `max` messages of the queue `input` names, each made invisible for its visibility timeout. */
const take = (store: Store, input: JsonInput, max: number, log: (line: string) => void) => {
  const state = store.file.read();
  const queue = queueOf(state, input);
  const now = Date.now();
  const timeout =
    integer(input.VisibilityTimeout, 'VisibilityTimeout', 0, 43200) ?? attributeNumber(queue, 'VisibilityTimeout');
  const taken: StoredMessage[] = [];
  for (const message of receivable(queue, now)) {
    if (taken.length >= max) break;
    if (redriven(state, queue, message, log)) continue;
    message.receiveCount += 1;
    message.firstReceive ??= now;
    message.receipt = Buffer.from(`${message.id}:${randomUUID()}`).toString('base64url');
    message.visibleAt = now + timeout * 1000;
    taken.push(message);
  }
  const next = Math.min(...queue.messages.filter((m) => m.visibleAt > now).map((m) => m.visibleAt));
  store.file.write(state);
  return { taken, next };
};

/** Resolves when a message may have become receivable: a change, or `until` (epoch ms). */
const changeOrTime = (store: Store, until: number) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      store.changed.off('changed', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, until - Date.now()));
    store.changed.on('changed', done);
  });

/** "ReceiveMessage": long polling waits up to WaitTimeSeconds and answers as soon as a message is there. */
const receiveMessage = (store: Store, log: (line: string) => void) => async (input: JsonInput) => {
  const max = integer(input.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, 10) ?? 1;
  const queue = queueOf(store.file.read(), input);
  const wait =
    integer(input.WaitTimeSeconds, 'WaitTimeSeconds', 0, 20) ?? attributeNumber(queue, 'ReceiveMessageWaitTimeSeconds');
  const deadline = Date.now() + wait * 1000;
  for (;;) {
    const { taken, next } = take(store, input, max, log);
    if (taken.length > 0 || Date.now() >= deadline) return { Messages: taken.map((m) => shownMessage(m, input)) };
    await changeOrTime(store, Math.min(deadline, next));
  }
};

/**
 * What the template's queues ask for that the local SQS does not do, said once at start: a queue policy (kept and shown
 * by GetQueueAttributes, not enforced) and encryption at rest (KmsMasterKeyId or SqsManagedSseEnabled: served
 * unencrypted, the messages in the clear in the data folder, or in memory).
 */
const seedNotices = (seeds: { name: string; attributes: Attributes }[], kept: boolean) => {
  const withPolicy = seeds.filter(({ attributes }) => attributes.Policy !== undefined).map(({ name }) => name);
  const encrypted = seeds.flatMap(({ name, attributes: { KmsMasterKeyId, SqsManagedSseEnabled } }) => {
    if (KmsMasterKeyId !== undefined) return [`${name} (KMS key ${KmsMasterKeyId})`];
    return SqsManagedSseEnabled === 'true' ? [`${name} (SSE-SQS)`] : [];
  });
  return [
    ...(withPolicy.length > 0
      ? [
          `SQS: queue policies are kept and shown (GetQueueAttributes Policy), not enforced locally: ${withPolicy.join(', ')}`,
        ]
      : []),
    ...(encrypted.length > 0
      ? [
          `SQS: queues encrypted on AWS are served unencrypted locally, their messages in the clear ${kept ? 'in the data folder' : 'in memory'}: ${encrypted.join(', ')}`,
        ]
      : []),
  ];
};

/**
 * Creates each queue of the template that is not there (a seed's fingerprint names it); a queue the template
 * changed gets its new attributes. Lines to say at start.
 */
const seedQueues = (store: Store, seeds: { name: string; attributes: Attributes; fingerprint: string }[]) => {
  const state = store.file.read();
  const changed = seeds.filter(({ name, fingerprint }) => findQueue(state, name)?.seeded !== fingerprint);
  for (const { name, attributes, fingerprint } of changed) {
    const queue = findQueue(state, name);
    if (queue) queue.attributes = { ...attributes };
    else createQueue(state, name, attributes);
    (findQueue(state, name) as StoredQueue).seeded = fingerprint;
  }
  if (changed.length > 0) store.file.write(state);
  return seedNotices(seeds, store.file.path !== undefined);
};

/**
 * A message another local service sends to the queue `arn` names (services/targets.ts: an SNS subscription, a rule's
 * target, a destination), as SendMessage takes it; TargetError when no queue has that ARN or the queue refuses it.
 */
const receiveDelivery = (store: Store) => async (arn: string, delivery: Delivery) => {
  const state = store.file.read();
  const queue = state.queues.find(({ name }) => queueArn(name) === arn);
  if (!queue) throw new TargetError(`${arn}: no such queue is served`);
  const entry: JsonInput = {
    MessageBody: delivery.body,
    ...(delivery.attributes && { MessageAttributes: delivery.attributes }),
    ...(delivery.messageGroupId !== undefined && { MessageGroupId: delivery.messageGroupId }),
    ...(delivery.messageDeduplicationId !== undefined && { MessageDeduplicationId: delivery.messageDeduplicationId }),
  };
  try {
    sendOne(queue, entry, Date.now());
  } catch (error) {
    if (error instanceof ServiceError) throw new TargetError(`${arn}: ${error.type}: ${error.message}`);
    throw error;
  }
  store.file.write(state);
  store.changed.emit('changed');
};

// Redrive back: the message move tasks of "Learn how to configure a dead-letter queue redrive" (Amazon SQS Developer
// Guide, https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue-redrive.html)
// and the API reference's StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask. A task moves the
// messages its dead-letter queue held when it started, oldest first, to DestinationArn or each to the queue it came
// from, as new messages (a new id and enqueue time, received 0 times); at most MaxNumberOfMessagesPerSecond each
// second, else all at once.

const notFound = (what: string) => new ServiceError('ResourceNotFoundException', `${what} does not exist.`);
const queueByArn = (state: QueueState, arn: string) => state.queues.find(({ name }) => queueArn(name) === arn);
const taskHandleOf = (task: MoveTask) =>
  Buffer.from(JSON.stringify({ taskId: task.taskId, sourceArn: queueArn(task.source) })).toString('base64url');

/** StartMessageMoveTask's checks: a dead-letter queue as source, an existing destination of the same type. */
const checkedMove = (state: QueueState, input: JsonInput) => {
  const source = queueByArn(state, text(input, 'SourceArn'));
  if (!source) throw notFound('The source queue');
  if (!state.queues.some((q) => redriveOf(q)?.target === source.name))
    throw invalid('Source queue must be configured as a Dead Letter Queue.');
  const destinationArn = typeof input.DestinationArn === 'string' ? input.DestinationArn : undefined;
  const destination = destinationArn === undefined ? undefined : queueByArn(state, destinationArn);
  if (destinationArn !== undefined && !destination) throw notFound('The destination queue');
  if (destination && isFifo(destination) !== isFifo(source))
    throw invalid('The destination queue must be of the same type as the source queue.');
  const rate = integer(input.MaxNumberOfMessagesPerSecond, 'MaxNumberOfMessagesPerSecond', 1, 500);
  if ((state.moveTasks ?? []).some((t) => t.source === source.name && t.status === 'RUNNING'))
    throw new ServiceError('UnsupportedOperation', 'Only one active message movement task is supported per queue.');
  return { source, destinationArn, rate };
};

/** Where `message` goes: the task's destination, else the queue it came from; a reason when there is none. */
const moveDestination = (state: QueueState, task: MoveTask, message: StoredMessage) => {
  const arn = task.destinationArn ?? message.deadLetterSource;
  if (arn === undefined) return `message ${message.id} has no source queue (it was sent to ${task.source} directly)`;
  return queueByArn(state, arn) ?? `its destination ${arn} does not exist`;
};

/** Sends `message` again to `destination`, as a new message, and takes it out of `source`; a reason when refused. */
const moveOne = (source: StoredQueue, destination: StoredQueue, message: StoredMessage, now: number) => {
  const entry: JsonInput = {
    MessageBody: message.body,
    MessageAttributes: message.attributes,
    ...(message.groupId !== undefined && { MessageGroupId: message.groupId }),
    ...(message.dedupId !== undefined && { MessageDeduplicationId: message.dedupId }),
  };
  try {
    sendOne(destination, entry, now);
  } catch (error) {
    if (error instanceof ServiceError) return `${destination.name} refused message ${message.id}: ${error.message}`;
    throw error;
  }
  source.messages = source.messages.filter((m) => m !== message);
  return undefined;
};

/** One step of the task `taskId`: moves what it may now; whether it still runs. */
const moveStep = (store: Store, taskId: string) => {
  const state = store.file.read();
  const task = state.moveTasks?.find((t) => t.taskId === taskId);
  if (task?.status !== 'RUNNING') return false;
  const source = findQueue(state, task.source);
  const now = Date.now();
  if (source) dropExpired(source, now);
  const present = new Set(source?.messages.map((m) => m.id));
  task.pending = task.pending.filter((id) => present.has(id));
  const ready = (source?.messages ?? []).filter((m) => m.visibleAt <= now && task.pending.includes(m.id));
  for (const message of ready.slice(0, task.rate ?? ready.length)) {
    const destination = moveDestination(state, task, message);
    const failure =
      typeof destination === 'string' ? destination : moveOne(source as StoredQueue, destination, message, now);
    if (failure !== undefined) {
      Object.assign(task, { status: 'FAILED', failure });
      break;
    }
    task.moved += 1;
    task.pending = task.pending.filter((id) => id !== message.id);
  }
  if (task.status === 'RUNNING' && task.pending.length === 0) task.status = 'COMPLETED';
  store.file.write(state);
  store.changed.emit('changed');
  return task.status === 'RUNNING';
};

/** The tasks running in this process, by id: a step each second until done. */
type MoveTimers = Map<string, NodeJS.Timeout>;

/** Runs the task `taskId`: a step now, then one each second while it runs (a step's failure is said, and ends it). */
const runMoveTask = (store: Store, timers: MoveTimers, taskId: string, log: (line: string) => void) => {
  const step = () => {
    timers.delete(taskId);
    let again = false;
    try {
      again = moveStep(store, taskId);
    } catch (error) {
      log(`SQS: the message move task ${taskId} failed: ${(error as Error).message}`);
    }
    if (again) timers.set(taskId, setTimeout(step, 1000));
  };
  step();
};

const startMessageMoveTask = (store: Store, timers: MoveTimers, log: (line: string) => void) => (input: JsonInput) => {
  const state = store.file.read();
  const { source, destinationArn, rate } = checkedMove(state, input);
  const task: MoveTask = {
    taskId: randomUUID(),
    source: source.name,
    ...(destinationArn !== undefined && { destinationArn }),
    ...(rate !== undefined && { rate }),
    status: 'RUNNING',
    started: Date.now(),
    toMove: source.messages.length,
    moved: 0,
    pending: source.messages.map((m) => m.id),
  };
  const others = (state.moveTasks ?? []).filter((t) => t.source === source.name).slice(-9);
  state.moveTasks = [...(state.moveTasks ?? []).filter((t) => t.source !== source.name), ...others, task];
  store.file.write(state);
  log(`SQS: moving ${task.toMove} messages out of ${source.name} (task ${task.taskId})`);
  runMoveTask(store, timers, task.taskId, log);
  return { TaskHandle: taskHandleOf(task) };
};

const shownTask = (task: MoveTask) => ({
  ...(task.status === 'RUNNING' && { TaskHandle: taskHandleOf(task) }),
  Status: task.status,
  SourceArn: queueArn(task.source),
  ...(task.destinationArn !== undefined && { DestinationArn: task.destinationArn }),
  ...(task.rate !== undefined && { MaxNumberOfMessagesPerSecond: task.rate }),
  ApproximateNumberOfMessagesMoved: task.moved,
  ApproximateNumberOfMessagesToMove: task.toMove,
  ...(task.failure !== undefined && { FailureReason: task.failure }),
  StartedTimestamp: task.started,
});

const listMessageMoveTasks = (store: Store) => (input: JsonInput) => {
  const state = store.file.read();
  const source = queueByArn(state, text(input, 'SourceArn'));
  if (!source) throw notFound('The source queue');
  const max = integer(input.MaxResults, 'MaxResults', 1, 10) ?? 1;
  const tasks = (state.moveTasks ?? []).filter((t) => t.source === source.name);
  return { Results: tasks.reverse().slice(0, max).map(shownTask) };
};

const cancelMessageMoveTask = (store: Store, timers: MoveTimers) => (input: JsonInput) => {
  const state = store.file.read();
  const handle = text(input, 'TaskHandle');
  const task = state.moveTasks?.find((t) => taskHandleOf(t) === handle);
  if (!task) throw notFound('The task');
  if (task.status !== 'RUNNING')
    throw new ServiceError('UnsupportedOperation', 'A message movement can only be cancelled when it is RUNNING.');
  task.status = 'CANCELLED';
  clearTimeout(timers.get(task.taskId));
  timers.delete(task.taskId);
  store.file.write(state);
  return { ApproximateNumberOfMessagesMoved: task.moved };
};

/** A message as an event source mapping's poller takes it (queue-poller.ts): what Lambda's SQS event record shows. */
export interface PolledMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  md5OfBody: string;
  /** Its system attributes (ApproximateReceiveCount, SentTimestamp, ...; a FIFO message's group and sequence). */
  attributes: Attributes;
  messageAttributes: Record<string, MessageAttribute>;
}

/**
 * What an event source mapping's poller does in-process, as Lambda's pollers do with ReceiveMessage and
 * DeleteMessageBatch ("Using Lambda with Amazon SQS"): `changed` tells it a message may have become receivable.
 */
const queueConsumer = (store: Store, log: (line: string) => void) => ({
  changed: store.changed,
  /** The queue `arn` names (its name, and whether it is FIFO); undefined when none served has that ARN. */
  find: (arn: string) => {
    const queue = store.file.read().queues.find(({ name }) => queueArn(name) === arn);
    return queue && { name: queue.name, fifo: isFifo(queue) };
  },
  /**
   * Up to `max` messages of the queue `name`, each in flight for the queue's visibility timeout (a FIFO queue's in
   * group order), and when one may become receivable otherwise than by a change (epoch ms; Infinity: never).
   * ServiceError QueueDoesNotExist when the queue was deleted.
   */
  receive: (name: string, max: number) => {
    const { taken, next } = take(store, { QueueUrl: urlOf(store, name) }, max, log);
    const messages: PolledMessage[] = taken.map((message) => ({
      messageId: message.id,
      receiptHandle: message.receipt as string,
      body: message.body,
      md5OfBody: md5(message.body),
      attributes: systemAttributes(message),
      messageAttributes: message.attributes,
    }));
    return { messages, next };
  },
  /** Deletes the messages of `receipts` still current (one received again since has another); how many it did. */
  delete: (name: string, receipts: string[]) => {
    const state = store.file.read();
    const queue = findQueue(state, name);
    if (!queue || receipts.length === 0) return 0;
    const gone = new Set(receipts);
    const kept = queue.messages.filter((m) => m.receipt === undefined || !gone.has(m.receipt));
    const deleted = queue.messages.length - kept.length;
    queue.messages = kept;
    store.file.write(state);
    store.changed.emit('changed');
    return deleted;
  },
});

export type QueueConsumer = ReturnType<typeof queueConsumer>;

/** The service on `file`, its queue URLs on the address `url` gives once the server listens, and its seeding. */
export const simpleQueueService = (file: StateFile<QueueState>, url: () => string, log: (line: string) => void) => {
  const store: Store = {
    file,
    url,
    changed: new EventEmitter().setMaxListeners(0),
  };
  const moveTimers: MoveTimers = new Map();
  const service: JsonService = {
    name: 'sqs',
    targetPrefix: 'AmazonSQS',
    signingName: 'sqs',
    operations: {
      CreateQueue: operationCreateQueue(store),
      GetQueueUrl: getQueueUrl(store),
      ListQueues: listQueues(store),
      DeleteQueue: deleteQueue(store),
      PurgeQueue: purgeQueue(store),
      GetQueueAttributes: getQueueAttributes(store),
      SetQueueAttributes: setQueueAttributes(store),
      SendMessage: sendMessage(store),
      SendMessageBatch: sendMessageBatch(store),
      ReceiveMessage: receiveMessage(store, log),
      DeleteMessage: deleteMessage(store),
      DeleteMessageBatch: deleteMessageBatch(store),
      ChangeMessageVisibility: changeMessageVisibility(store),
      ChangeMessageVisibilityBatch: changeMessageVisibilityBatch(store),
      StartMessageMoveTask: startMessageMoveTask(store, moveTimers, log),
      ListMessageMoveTasks: listMessageMoveTasks(store),
      CancelMessageMoveTask: cancelMessageMoveTask(store, moveTimers),
    },
  };
  // A task the last run left running goes on.
  for (const task of store.file.read().moveTasks ?? [])
    if (task.status === 'RUNNING') runMoveTask(store, moveTimers, task.taskId, log);
  return {
    service,
    seed: (seeds: Parameters<typeof seedQueues>[1]) => seedQueues(store, seeds),
    queueUrl: (name: string) => urlOf(store, name),
    /** What other local services send to a queue by its ARN (Targets' `sqs` receiver). */
    receive: receiveDelivery(store),
    /** Stops the message move tasks' steps (they go on at the next start). */
    close: () => {
      for (const timer of moveTimers.values()) clearTimeout(timer);
      moveTimers.clear();
    },
    /** What event source mappings' pollers take messages with, in-process. */
    consumer: queueConsumer(store, log),
  };
};
