// TransactGetItems, which dynalite does not serve ("TransactGetItems", DynamoDB API Reference,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html): up to 100 Get actions on
// distinct items, read at one point in time. Each Get is checked by dynalite's own GetItem rules and read by its
// GetItem (its projection expressions), while every item's lock is held (the one writes take, transact-write.ts): no
// write lands between two of the reads.
import getItem from 'dynalite/actions/getItem.js';
import db from 'dynalite/db/index.js';
import getItemRules from 'dynalite/validations/getItem.js';
import validations from 'dynalite/validations/index.js';
import type { Streams } from './streams.ts';
import { lockAll, refuseSameItem, tableOf, validation } from './transact-write.ts';

type Input = Record<string, unknown>;

/** One of TransactItems: its Get, checked by GetItem's rules. */
const checked = (streams: Streams, entry: unknown) => {
  const get = (entry as Input | null)?.Get;
  if (get === null || typeof get !== 'object') throw validation('Each TransactItems member must have a Get');
  const data = validations.checkTypes({ ...(get as Input) }, getItemRules.types);
  validations.checkValidations(data, getItemRules.types, getItemRules.custom, streams.store);
  return data;
};

/** The item `data` asks for, as an ItemResponse: `{ Item }`, or `{}` when there is none. */
const read = (streams: Streams, data: Record<string, unknown>) =>
  new Promise<{ Item?: unknown }>((resolve, reject) =>
    getItem(streams.store, data, (error, output) => {
      if (error) return reject(error);
      const { Item } = (output ?? {}) as { Item?: unknown };
      resolve(Item === undefined ? {} : { Item });
    }),
  );

/** TransactGetItems: each item asked for, in the order asked, in `Responses`. */
export const transactGetItems = async (streams: Streams, input: Input) => {
  const entries = input.TransactItems;
  if (!Array.isArray(entries) || entries.length < 1 || entries.length > 100)
    throw validation('TransactItems must have between 1 and 100 members');
  const gets = [];
  for (const entry of entries) {
    const data = checked(streams, entry);
    const table = await tableOf(streams, String(data.TableName));
    gets.push({
      data,
      table,
      key: db.createKey(data.Key as DynaliteItem, table as unknown as Record<string, unknown>),
    });
  }
  refuseSameItem(gets);
  const release = await lockAll(streams, gets);
  try {
    const Responses = [];
    for (const { data } of gets) Responses.push(await read(streams, data));
    return { Responses };
  } finally {
    release();
  }
};
