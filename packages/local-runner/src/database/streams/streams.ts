// DynamoDB Streams in the database process: dynalite's store wrapped so that each change of an item of a table whose
// stream is enabled is written with its stream record in one LevelDB batch, the images read under the item's lock
// (dynalite's actions hold it from their read to the callback of their write, which is this one). Tables keep their
// StreamSpecification, LatestStreamArn and LatestStreamLabel in their stored description, so DescribeTable shows them.
import { randomUUID } from 'node:crypto';
import { localAws } from '../../app/local-aws.ts';
import {
  changes,
  type Item,
  keysOf,
  metaKey,
  metaPrefix,
  recordKey,
  recordPrefix,
  retentionMs,
  type StreamMeta,
  type StreamRecord,
  sequenceKey,
  sequenceText,
  shardIdOf,
  type ViewType,
} from './stream-log.ts';

type Operation = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

/** A table's description as dynalite stores it, with the stream's fields this module adds. */
export interface TableRecord {
  TableName: string;
  TableArn: string;
  /** dynalite's id of this table, a new one each time a table of the name is created. */
  TableId: string;
  TableStatus: string;
  KeySchema: StreamMeta['KeySchema'];
  StreamSpecification?: { StreamEnabled: boolean; StreamViewType?: ViewType };
  LatestStreamArn?: string;
  LatestStreamLabel?: string;
}

/** A stream to enable: its view, and its label (the time it is enabled, or the template's fixed one). */
export interface NewStream {
  viewType: ViewType;
  label: string;
}

/** An item's change within a write: its table, its key as dynalite keys it, the item after (none: deleted). */
export interface ItemChange {
  table: TableRecord;
  key: string;
  after: Item | undefined;
  /** A deletion DynamoDB made itself (an expired item): the record names the service. */
  byService?: boolean;
}

const itemKey = (tableName: string, key: string) => `item-${tableName}~${key}`;
const tableKey = (tableName: string) => `table~${tableName}`;

/** The store's value at `key`; undefined when there is none. */
export const read = async <T>(store: DynaliteStore, key: string): Promise<T | undefined> => {
  try {
    return ((await store.db.get(key)) ?? undefined) as T | undefined;
  } catch (error) {
    if ((error as { code?: string }).code === 'LEVEL_NOT_FOUND') return undefined;
    throw error;
  }
};

export class Streams {
  readonly store: DynaliteStore;
  private last: bigint;
  /** Record writes one after another: a reader never sees a number before a smaller one is written. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Told each stream a write appended records to, once they are written (process.ts tells the runner). */
  onAppended: (streamArn: string) => void = () => undefined;
  private readonly tables = new Map<string, TableRecord | undefined>();
  private generation = 0;
  /** The streams CreateTable asked for, by table name, until dynalite stores the table. */
  private readonly creating = new Map<string, NewStream>();

  private constructor(store: DynaliteStore, last: bigint) {
    this.store = store;
    this.last = last;
  }

  static async open(store: DynaliteStore) {
    const stored = await read<string>(store, sequenceKey);
    const streams = new Streams(store, stored === undefined ? 0n : BigInt(stored));
    streams.wrapStore();
    return streams;
  }

  /** The last sequence number given. */
  get lastSequence() {
    return sequenceText(this.last);
  }

  /** Runs `task` after every write before it. */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * The table's stored description. Every item write asks it, so it is kept in memory, forgotten at each write of a
   * table's description (this process is its only writer); a read that began before a write is not kept.
   */
  async table(name: string) {
    if (this.tables.has(name)) return this.tables.get(name);
    const generation = this.generation;
    const table = await read<TableRecord>(this.store, tableKey(name));
    if (generation === this.generation) this.tables.set(name, table);
    return table;
  }

  private forgetTables() {
    this.generation += 1;
    this.tables.clear();
  }

  meta(arn: string) {
    return read<StreamMeta>(this.store, metaKey(arn));
  }

  /** Every stream, in ARN order. */
  async metas(): Promise<StreamMeta[]> {
    const metas: StreamMeta[] = [];
    for await (const [, value] of this.store.db.iterator({ gte: metaPrefix, lt: `${metaPrefix}\xff` }))
      metas.push(value as StreamMeta);
    return metas;
  }

  /** The stream CreateTable of `tableName` asks for, attached when dynalite stores the new table. */
  expectCreate(tableName: string, stream: NewStream) {
    this.creating.set(tableName, stream);
  }

  forgetCreate(tableName: string) {
    this.creating.delete(tableName);
  }

