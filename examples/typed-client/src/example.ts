// The typed client in use: `npm run example -w examples/typed-client -- --base-url http://127.0.0.1:3000 --token <t>`.
// Creates the plant with the largest int64 id, then shows what a 409 and a 400 look like to the caller.
import { parseArgs } from 'node:util';
import { createPlantStoreClient } from './client.ts';

const { values } = parseArgs({ options: { 'base-url': { type: 'string' }, token: { type: 'string' } } });
if (!values['base-url'] || !values.token) {
  console.error('usage: node src/example.ts --base-url <the API URL> --token <a bearer token>');
  process.exit(2);
}
const plants = createPlantStoreClient({ baseUrl: values['base-url'], token: values.token });
// 2^63 - 1 has no exact JavaScript number; as a bigint it reaches the API digit for digit.
const id = 9223372036854775807n;

const created = await plants.createPlant({ id, name: 'Ficus lyrata', tag: 'fiddle-leaf' });
console.log(created.ok ? `created ${id}: ${JSON.stringify(created.plant)}` : `not created: ${created.error.message}`);

const taken = await plants.createPlant({ id, name: 'Ficus elastica' });
if (!taken.ok && taken.status === 409) console.log(`409 as expected: ${taken.error.message}`);

const tooLarge = await plants.createPlant({ id: id + 1n, name: 'Ficus benjamina' });
if (!tooLarge.ok && tooLarge.status === 400) console.log(`400 as expected: ${tooLarge.error.message}`);
