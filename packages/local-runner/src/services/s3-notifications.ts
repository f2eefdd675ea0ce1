// S3's event notifications, locally: each object change the local S3 stores (an ObjectChange, s3-change.ts) is matched
// against its bucket's notification configurations (the template's: app/s3-notification-resources.ts), and each that
// takes its event type and whose prefix and suffix its key has gets one message, through Targets: to a function as an
// asynchronous invocation (Lambda's `Event` invocation type, as S3 invokes: "Process Amazon S3 event notifications with
// Lambda", https://docs.aws.amazon.com/lambda/latest/dg/with-s3.html), to a queue as a message, to a topic as a
// notification whose subject is "Amazon S3 Notification"; and, when the bucket sends to EventBridge, one event on the
// default bus ("Using EventBridge", Amazon S3 User Guide,
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/EventBridge.html). A destination the runner does not serve is
// said at start; a delivery that fails is said in the log, as S3 delivers "at least once" and drops nothing it could
// send.
import { randomUUID } from 'node:crypto';
import { eventBusArn } from '../app/return-values.ts';
import type { BucketNotifications, NotificationTarget, S3NotificationSeeds } from '../app/s3-notification-resources.ts';
import { encodedKey, s3BusEvent, s3Event, s3TestEvent } from '../events/s3-events.ts';
import type { ObjectChange } from './s3-change.ts';
import type { StateFile } from './state-file.ts';
import type { Delivery, Targets } from './targets.ts';

/** Whether `target` takes `eventName` (`ObjectCreated:Put`): named as it is, or by its kind's `*`. */
const takes = (target: NotificationTarget, eventName: string) =>
  target.events.some(
    (event) =>
      event === `s3:${eventName}` || (event.endsWith(':*') && `s3:${eventName}`.startsWith(event.slice(0, -1))),
  );

/**
 * Whether `key` passes `target`'s filter. S3 compares the prefix and suffix with the key as its records give it, URL
 * encoded ("If you use special characters in the value of the prefix or suffix, you must enter them in URL-encoded
 * format", as aws/aws-cdk#28012 found with `=`); for letters, digits, `/`, `.`, `-` and `_` both are the same.
 */
const passesFilter = (target: Pick<NotificationTarget, 'prefix' | 'suffix'>, key: string) => {
  const encoded = encodedKey(key);
  return (
    (target.prefix === undefined || encoded.startsWith(target.prefix)) &&
    (target.suffix === undefined || encoded.endsWith(target.suffix))
  );
};

/** The configurations of `bucket` that `change` reaches, in their order. */
const reachedTargets = (bucket: BucketNotifications, change: ObjectChange) =>
  bucket.targets.filter((target) => takes(target, change.eventName) && passesFilter(target, change.key));

const subject = 'Amazon S3 Notification';

/** What S3 sends `target` of `change`. */
const deliveryOf = (target: NotificationTarget, change: ObjectChange): Delivery => ({
  body: JSON.stringify(s3Event(change, target.id)),
  source: `s3:${change.bucket}`,
  ...(target.kind === 'topic' && { subject }),
});

/** Which queue and topic configurations were sent their s3:TestEvent (`<bucket> <id> <arn>`). */
interface Tested {
  tested: string[];
}

export const emptyTested = (): Tested => ({ tested: [] });

/**
 * The local S3's notifications, sending through `targets`; `seed` gives them the template's configurations. `file`
 * keeps which queue and topic configurations were sent S3's test message, so that each gets it once, when it is first
 * put, as on AWS ("When the notification is first enabled, an s3:TestEvent occurs": "Using Amazon SQS, Amazon SNS, and
 * Lambda", https://docs.aws.amazon.com/AmazonS3/latest/userguide/how-to-enable-disable-notification-intro.html).
 */
export const s3Notifications = (targets: Targets, file: StateFile<Tested>, log: (line: string) => void) => {
  let buckets = new Map<string, BucketNotifications>();
  const pending = new Set<Promise<void>>();

  const send = (arn: string, delivery: Delivery, what: string) => {
    const sent = targets
      .deliver(arn, delivery)
      .catch((error: unknown) => log(`S3: ${what} was not delivered to ${arn}: ${(error as Error).message}`))
      .finally(() => pending.delete(sent));
    pending.add(sent);
  };

  /** Sends what `change` reaches; called by the local S3 once the change is stored. */
  const notify = (change: ObjectChange) => {
    const bucket = buckets.get(change.bucket);
    if (!bucket) return;
    const what = `the ${change.eventName} notification of ${change.bucket}/${change.key}`;
    for (const target of reachedTargets(bucket, change)) send(target.arn, deliveryOf(target, change), what);
    if (bucket.eventBridge)
      send(eventBusArn('default'), { body: JSON.stringify(s3BusEvent(change)), source: `s3:${change.bucket}` }, what);
  };

  /** Sends the test message to each queue and topic configuration not sent one yet. */
  const test = () => {
    const time = new Date();
    const { tested } = file.read();
    const now: string[] = [];
    for (const { bucket, targets: configured } of buckets.values())
      for (const { id, kind, arn } of configured.filter(({ kind, arn }) => kind !== 'lambda' && targets.serves(arn))) {
        const key = `${bucket} ${id} ${arn}`;
        now.push(key);
        if (tested.includes(key)) continue;
        const requestId = randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase();
        const body = JSON.stringify(s3TestEvent(bucket, time, requestId));
        send(arn, { body, source: `s3:${bucket}`, ...(kind === 'topic' && { subject }) }, 'the s3:TestEvent');
      }
    file.write({ tested: now });
  };

  return {
    /** The template's notification configurations (again, after a reload); lines to say at start. */
    seed: (seeds: S3NotificationSeeds | undefined) => {
      buckets = new Map((seeds?.buckets ?? []).map((bucket) => [bucket.bucket, bucket]));
      test();
      return [...buckets.values()].flatMap(({ bucket, targets: configured }) =>
        configured
          .filter(({ arn }) => !targets.serves(arn))
          .map(
            ({ id, arn }) => `S3: bucket ${bucket}'s notification ${id} sends to ${arn}, which is not served locally`,
          ),
      );
    },
    notify,
    /** Each bucket's notifications, one line each: the banner's. */
    banner: () =>
      [...buckets.values()].flatMap(({ bucket, eventBridge, targets: configured }) => [
        ...configured.map(({ events, prefix, suffix, arn }) => {
          const filter = [prefix && `prefix ${prefix}`, suffix && `suffix ${suffix}`].filter(Boolean).join(', ');
          return `bucket ${bucket}: ${events.join(', ')}${filter ? ` (${filter})` : ''} -> ${arn}`;
        }),
        ...(eventBridge ? [`bucket ${bucket}: every change -> the default event bus (EventBridge)`] : []),
      ]),
    /** Resolves once every delivery begun has ended. */
    settled: async () => {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
};