  /**
   * Writes the changes of one request (a transaction's several) with their stream records, in one batch. The old
   * images are read here: the caller holds every item's lock.
   */
  writeChanges(changes: ItemChange[], also: Operation[] = []): Promise<void> {
    return this.serial(async () => {
      const operations: Operation[] = [...also];
      const now = Date.now();
      const appended = new Set<string>();
      for (const change of changes) {
        const { table, key, after } = change;
        const name = table.TableName;
        operations.push(
          after ? { type: 'put', key: itemKey(name, key), value: after } : { type: 'del', key: itemKey(name, key) },
        );
        const arn = table.StreamSpecification?.StreamEnabled ? table.LatestStreamArn : undefined;
        const meta = arn === undefined ? undefined : await this.meta(arn);
        if (!meta) continue;
        const before = await read<Item>(this.store, itemKey(name, key));
        if (!changesItem(before, after)) continue;
        this.last += 1n;
        const record = streamRecord(meta, before, after, sequenceText(this.last), now, change.byService);
        operations.push({ type: 'put', key: recordKey(arn as string, record.dynamodb.SequenceNumber), value: record });
        appended.add(arn as string);
      }
      operations.push({ type: 'put', key: sequenceKey, value: this.last.toString() });
      await this.store.db.batch(operations);
      for (const arn of appended) this.onAppended(arn);
    });
  }

  /** Stores `table` with the stream `stream` enabled on it (its description and the stream's, one batch). */
  enable(table: TableRecord, stream: NewStream, also: Operation[] = []) {
    return this.serial(async () => {
      // The local region and account (those of Fn::GetAtt StreamArn), whatever AWS_REGION dynalite's TableArn took.
      const arn = `arn:${localAws.partition}:dynamodb:${localAws.region}:${localAws.accountId}:table/${table.TableName}/stream/${stream.label}`;
      const createdAt = Date.now();
      table.StreamSpecification = { StreamEnabled: true, StreamViewType: stream.viewType };
      table.LatestStreamArn = arn;
      table.LatestStreamLabel = stream.label;
      const meta: StreamMeta = {
        StreamArn: arn,
        StreamLabel: stream.label,
        StreamViewType: stream.viewType,
        TableName: table.TableName,
        KeySchema: table.KeySchema,
        createdAt,
        shardId: shardIdOf(arn, createdAt),
        startSequence: sequenceText(this.last + 1n),
      };
      // A stream of the same ARN before (a template table deleted and made again): its records go with it.
      const stale = await this.recordKeys(arn);
      await this.store.db.batch([
        ...also,
        ...stale.map((key) => ({ type: 'del' as const, key })),
        { type: 'put', key: tableKey(table.TableName), value: table },
        { type: 'put', key: metaKey(arn), value: meta },
      ]);
      this.forgetTables();
    });
  }

  /** Stores `table` with its stream disabled (UpdateTable), or as it is being deleted (DeleteTable). */
  disable(table: TableRecord, clearSpecification: boolean) {
    return this.serial(async () => {
      const arn = table.LatestStreamArn;
      const meta = arn === undefined ? undefined : await this.meta(arn);
      if (clearSpecification) delete table.StreamSpecification;
      const operations: Operation[] = [{ type: 'put', key: tableKey(table.TableName), value: table }];
      if (meta && meta.disabledAt === undefined) {
        const disabled = { ...meta, disabledAt: Date.now(), endSequence: sequenceText(this.last) };
        operations.push({ type: 'put', key: metaKey(meta.StreamArn), value: disabled });
      }
      await this.store.db.batch(operations);
      this.forgetTables();
    });
  }

  async recordKeys(arn: string) {
    const keys: string[] = [];
    for await (const [key] of this.store.db.iterator({ gte: recordPrefix(arn), lt: `${recordPrefix(arn)}\xff` }))
      keys.push(key);
    return keys;
  }

  /** Deletes the records older than the retention, and the streams disabled longer than it with theirs. */
  async trim(now = Date.now()) {
    for (const meta of await this.metas()) {
      const gone = meta.disabledAt !== undefined && meta.disabledAt < now - retentionMs;
      const old: string[] = [];
      const prefix = recordPrefix(meta.StreamArn);
      for await (const [key, value] of this.store.db.iterator({ gte: prefix, lt: `${prefix}\xff` })) {
        const created = (value as StreamRecord).dynamodb.ApproximateCreationDateTime * 1000;
        if (!gone && created >= now - retentionMs) break;
        old.push(key);
      }
      const operations: Operation[] = old.map((key) => ({ type: 'del', key }));
      if (gone) operations.push({ type: 'del', key: metaKey(meta.StreamArn) });
      if (operations.length > 0) await this.store.db.batch(operations);
    }
  }

