// TransactWriteItems, which dynalite does not serve ("TransactWriteItems", DynamoDB API Reference): up to 100 Put,
// Update, Delete and ConditionCheck actions on distinct items, all or none. Each action is checked and computed by
// dynalite's own PutItem, UpdateItem and DeleteItem (its validations, conditions, update expressions and index
// entries), run against a view of the store whose writes are kept instead of made; every item's lock is held from
// the first read to the one batch that writes them all, with their stream records (streams.ts). TransactGetItems
// (transact-get.ts) takes the same locks.
import deleteItem from 'dynalite/actions/deleteItem.js';
import putItem from 'dynalite/actions/putItem.js';
import updateItem from 'dynalite/actions/updateItem.js';
import db from 'dynalite/db/index.js';
import deleteItemRules from 'dynalite/validations/deleteItem.js';
import validations from 'dynalite/validations/index.js';
import putItemRules from 'dynalite/validations/putItem.js';
import updateItemRules from 'dynalite/validations/updateItem.js';
import { DatabaseError } from './database-error.ts';
import { keepingStore, type Operation } from './kept-writes.ts';
import { onceByToken } from './request-tokens.ts';
import type { ItemChange, Streams, TableRecord } from './streams.ts';

type Input = Record<string, unknown>;
type Kind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

const kinds: Kind[] = ['Put', 'Update', 'Delete', 'ConditionCheck'];
const rulesOf = {
  Put: putItemRules,
  Update: updateItemRules,
  Delete: deleteItemRules,
  ConditionCheck: deleteItemRules,
};
const actionOf = { Put: putItem, Update: updateItem, Delete: deleteItem };

interface Action {
  kind: Kind;
  data: Record<string, unknown>;
  table: TableRecord;
  key: string;
}

export const validation = (message: string) => new DatabaseError('ValidationException', message);

/** One of TransactItems, checked by the rules of the single-item operation it is (ConditionCheck: DeleteItem's). */
const checked = (streams: Streams, entry: unknown): { kind: Kind; data: Record<string, unknown> } => {
  const present = kinds.filter((kind) => (entry as Input | null)?.[kind] !== undefined);
  if (present.length !== 1)
    throw validation('Each TransactItems member must have exactly one of Put, Update, Delete, ConditionCheck');
  const kind = present[0] as Kind;
  const rules = rulesOf[kind];
  const data = validations.checkTypes({ ...((entry as Input)[kind] as Input) }, rules.types);
  validations.checkValidations(data, rules.types, rules.custom, streams.store);
  if (kind === 'ConditionCheck' && typeof data.ConditionExpression !== 'string')
    throw validation('ConditionCheck requires a ConditionExpression');
  return { kind, data };
};

export const tableOf = (streams: Streams, name: string) =>
  new Promise<TableRecord>((resolve, reject) =>
    streams.store.getTable(name, true, (error, table) =>
      error ? reject(error) : resolve(table as unknown as TableRecord),
    ),
  );

/** Refuses a transaction naming an item twice (ValidationException, as DynamoDB answers it). */
export const refuseSameItem = (actions: Pick<Action, 'table' | 'key'>[]) => {
  const items = new Set(actions.map(({ table, key }) => `${table.TableName}\u0000${key}`));
  if (items.size < actions.length)
    throw validation('Transaction request cannot include multiple operations on one item');
};

/** Takes every item's lock (dynalite's, per table), in one order; resolves with what releases them all. */
export const lockAll = async (streams: Streams, actions: Pick<Action, 'table' | 'key'>[]) => {
  const releases: (() => void)[] = [];
  const byTable = Map.groupBy(actions, ({ table }) => table.TableName);
  for (const name of [...byTable.keys()].sort()) {
    const keys = (byTable.get(name) ?? []).map(({ key }) => key).sort();
    await new Promise<void>((resolve) =>
      streams.store.getItemDb(name).lock(keys, (release) => {
        releases.push(release(() => undefined));
        resolve();
      }),
    );
  }
  return () => {
    for (const release of releases) release();
  };
};

/** Runs one action against the keeping store; resolves with its cancellation reason's code. */
const run = (streams: Streams, action: Action, changes: ItemChange[], indexes: Operation[]) =>
  new Promise<{ Code: string; Message?: string }>((resolve, reject) => {
    const answer = (error: DynaliteError | null | undefined) => {
      if (!error) return resolve({ Code: 'None' });
      const type = error.body?.__type.split('#')[1];
      if (type === 'ConditionalCheckFailedException')
        return resolve({ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' });
      if (type === 'ValidationException')
        return resolve({ Code: 'ValidationError', Message: error.body?.message ?? '' });
      reject(error);
    };
    if (action.kind === 'ConditionCheck') {
      streams.store.getItemDb(action.table.TableName).get(action.key, (error, existing) => {
        if (error && error.name !== 'NotFoundError') return reject(error);
        answer(db.checkConditional(action.data, existing as DynaliteItem | undefined));
      });
      return;
    }
    const store = keepingStore(streams, action.table, changes, indexes);
    actionOf[action.kind](store, { ...action.data, TableName: action.table.TableName }, answer);
  });

/**
 * TransactWriteItems: every action, or none (TransactionCanceledException with each one's reason); once per
 * ClientRequestToken (request-tokens.ts).
 */
export const transactWriteItems = (streams: Streams, input: Input) =>
  onceByToken(streams, input, () => transactOnce(streams, input));

const transactOnce = async (streams: Streams, input: Input) => {
  const entries = input.TransactItems;
  if (!Array.isArray(entries) || entries.length < 1 || entries.length > 100)
    throw validation('TransactItems must have between 1 and 100 members');
  const actions: Action[] = [];
  for (const entry of entries) {
    const { kind, data } = checked(streams, entry);
    const table = await tableOf(streams, String(data.TableName));
    const keyed = (kind === 'Put' ? data.Item : data.Key) as DynaliteItem;
    actions.push({ kind, data, table, key: db.createKey(keyed, table as unknown as Record<string, unknown>) });
  }
  refuseSameItem(actions);
  const release = await lockAll(streams, actions);
  try {
    const changes: ItemChange[] = [];
    const indexes: Operation[] = [];
    const reasons = [];
    for (const action of actions) reasons.push(await run(streams, action, changes, indexes));
    if (reasons.some(({ Code }) => Code !== 'None'))
      throw new DatabaseError(
        'TransactionCanceledException',
        `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map(({ Code }) => Code).join(', ')}]`,
        400,
        { CancellationReasons: reasons },
      );
    await streams.writeChanges(changes, indexes);
    return {};
  } finally {
    release();
  }
};
