// Runner.reload, which `npm run dev` calls after each synth: requests in flight when the app is swapped are answered
// by the execution environments they began in, which stop afterwards; new requests go to the new ones.
import { afterAll, expect, test } from '@jest/globals';
import { type Runner, signDevToken, startRunner } from 'cdk-local-runner';
import { plantStoreOptions, synthesizedCloudAssembly } from '../helpers/cloud-assembly.ts';
import { type DatabaseGate, startDatabaseGate } from '../helpers/database-gate.ts';
import { postPlant } from '../helpers/post-plant.ts';

let api: Runner | undefined;
let gate: DatabaseGate | undefined;
afterAll(async () => {
  await api?.close();
  await gate?.close();
});

test('a request held inside createPlant while the app is reloaded is answered, then the old environments stop', async () => {
  gate = await startDatabaseGate();
  api = await startRunner(
    plantStoreOptions({ envVars: { CreatePlantFunction: { AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint } } }),
  );
  gate.forwardTo(api.databaseEndpoint);
  const token = await signDevToken(api.signingKey, { sub: 'reload', scope: 'plants/write', expiresIn: '1h' });
  const url = api.url;
  const create = (id: number) => postPlant(url, token, { id, name: 'Agave' });

  const inFlight = create(1);
  await gate.holding(1);
  const before = api.invocations('CreatePlantFunction');
  await api.reload(synthesizedCloudAssembly());
  // The new deployment counts its own invocations: the held one is the old one's.
  expect(api.invocations('CreatePlantFunction')).toBe(0);
  gate.open();

  expect(before).toBe(1);
  expect((await inFlight).status).toBe(200);
  expect((await create(2)).status).toBe(200);
  expect(api.invocations('CreatePlantFunction')).toBe(1);
  // The plant the old environment stored is in the same database.
  expect((await create(1)).status).toBe(200);
});
