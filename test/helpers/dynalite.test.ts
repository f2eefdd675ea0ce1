// dynaliteForHooks: a database whose start outlived its beforeAll (a time-out) is still closed by the afterAll.
import { expect, test } from '@jest/globals';
import { databaseStartMs, dynaliteForHooks } from './dynalite.ts';

test(
  'stop, called while the database still starts (as after a beforeAll that timed out), closes it once started',
  async () => {
    const database = dynaliteForHooks('plants-hooks-test');
    const starting = database.start();

    await database.stop();

    // Closed: nothing answers on its endpoint any more.
    await expect(fetch((await starting).endpoint)).rejects.toThrow('fetch failed');
  },
  databaseStartMs,
);

test('stop adds no error of its own when nothing was started', async () => {
  await expect(dynaliteForHooks('plants-hooks-test').stop()).resolves.toBeUndefined();
});
