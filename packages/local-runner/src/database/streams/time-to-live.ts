// Time to Live, which dynalite does not serve (its DescribeTimeToLive says DISABLED, its UpdateTimeToLive is unknown):
// UpdateTimeToLive and DescribeTimeToLive answered here, the setting kept under `ttl~<table>` with the id of the
// table it was made for (a table deleted and made again starts without one), and a sweep, every few seconds, that
// deletes the expired items. "Using time to live (TTL) in DynamoDB"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html): only a Number attribute in epoch
// seconds counts, and not one more than five years in the past; an expired item is deleted "typically within a few
// days" on AWS, here within a sweep's interval. Each deletion is written as a REMOVE stream record whose userIdentity
// names the service ("DynamoDB Streams and Time to Live"), and takes the item's lock, so a write meanwhile that
// moves its time into the future keeps it.
import deleteItem from 'dynalite/actions/deleteItem.js';
import { DatabaseError } from './database-error.ts';
import { keepingStore, type Operation } from './kept-writes.ts';
import { type Item, keysOf } from './stream-log.ts';
import { type ItemChange, read, type Streams, type TableRecord } from './streams.ts';

type Input = Record<string, unknown>;

interface TtlSetting {
  AttributeName: string;
  TableId: string;
}

const ttlKey = (table: string) => `ttl~${table}`;
const fiveYearsMs = 5 * 365 * 24 * 60 * 60 * 1000;

const tableOf = async (streams: Streams, input: Input) => {
  const name = String(input.TableName ?? '');
  const table = await streams.table(name);
  if (!table)
    throw new DatabaseError('ResourceNotFoundException', `Requested resource not found: Table: ${name} not found`);
  return table;
};

/** The table's TTL setting, if it has one (one made for an earlier table of its name does not count). */
const settingOf = async (streams: Streams, table: TableRecord) => {
  const setting = await read<TtlSetting>(streams.store, ttlKey(table.TableName));
  return setting?.TableId === table.TableId ? setting : undefined;
};

export const describeTimeToLive = async (streams: Streams, input: Input) => {
  const setting = await settingOf(streams, await tableOf(streams, input));
  return {
    TimeToLiveDescription: setting
      ? { TimeToLiveStatus: 'ENABLED', AttributeName: setting.AttributeName }
      : { TimeToLiveStatus: 'DISABLED' },
  };
};

export const updateTimeToLive = async (streams: Streams, input: Input) => {
  const table = await tableOf(streams, input);
  const { Enabled, AttributeName } = (input.TimeToLiveSpecification ?? {}) as {
    Enabled?: unknown;
    AttributeName?: unknown;
  };
  if (typeof Enabled !== 'boolean' || typeof AttributeName !== 'string' || AttributeName === '')
    throw new DatabaseError(
      'ValidationException',
      'TimeToLiveSpecification needs Enabled (true or false) and an AttributeName',
    );
  const setting = await settingOf(streams, table);
  if (Enabled && setting) throw new DatabaseError('ValidationException', 'TimeToLive is already enabled');
  if (!Enabled && !setting) throw new DatabaseError('ValidationException', 'TimeToLive is already disabled');
  const key = ttlKey(table.TableName);
  await streams.store.db.batch([
    Enabled ? { type: 'put', key, value: { AttributeName, TableId: table.TableId } } : { type: 'del', key },
  ]);
  return { TimeToLiveSpecification: { Enabled, AttributeName } };
};

/** Whether `item` has expired by its attribute `name` at `now` (an epoch-seconds Number, within five years). */
const expired = (item: Item | undefined, name: string, now: number) => {
  const value = item?.[name]?.N;
  if (typeof value !== 'string') return false;
  const at = Number(value) * 1000;
  return Number.isFinite(at) && at < now && at >= now - fiveYearsMs;
};

/** Deletes the item at `key` if it is still expired, under its lock, with dynalite's DeleteItem (its indexes too). */
const deleteExpired = (streams: Streams, table: TableRecord, key: string, name: string, now: number) =>
  new Promise<void>((resolve, reject) => {
    const itemDb = streams.store.getItemDb(table.TableName);
    itemDb.lock(key, (release) => {
      const done = release((error?: unknown) => (error ? reject(error) : resolve()));
      itemDb.get(key, (error, value) => {
        const item = value as Item | undefined;
        if (error && error.name !== 'NotFoundError') return done(error);
        if (!expired(item, name, now)) return done();
        const changes: ItemChange[] = [];
        const indexes: Operation[] = [];
        const store = keepingStore(streams, table, changes, indexes);
        deleteItem(store, { TableName: table.TableName, Key: keysOf(item as Item, table.KeySchema) }, (failed) => {
          if (failed) return done(failed);
          const byService = changes.map((change) => ({ ...change, byService: true }));
          streams.writeChanges(byService, indexes).then(() => done(), done);
        });
      });
    });
  });

/** Deletes every expired item of the tables with TTL enabled; resolves with how many of each table's it looked at. */
export const sweepExpired = async (streams: Streams, now = Date.now()) => {
  const swept: { table: string; items: number }[] = [];
  for await (const [key, value] of streams.store.db.iterator({ gte: 'ttl~', lt: 'ttl~\xff' })) {
    const table = await streams.table(key.slice('ttl~'.length));
    const setting = value as TtlSetting;
    if (!table || table.TableId !== setting.TableId || table.TableStatus !== 'ACTIVE') continue;
    const prefix = `item-${table.TableName}~`;
    const keys: string[] = [];
    for await (const [itemKey, item] of streams.store.db.iterator({ gte: prefix, lt: `${prefix}\xff` }))
      if (expired(item as Item, setting.AttributeName, now)) keys.push(itemKey.slice(prefix.length));
    for (const itemKey of keys) await deleteExpired(streams, table, itemKey, setting.AttributeName, now);
    if (keys.length > 0) swept.push({ table: table.TableName, items: keys.length });
  }
  return swept;
};
