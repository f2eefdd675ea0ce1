// The template's S3 event notifications, as the local S3's notifications (services/s3-notifications.ts) are seeded:
// - as CloudFormation writes them: an AWS::S3::Bucket's NotificationConfiguration (LambdaConfigurations,
//   QueueConfigurations, TopicConfigurations: Event, Filter.S3Key.Rules, Function/Queue/Topic; EventBridgeConfiguration
//   with EventBridgeEnabled), "AWS::S3::Bucket NotificationConfiguration", CloudFormation template reference,
//   https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-s3-bucket-notificationconfiguration.html;
// - as aws-cdk-lib writes them (`bucket.addEventNotification`, `eventBridgeEnabled`): a `Custom::S3BucketNotifications`
//   whose BucketName, NotificationConfiguration (PutBucketNotificationConfiguration's shape: LambdaFunctionConfigurations,
//   QueueConfigurations, TopicConfigurations with Events, Filter.Key.FilterRules and the destination's ARN;
//   EventBridgeConfiguration `{}`), Managed and SkipDestinationValidation its handler puts on the bucket
//   (aws/aws-cdk: packages/aws-cdk-lib/aws-s3/lib/notifications-resource/notifications-resource.ts writes the
//   resource; packages/@aws-cdk/custom-resource-handlers/lib/aws-s3/notifications-resource-handler/index.py is the
//   handler). The runner does what that handler does: Managed (a bucket of the stack) puts the configuration as it is,
//   replacing the bucket's; unmanaged (an imported bucket) adds it to what the bucket has, keeping an EventBridge
//   configuration already there.
// A configuration S3 would refuse (an unknown event type, two prefix rules, a FIFO queue or topic, configurations
// that overlap) refuses the app, naming it, as PutBucketNotificationConfiguration fails the deployment.
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { refuseUnreproducedCustomResources } from './custom-resources.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';

type DestinationKind = 'lambda' | 'queue' | 'topic';

/** One notification configuration: the events it takes, its key filter, and where it sends them. */
export interface NotificationTarget {
  /** Its Id (the records' configurationId): the template's, else one made up, as S3 does. */
  id: string;
  /** As given: `s3:ObjectCreated:*`, `s3:ObjectRemoved:Delete`, ... */
  events: string[];
  prefix?: string;
  suffix?: string;
  kind: DestinationKind;
  arn: string;
}

export interface BucketNotifications {
  bucket: string;
  /** `Stack/LogicalId` of the resources that configured it. */
  sources: string[];
  /** EventBridgeConfiguration: every event also goes to the default bus. */
  eventBridge: boolean;
  targets: NotificationTarget[];
}

export interface S3NotificationSeeds {
  buckets: BucketNotifications[];
}

/** S3's event types ("Event notification types and destinations", Amazon S3 User Guide). */
const eventTypes = {
  served: [
    's3:ObjectCreated:*',
    's3:ObjectCreated:Put',
    's3:ObjectCreated:Post',
    's3:ObjectCreated:Copy',
    's3:ObjectCreated:CompleteMultipartUpload',
    's3:ObjectRemoved:*',
    's3:ObjectRemoved:Delete',
    's3:ObjectRemoved:DeleteMarkerCreated',
  ],
  /** Events of what the local S3 does not do (restores, replication, lifecycle, tagging, ACLs). */
  neverLocal: [
    's3:TestEvent',
    's3:ObjectRestore:*',
    's3:ObjectRestore:Post',
    's3:ObjectRestore:Completed',
    's3:ObjectRestore:Delete',
    's3:ReducedRedundancyLostObject',
    's3:Replication:*',
    's3:Replication:OperationFailedReplication',
    's3:Replication:OperationMissedThreshold',
    's3:Replication:OperationReplicatedAfterThreshold',
    's3:Replication:OperationNotTracked',
    's3:LifecycleExpiration:*',
    's3:LifecycleExpiration:Delete',
    's3:LifecycleExpiration:DeleteMarkerCreated',
    's3:LifecycleTransition',
    's3:IntelligentTiering',
    's3:ObjectTagging:*',
    's3:ObjectTagging:Put',
    's3:ObjectTagging:Delete',
    's3:ObjectAcl:Put',
  ],
};

