// API Gateway's TOKEN authorizer result cache, locally: per stage and token for the TTL, then the function is asked
// again; TTL 0 asks it every time. The clock is stepped, not waited for.
import { afterEach, expect, jest, test } from '@jest/globals';
import { LambdaAuthorizer } from '../../../src/gateway/authorizers/lambda-authorizer.ts';
import type { FunctionPool, InvocationReport } from '../../../src/lambda/pool.ts';

const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:api/test/GET/secured';

/** A pool whose function allows every token, counting its invocations. */
const allowingPool = () => {
  const pool = {
    invocations: 0,
    invoke: async (): Promise<InvocationReport> => {
      pool.invocations += 1;
      const result = {
        principalId: 'user',
        policyDocument: { Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: methodArn }] },
      };
      return { invocation: { outcome: 'result', result }, durationMs: 1, initMs: undefined };
    },
  };
  return pool;
};

const authorizerWith = (ttlSeconds: number, pool: ReturnType<typeof allowingPool>) =>
  new LambdaAuthorizer(
    {
      id: 'Authorizer',
      type: 'TOKEN',
      functionId: 'AuthorizerFunction',
      headerName: 'Authorization',
      validation: undefined,
      ttlSeconds,
    },
    pool as unknown as FunctionPool,
  );
const ask = (authorizer: LambdaAuthorizer, token = 'Bearer a', stage = 'test') =>
  authorizer.authorize({
    headers: { Authorization: [token] },
    query: new URLSearchParams(),
    methodArn,
    stage,
    parts: () => {
      throw new Error('a TOKEN authorizer reads no other part of the request');
    },
  });

afterEach(() => {
  jest.restoreAllMocks();
});

test('a result is reused for its token until the TTL has passed, then the function is asked again', async () => {
  const pool = allowingPool();
  const authorizer = authorizerWith(300, pool);
  const start = Date.now();
  const clock = jest.spyOn(Date, 'now').mockReturnValue(start);

  expect((await ask(authorizer)).decision.allowed).toBe(true);
  clock.mockReturnValue(start + 299_000);
  expect((await ask(authorizer)).decision.allowed).toBe(true);
  expect(pool.invocations).toBe(1);

  clock.mockReturnValue(start + 300_001);
  expect((await ask(authorizer)).decision.allowed).toBe(true);
  expect(pool.invocations).toBe(2);
});

test('another token is not served from the cache', async () => {
  const pool = allowingPool();
  const authorizer = authorizerWith(300, pool);
  await ask(authorizer, 'Bearer a');
  await ask(authorizer, 'Bearer b');
  expect(pool.invocations).toBe(2);
});

test("another stage has a cache of its own (API Gateway flushes one stage's: FlushStageAuthorizersCache)", async () => {
  const pool = allowingPool();
  const authorizer = authorizerWith(300, pool);
  await ask(authorizer, 'Bearer a', 'prod');
  await ask(authorizer, 'Bearer a', 'prod');
  await ask(authorizer, 'Bearer a', 'beta');
  expect(pool.invocations).toBe(2);
});

test('TTL 0 caches nothing: every request asks the function', async () => {
  const pool = allowingPool();
  const authorizer = authorizerWith(0, pool);
  await ask(authorizer);
  await ask(authorizer);
  await ask(authorizer);
  expect(pool.invocations).toBe(3);
});
