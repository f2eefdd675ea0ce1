// How one local service hands a message to another by its ARN, as AWS's services do: an SNS subscription's queue, a
// rule's target, an asynchronous invocation's destination, a queue's event source mapping's function. Each served
// service registers the ARNs it takes (by the service named in the ARN: `sqs`, `sns`, `events`, `lambda`), and every
// sender goes through `Targets.deliver`, so that a service never imports another. An ARN no served service takes is a
// TargetError: the sender decides what that means (a rule's target refused at start, a destination said in the log).
//
// ARNs: "Amazon Resource Names (ARNs)", IAM User Guide, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html
// (`arn:partition:service:region:account-id:resource`).
import type { InvocationReport } from '../lambda/pool.ts';

/** A message as one service hands it to another: its body, and what the receiving service's API would take with it. */
export interface Delivery {
  /** The body: an SQS message's, an SNS message's, an EventBridge event's detail or a Lambda event, as JSON or text. */
  body: string;
  /** Message attributes, as SQS's SendMessage and SNS's Publish take them (`DataType`, `StringValue`/`BinaryValue`). */
  attributes?: Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;
  /** To a topic: the notification's Subject (S3's notifications: `Amazon S3 Notification`). */
  subject?: string;
  /** For a FIFO queue or topic. */
  messageGroupId?: string;
  messageDeduplicationId?: string;
  /** Who sent it, for the receiving service's log line (`sns:MyTopic`, `events:rule/MyRule`). */
  source: string;
  /** To an event bus: the event's `source` and `detail-type` (a Lambda destination's: `lambda`, `Lambda Function Invocation Result - Success`). */
  event?: { source: string; detailType: string };
}

/** An ARN no served service takes, or one whose resource it does not have. */
export class TargetError extends Error {
  override name = 'TargetError';
}

/** A served service's receiving end: it takes `delivery` for `arn` (of its own service), or throws TargetError. */
export type Receiver = (arn: string, delivery: Delivery) => Promise<void>;

/** The service an ARN names (`arn:aws:sqs:us-east-1:000000000000:name` -> `sqs`); undefined for a text not an ARN. */
const serviceOfArn = (arn: string) => /^arn:[^:]+:([^:]+):/.exec(arn)?.[1];

/** The services served locally, by the service an ARN names: the one way to send to one of them. */
export class Targets {
  readonly #receivers = new Map<string, Receiver>();

  /** `service` (as ARNs name it) takes what is sent to its ARNs; registered once, when it starts. */
  register(service: string, receiver: Receiver) {
    if (this.#receivers.has(service)) throw new Error(`${service} is registered twice`);
    this.#receivers.set(service, receiver);
  }

  /** Whether a served service takes ARNs of `arn`'s service (it may still not have that resource). */
  serves(arn: string) {
    const service = serviceOfArn(arn);
    return service !== undefined && this.#receivers.has(service);
  }

  /** Hands `delivery` to the service `arn` names; TargetError when none is served or it has no such resource. */
  async deliver(arn: string, delivery: Delivery): Promise<void> {
    const service = serviceOfArn(arn);
    const receiver = service === undefined ? undefined : this.#receivers.get(service);
    if (!receiver)
      throw new TargetError(`${arn}: ${service === undefined ? 'not an ARN' : `${service} is not served locally`}`);
    await receiver(arn, delivery);
  }
}

/**
 * Runs a function synchronously, as Lambda's Invoke with RequestResponse does (an event source mapping's poller, a
 * state machine's task): `target` is the function's name, its ARN or a partial ARN, with an alias's or version's
 * qualifier or not. Rejects with TargetError when no function served has that name.
 */
export type Invoker = (target: string, event: unknown) => Promise<InvocationReport>;
