// The typed client of examples/typed-client against the real app, served by the local runner as `npm start` serves it:
// int64 ids exact over the whole range, 400 and 409 as results; its example program runs. The rest, in-process against
// servers of the test's own (exact answers, 503 retries, generated files): test/examples/typed-client.test.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPlantStoreClient } from '../../examples/typed-client/src/client.ts';
import { storedPlant } from '../helpers/dynalite.ts';
import { newDataDir, type Started, start, stopStarted, tokenOf } from '../helpers/npm-start.ts';

const exampleDir = new URL('../../examples/typed-client/', import.meta.url).pathname;
let server: Started;
beforeAll(async () => {
  server = await start(newDataDir());
}, 90_000);
afterAll(stopStarted);

/** The item the runner's database holds for `id` (its N attribute is the id's exact decimal text). */
const storedName = async (id: bigint) => {
  const database = new DynamoDBClient({ endpoint: server.databaseEndpoint, maxAttempts: 1 });
  // The app has one table, the plants.
  const { TableNames: [tableName = ''] = [] } = await database.send(new ListTablesCommand({}));
  const item = await storedPlant(database, tableName, id);
  database.destroy();
  return item?.name?.S;
};

describe('against npm start', () => {
  const plants = () => createPlantStoreClient({ baseUrl: server.url, token: tokenOf(server) });

  test('sends int64 ids exactly: 2^63-1 and 2^63-2 are two plants (as doubles they would be one)', async () => {
    const largest = 9223372036854775807n;

    expect(await plants().createPlant({ id: largest, name: 'Largest' })).toEqual({
      ok: true,
      plant: { name: 'Largest' },
    });
    expect(await plants().createPlant({ id: largest - 1n, name: 'Next' })).toEqual({
      ok: true,
      plant: { name: 'Next' },
    });
    expect(await storedName(largest)).toBe('Largest');
    expect(await storedName(largest - 1n)).toBe('Next');
    expect(await plants().createPlant({ id: -9223372036854775808n, name: 'Smallest' })).toMatchObject({ ok: true });
    expect(await storedName(-9223372036854775808n)).toBe('Smallest');
  });

  test('answers 409 and 400 as results the caller can act on', async () => {
    await plants().createPlant({ id: 4242n, name: 'Pilea' });

    expect(await plants().createPlant({ id: 4242n, name: 'Peperomia' })).toMatchObject({
      ok: false,
      status: 409,
      error: { error: 409 },
    });
    expect(await plants().createPlant({ id: 9223372036854775808n, name: 'Too large' })).toEqual({
      ok: false,
      status: 400,
      error: { error: 400, message: 'id: must be an integer in the int64 range' },
    });
  });

  test('its example program runs as the README shows', async () => {
    // A runner of its own: the example creates the plant with the largest id.
    const own = await start(newDataDir());
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['src/example.ts', '--base-url', own.url, '--token', tokenOf(own)],
      { cwd: exampleDir },
    );

    expect(stdout).toMatch(/^created 9223372036854775807: \{"name":"Ficus lyrata","tag":"fiddle-leaf"\}$/m);
    expect(stdout).toMatch(/^409 as expected: /m);
    expect(stdout).toMatch(/^400 as expected: id: must be an integer in the int64 range$/m);
  }, 90_000);
});