/** Where each shape keeps its lists, events, filter rules and destinations. */
const shapes = {
  template: {
    lists: { lambda: 'LambdaConfigurations', queue: 'QueueConfigurations', topic: 'TopicConfigurations' },
    arns: { lambda: 'Function', queue: 'Queue', topic: 'Topic' },
    events: (given: Record<string, unknown>) => [given.Event],
    rules: (filter: Record<string, unknown>) => recordOf(filter.S3Key).Rules,
    eventBridge: (given: unknown) => [true, 'true'].includes(recordOf(given).EventBridgeEnabled as string | boolean),
  },
  api: {
    lists: { lambda: 'LambdaFunctionConfigurations', queue: 'QueueConfigurations', topic: 'TopicConfigurations' },
    arns: { lambda: 'LambdaFunctionArn', queue: 'QueueArn', topic: 'TopicArn' },
    events: (given: Record<string, unknown>) => (Array.isArray(given.Events) ? given.Events : [given.Events]),
    rules: (filter: Record<string, unknown>) => recordOf(filter.Key).FilterRules,
    eventBridge: (given: unknown) => given !== undefined && given !== null,
  },
};
type Shape = (typeof shapes)[keyof typeof shapes];

const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** A configuration with no Id: S3 gives it one (base64 text); here one that stays the same from start to start. */
const madeUpId = (bucket: string, at: string) => Buffer.from(`local:${bucket}:${at}`).toString('base64');

/** A configuration's prefix and suffix rules (at most one of each; S3 takes the names in either case). */
const filterOf = (rules: unknown, where: string) => {
  const filter: { prefix?: string; suffix?: string } = {};
  for (const rule of Array.isArray(rules) ? rules : []) {
    const { Name, Value } = recordOf(rule);
    const name = String(Name).toLowerCase();
    if ((name !== 'prefix' && name !== 'suffix') || typeof Value !== 'string')
      throw new UnsupportedTemplateError(`${where}: a filter rule ${JSON.stringify(rule)} that S3 refuses`);
    if (filter[name] !== undefined)
      throw new UnsupportedTemplateError(`${where}: more than one ${name} rule, which S3 refuses`);
    filter[name] = Value;
  }
  return filter;
};

const targetOf = (given: unknown, kind: DestinationKind, shape: Shape, at: { bucket: string; where: string }) => {
  const configuration = recordOf(given);
  const { where } = at;
  const events = shape.events(configuration).map(String);
  const unknown = events.find((event) => ![...eventTypes.served, ...eventTypes.neverLocal].includes(event));
  if (unknown !== undefined)
    throw new UnsupportedTemplateError(`${where}: the event type ${unknown}, which S3 does not have`);
  const arn = configuration[shape.arns[kind]];
  if (typeof arn !== 'string') throw new UnsupportedTemplateError(`${where}: no ${shape.arns[kind]}`);
  // "Event notification types and destinations": standard queues and topics only, FIFO ones are not allowed.
  if (kind !== 'lambda' && arn.endsWith('.fifo'))
    throw new UnsupportedTemplateError(`${where}: ${arn} is a FIFO ${kind}, which S3 does not send notifications to`);
  const id = typeof configuration.Id === 'string' ? configuration.Id : madeUpId(at.bucket, where);
  return { id, events, ...filterOf(shape.rules(recordOf(configuration.Filter)), where), kind, arn };
};

/** The configurations of `given` (a NotificationConfiguration, evaluated) in `shape`. */
const configurationOf = (given: unknown, shape: Shape, bucket: string, source: string) => {
  const configuration = recordOf(given);
  const targets = (['lambda', 'queue', 'topic'] as const).flatMap((kind) => {
    const list = configuration[shape.lists[kind]] ?? [];
    if (!Array.isArray(list)) throw new UnsupportedTemplateError(`${source}: its ${shape.lists[kind]} is not a list`);
    return list.map((item, index) =>
      targetOf(item, kind, shape, { bucket, where: `${source}: ${shape.lists[kind]}[${index}]` }),
    );
  });
  return { eventBridge: shape.eventBridge(configuration.EventBridgeConfiguration), targets };
};

/** The events two configurations both take (`*` covering its kind's). */
const sharedEvent = (a: string[], b: string[]) => {
  const covers = (x: string, y: string) => x === y || (x.endsWith(':*') && y.startsWith(x.slice(0, -1)));
  return a.some((x) => b.some((y) => covers(x, y) || covers(y, x)));
};

/**
 * Refuses two configurations of a bucket that take one event of the same key: "Configurations overlap" (S3 refuses
 * them: "Configuring event notifications using object key name filtering", Amazon S3 User Guide).
 */
