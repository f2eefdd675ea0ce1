// A table's stream setting, which dynalite drops (dynalite #66): CreateTable's StreamSpecification is noted before the
// request goes on to dynalite, and attached when dynalite stores the table (streams.ts); UpdateTable's is done here,
// as its own operation ("UpdateTable", DynamoDB API Reference: "You can only perform one of the following operations
// at once: ... Enable or disable DynamoDB Streams on the table").
import { DatabaseError } from './database-error.ts';
import { streamLabel, type ViewType, viewTypes } from './stream-log.ts';
import type { NewStream, Streams, TableRecord } from './streams.ts';

type Input = Record<string, unknown>;

/**
 * The header the runner's own CreateTable and UpdateTable of a template's table send (database.ts): the stream's
 * label, the fixed one of templates' streams, whose ARN `Fn::GetAtt StreamArn` gives before the database starts.
 */
export const streamLabelHeader = 'x-local-runner-stream-label';

/** The stream StreamSpecification asks to enable; undefined when it asks none (or to disable). */
export const requestedStream = (input: Input, label: string | undefined): NewStream | undefined => {
  const spec = input.StreamSpecification;
  if (spec === undefined) return undefined;
  const { StreamEnabled, StreamViewType } = (spec ?? {}) as { StreamEnabled?: unknown; StreamViewType?: unknown };
  if (typeof StreamEnabled !== 'boolean')
    throw new DatabaseError('ValidationException', 'StreamSpecification.StreamEnabled is required: true or false');
  if (!StreamEnabled) return undefined;
  if (!viewTypes.includes(StreamViewType as ViewType))
    throw new DatabaseError(
      'ValidationException',
      `StreamSpecification.StreamViewType must be one of ${viewTypes.join(', ')} when StreamEnabled is true`,
    );
  return { viewType: StreamViewType as ViewType, label: label ?? streamLabel(new Date()) };
};

/** UpdateTable's other changes: with a stream's, refused, as AWS takes one at once. */
const otherUpdates = [
  'ProvisionedThroughput',
  'BillingMode',
  'GlobalSecondaryIndexUpdates',
  'SSESpecification',
  'ReplicaUpdates',
];

/** Holds the table's lock (dynalite's, which its own UpdateTable takes) while `task` runs. */
const underTableLock = <T>(streams: Streams, name: string, task: () => Promise<T>) =>
  new Promise<T>((resolve, reject) =>
    streams.store.tableDb.lock(name, (release) => {
      const done = release(() => undefined);
      task().then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    }),
  );

/** UpdateTable with a StreamSpecification: enables a new stream, or disables the table's. */
export const updateTableStream = (streams: Streams, input: Input, label: string | undefined) => {
  const name = String(input.TableName ?? '');
  const others = otherUpdates.filter((member) => input[member] !== undefined);
  if (others.length > 0)
    throw new DatabaseError(
      'ValidationException',
      `Enabling or disabling a stream is an UpdateTable of its own: ${others.join(', ')} must be changed in another`,
    );
  const stream = requestedStream(input, label);
  return underTableLock(streams, name, async () => {
    const stored = await streams.table(name);
    // A copy: the stored description (kept in memory, streams.ts) changes only once written.
    const table = stored && structuredClone(stored);
    if (!table)
      throw new DatabaseError('ResourceNotFoundException', `Requested resource not found: Table: ${name} not found`);
    const enabled = table.StreamSpecification?.StreamEnabled === true;
    if (stream && enabled)
      throw new DatabaseError('ValidationException', `Table already has an enabled stream: ${table.LatestStreamArn}`);
    if (!stream && !enabled) throw new DatabaseError('ValidationException', 'Table has no enabled stream to disable');
    if (stream) await streams.enable(table, stream);
    else {
      table.StreamSpecification = { StreamEnabled: false };
      await streams.disable(table, false);
    }
    return { TableDescription: table satisfies TableRecord };
  });
};