  /**
   * Wraps the store: an item database's put and del (dynalite's PutItem, UpdateItem, DeleteItem and BatchWriteItem
   * write through them, holding the item's lock) go through writeChanges when the table streams; the table
   * database's put attaches the stream CreateTable asked for, and disables the stream of a table being deleted.
   */
  private wrapStore() {
    const { store } = this;
    const wrapped = new WeakSet<DynaliteSubDb>();
    const getItemDb = store.getItemDb.bind(store);
    store.getItemDb = (name) => {
      const itemDb = getItemDb(name);
      if (wrapped.has(itemDb)) return itemDb;
      wrapped.add(itemDb);
      const { put, del } = itemDb;
      itemDb.put = (key, value, callback) =>
        this.writeIfStreaming(name, key, value as Item, () => put.call(itemDb, key, value, callback), callback);
      itemDb.del = (key, callback) =>
        this.writeIfStreaming(name, key, undefined, () => del.call(itemDb, key, callback), callback);
      return itemDb;
    };
    const tableDb = store.tableDb;
    const { put: putTable, del: deleteTable } = tableDb;
    tableDb.del = (name, callback) => {
      this.forgetTables();
      deleteTable.call(tableDb, name, (error) => {
        this.forgetTables();
        callback(error);
      });
    };
    tableDb.put = (name, value, callback) => {
      this.forgetTables();
      const table = value as TableRecord;
      const stream = this.creating.get(name);
      if (table.TableStatus === 'CREATING' && stream && !table.LatestStreamArn) {
        this.creating.delete(name);
        this.enable(table, stream).then(() => callback(null), callback);
      } else if (table.TableStatus === 'DELETING' && table.StreamSpecification?.StreamEnabled) {
        this.disable(table, true).then(() => callback(null), callback);
      } else
        putTable.call(tableDb, name, value, (error) => {
          this.forgetTables();
          callback(error);
        });
    };
  }

  private writeIfStreaming(
    name: string,
    key: string,
    after: Item | undefined,
    plain: () => void,
    callback: DynaliteCallback,
  ) {
    this.table(name).then((table) => {
      if (!table?.StreamSpecification?.StreamEnabled) return plain();
      this.writeChanges([{ table, key, after }]).then(() => callback(null), callback);
    }, callback);
  }
}

/** Whether the change writes a record: an item that changed (a delete of no item, a put of the same item, none). */
const changesItem = (before: Item | undefined, after: Item | undefined) =>
  (before !== undefined || after !== undefined) && changes(before, after);

const itemBytes = (item: Item | undefined) =>
  item === undefined
    ? 0
    : Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
/** An attribute value's size as DynamoDB counts it ("Item sizes and formats"), near enough for SizeBytes. */
const valueBytes = (value: Record<string, unknown>): number => {
  const [type, member] = Object.entries(value)[0] ?? ['NULL', true];
  if (type === 'S') return Buffer.byteLength(member as string);
  if (type === 'N') return Math.ceil((member as string).replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
  if (type === 'B') return Buffer.from(member as string, 'base64').length;
  if (type === 'SS' || type === 'NS' || type === 'BS')
    return (member as string[]).reduce((sum, one) => sum + valueBytes({ [type.slice(0, 1)]: one }), 0);
  if (type === 'M') return 3 + itemBytes(member as Item);
  if (type === 'L') return 3 + (member as Record<string, unknown>[]).reduce((sum, one) => sum + valueBytes(one), 0);
  return 1;
};

/** The record of an item's change, with the images its stream's view keeps. */
const streamRecord = (
  meta: StreamMeta,
  before: Item | undefined,
  after: Item | undefined,
  sequence: string,
  now: number,
  byService = false,
): StreamRecord => {
  const view = meta.StreamViewType;
  const Keys = keysOf((after ?? before) as Item, meta.KeySchema);
  const NewImage = after && (view === 'NEW_IMAGE' || view === 'NEW_AND_OLD_IMAGES') ? after : undefined;
  const OldImage = before && (view === 'OLD_IMAGE' || view === 'NEW_AND_OLD_IMAGES') ? before : undefined;
  return {
    eventID: randomUUID().replaceAll('-', ''),
    eventName: before === undefined ? 'INSERT' : after === undefined ? 'REMOVE' : 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: meta.StreamArn.split(':')[3] as string,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(now / 1000),
      Keys,
      ...(NewImage && { NewImage }),
      ...(OldImage && { OldImage }),
      SequenceNumber: sequence,
      SizeBytes: itemBytes(Keys) + itemBytes(NewImage) + itemBytes(OldImage),
      StreamViewType: view,
    },
    ...(byService && { userIdentity: { PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' } }),
  };
};