const refuseOverlaps = ({ bucket, targets, sources }: BucketNotifications) => {
  const overlap = (x?: string, y?: string, at: 'start' | 'end' = 'start') =>
    x === undefined ||
    y === undefined ||
    (at === 'start' ? x.startsWith(y) || y.startsWith(x) : x.endsWith(y) || y.endsWith(x));
  targets.forEach((a, index) => {
    const b = targets
      .slice(index + 1)
      .find(
        (b) => sharedEvent(a.events, b.events) && overlap(a.prefix, b.prefix) && overlap(a.suffix, b.suffix, 'end'),
      );
    if (b)
      throw new UnsupportedTemplateError(
        `${sources.join(', ')}: the notifications ${a.id} and ${b.id} of bucket ${bucket} overlap (an event type and keys in common), which S3 refuses`,
      );
  });
};

interface Reading {
  context: ValueContext;
  id: string;
  resource: CfnResource;
}

const sourceOf = ({ context, id }: Reading) => `${context.stackName}/${id}`;

const textOf = (value: unknown, reading: Reading, property: string) => {
  const evaluated = evaluatedProperty(value, reading.context, sourceOf(reading), property);
  if (typeof evaluated !== 'string')
    throw new UnsupportedTemplateError(`${sourceOf(reading)}: its ${property} is not a string`);
  return evaluated;
};

/** A bucket's own NotificationConfiguration. */
const bucketConfiguration = (reading: Reading) => {
  const source = sourceOf(reading);
  const bucket = textOf({ Ref: reading.id }, reading, 'name (Ref)');
  const given = evaluatedProperty(
    props(reading.resource).NotificationConfiguration,
    reading.context,
    source,
    'NotificationConfiguration',
  );
  return { bucket, source, managed: true, ...configurationOf(given, shapes.template, bucket, source) };
};

/** A `Custom::S3BucketNotifications`: what its handler puts on its bucket. */
const customConfiguration = (reading: Reading) => {
  const source = sourceOf(reading);
  const properties = props(reading.resource);
  const bucket = textOf(properties.BucketName, reading, 'BucketName');
  const given = evaluatedProperty(
    properties.NotificationConfiguration,
    reading.context,
    source,
    'NotificationConfiguration',
  );
  // The handler reads `Managed` as text ('true' when absent); CloudFormation passes the template's boolean as text.
  const managed = String(evaluatedProperty(properties.Managed, reading.context, source, 'Managed') ?? 'true');
  return {
    bucket,
    source,
    managed: managed.toLowerCase() === 'true',
    ...configurationOf(given, shapes.api, bucket, source),
  };
};

type Configuration = ReturnType<typeof bucketConfiguration>;

/** Puts `configuration` on its bucket as the handler does: managed replaces, unmanaged adds to what is there. */
const apply = (buckets: Map<string, BucketNotifications>, configuration: Configuration) => {
  const { bucket, source, managed, eventBridge, targets } = configuration;
  const had = buckets.get(bucket);
  if (managed || !had) {
    buckets.set(bucket, { bucket, sources: [source], eventBridge, targets });
    return;
  }
  buckets.set(bucket, {
    bucket,
    sources: [...had.sources, source],
    eventBridge: eventBridge || had.eventBridge,
    targets: [...had.targets, ...targets],
  });
};

const readingsOf = (stacks: ValueContext[], type: string) =>
  stacks.flatMap((context) => ofType(context.resources, type).map(([id, resource]) => ({ context, id, resource })));

/**
 * Every bucket's notifications in `stacks`: the buckets' own, then the CDK's managed ones (which replace them), then
 * its unmanaged ones (which add). Refuses a custom resource the runner does not reproduce (custom-resources.ts);
 * `notices` gets the event types that never happen locally.
 */
export const s3NotificationSeedsOf = (stacks: ValueContext[], notices: string[]): S3NotificationSeeds => {
  refuseUnreproducedCustomResources(stacks);
  const own = readingsOf(stacks, 'AWS::S3::Bucket')
    .filter(({ resource }) => props(resource).NotificationConfiguration !== undefined)
    .map(bucketConfiguration);
  const custom = readingsOf(stacks, 'Custom::S3BucketNotifications').map(customConfiguration);
  const buckets = new Map<string, BucketNotifications>();
  for (const configuration of [...own, ...custom.filter((c) => c.managed), ...custom.filter((c) => !c.managed)])
    apply(buckets, configuration);
  for (const notifications of buckets.values()) {
    refuseOverlaps(notifications);
    for (const { id, events } of notifications.targets) {
      const never = events.filter((event) => eventTypes.neverLocal.includes(event));
      if (never.length > 0)
        notices.push(
          `${notifications.sources.join(', ')}: bucket ${notifications.bucket}'s notification ${id} takes ${never.join(', ')}, which the local S3 never sends`,
        );
    }
  }
  return { buckets: [...buckets.values()] };
};
