// The store as dynalite's own actions see it when the database process runs them itself (a transaction's, an
// expired item's deletion): the item already locked by the caller, and their writes (the item's, its indexes')
// kept, to be written in one batch with the stream records (streams.ts), instead of made.
import type { Item } from './stream-log.ts';
import type { ItemChange, Streams, TableRecord } from './streams.ts';

export type Operation = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

/** The store as dynalite's actions see it here: the item already locked, its writes kept in `changes` and `indexes`. */
export const keepingStore = (streams: Streams, table: TableRecord, changes: ItemChange[], indexes: Operation[]) => {
  const { store } = streams;
  const itemDb = store.getItemDb(table.TableName);
  const kept: DynaliteSubDb = {
    get: (key, callback) => itemDb.get(key, callback),
    lock: (_key, exec) => exec((done) => done),
    put: (key, value, callback) => {
      changes.push({ table, key, after: value as Item });
      setImmediate(callback, null);
    },
    del: (key, callback) => {
      changes.push({ table, key, after: undefined });
      setImmediate(callback, null);
    },
  };
  const indexDb = (type: string, tableName: string, index: string): DynaliteSubDb => {
    const prefix = `index-${type.toLowerCase()}~${tableName}~${index}~`;
    return {
      ...kept,
      put: (key, value, callback) => {
        indexes.push({ type: 'put', key: `${prefix}${key}`, value });
        setImmediate(callback, null);
      },
      del: (key, callback) => {
        indexes.push({ type: 'del', key: `${prefix}${key}` });
        setImmediate(callback, null);
      },
    };
  };
  return { ...store, getItemDb: () => kept, getIndexDb: indexDb } satisfies DynaliteStore;
};
