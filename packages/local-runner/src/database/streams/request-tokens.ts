// TransactWriteItems' ClientRequestToken ("TransactWriteItems", DynamoDB API Reference,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html): a token is valid for
// 10 minutes after the first request that uses it is completed; the same request with it again within them has the
// same effect as the one call (answered without writing again), another request with it is refused
// (IdempotentParameterMismatchException), and one while the first still runs is refused too
// (TransactionInProgressException). Kept in the database process's memory: a restart of it forgets them.
import { DatabaseError } from './database-error.ts';

type Input = Record<string, unknown>;

/** How long a completed request's token is kept (10 minutes). */
const validMs = 10 * 60 * 1_000;

interface Used {
  /** The request, as JSON, that used the token first. */
  request: string;
  /** Its answer once completed; until then, undefined. */
  output?: unknown;
  /** When the token is forgotten (once completed). */
  expires: number;
}

/** The tokens used, by token; each table of them is one database's (its `owner`). */
const usedOf = new WeakMap<object, Map<string, Used>>();

/**
 * Runs `work` for `input` as its ClientRequestToken asks: at once without one; else once per token and request
 * within the window, the first answer given again. A request that fails leaves its token unused.
 */
export const onceByToken = async (owner: object, input: Input, work: () => Promise<unknown>) => {
  const token = input.ClientRequestToken;
  if (token === undefined) return work();
  if (typeof token !== 'string' || token.length < 1 || token.length > 36)
    throw new DatabaseError('ValidationException', 'ClientRequestToken must be 1 to 36 characters long');
  const used = usedOf.get(owner) ?? new Map<string, Used>();
  usedOf.set(owner, used);
  const now = Date.now();
  for (const [name, { expires }] of used) if (expires <= now) used.delete(name);
  const request = JSON.stringify(input);
  const earlier = used.get(token);
  if (earlier && earlier.request !== request)
    throw new DatabaseError(
      'IdempotentParameterMismatchException',
      'The request uses the same client token as an earlier one, with other parameters',
    );
  if (earlier && earlier.output === undefined)
    throw new DatabaseError('TransactionInProgressException', 'The transaction with this client token is in progress');
  if (earlier) return earlier.output;
  const entry: Used = { request, expires: Number.POSITIVE_INFINITY };
  used.set(token, entry);
  try {
    entry.output = await work();
    entry.expires = Date.now() + validMs;
    return entry.output;
  } catch (error) {
    used.delete(token);
    throw error;
  }
};
