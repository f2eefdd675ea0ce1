// dynalite ships no types; this is the part of its API the project uses: its server, and (for the streams,
// streams/) its store, the store's validations and its write actions, which the database process wraps.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB folder; in memory when omitted. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}

/** An item (or key) in DynamoDB's JSON: attribute name to typed value (`{ S: 'x' }`). */
type DynaliteItem = Record<string, Record<string, unknown>>;
type DynaliteCallback<T = void> = (error: DynaliteError | null | undefined, value?: T) => void;
/** An error dynalite answers with: its status and its body (`__type`, `message`); a store error has neither. */
interface DynaliteError extends Error {
  statusCode?: number;
  body?: { __type: string; message?: string };
}
/** The `lock` package's lock: `exec` runs once `key` (or every key of an array) is free; `release(done)` frees it. */
type DynaliteLock = (
  key: string | string[],
  exec: (release: <A extends unknown[]>(done: (...args: A) => void) => (...args: A) => void) => void,
) => void;
interface DynaliteSubDb {
  get(key: string, callback: DynaliteCallback<unknown>): void;
  put(key: string, value: unknown, callback: DynaliteCallback): void;
  del(key: string, callback: DynaliteCallback): void;
  lock: DynaliteLock;
}
interface DynaliteLevel {
  get(key: string): Promise<unknown>;
  batch(operations: ({ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string })[]): Promise<void>;
  iterator(options?: Record<string, unknown>): AsyncIterableIterator<[string, unknown]>;
}
interface DynaliteStore {
  options: Record<string, unknown>;
  /** The LevelDB (JSON values) every sub-database is a prefix of. */
  db: DynaliteLevel;
  tableDb: DynaliteSubDb & { awsRegion: string; awsAccountId: string };
  getItemDb(name: string): DynaliteSubDb;
  getIndexDb(type: string, table: string, index: string): DynaliteSubDb;
  getTable(name: string, checkStatus: boolean, callback: DynaliteCallback<Record<string, unknown>>): void;
}

declare module 'dynalite/db/index.js' {
  const db: {
    create(options: Record<string, unknown>): DynaliteStore;
    createKey(item: DynaliteItem, table: Record<string, unknown>): string;
    checkConditional(data: Record<string, unknown>, existing: DynaliteItem | undefined): DynaliteError | null;
  };
  export default db;
}

declare module 'dynalite/validations/index.js' {
  const validations: {
    checkTypes(data: unknown, types: unknown): Record<string, unknown>;
    checkValidations(data: Record<string, unknown>, types: unknown, custom: unknown, store: DynaliteStore): void;
  };
  export default validations;
}

declare module 'dynalite/validations/*.js' {
  const validation: { types: unknown; custom: unknown };
  export = validation;
}

declare module 'dynalite/actions/*.js' {
  const action: (
    store: DynaliteStore,
    data: Record<string, unknown>,
    callback: DynaliteCallback<Record<string, unknown>>,
  ) => void;
  export = action;
}
