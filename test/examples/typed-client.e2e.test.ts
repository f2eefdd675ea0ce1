// The typed client of examples/typed-client against `npm start`: int64 ids exact over the whole range, 400 and 409 as
// results, 503 retried after Retry-After; its example program runs (test/examples/typed-client.test.ts: the rest).
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
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

test('retries a 503 after its Retry-After, and gives up after the last attempt', async () => {
  let requests = 0;
  const busy = createServer((request, response) => {
    requests += 1;
    request.resume();
    const ready = requests === 3;
    response.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json', 'Retry-After': '0' });
    response.end(ready ? '{"name":"Hoya"}' : '{"error":503,"message":"The database is unavailable, please retry"}');
  });
  const baseUrl = await listenOnLoopback(busy);

  expect(await createPlantStoreClient({ baseUrl, token: 't' }).createPlant({ id: 1n, name: 'Hoya' })).toEqual({
    ok: true,
    plant: { name: 'Hoya' },
  });
  expect(requests).toBe(3);
  requests = -10; // from now on, only 503s
  await expect(
    createPlantStoreClient({ baseUrl, token: 't', maxAttempts: 2 }).createPlant({ id: 1n, name: 'Hoya' }),
  ).rejects.toMatchObject({
    name: 'PlantStoreError',
    status: 503,
  });
  expect(requests).toBe(-8);
  busy.close();
});
