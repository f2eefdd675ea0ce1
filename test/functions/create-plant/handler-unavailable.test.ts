// createPlant through its Middy chain when DynamoDB refuses every connection: 503 with Retry-After.
import { beforeAll, expect, test } from '@jest/globals';
import { type CreatePlantHandler, loadCreatePlantHandler } from '../../helpers/create-plant-handler.ts';
import { refusedEndpoint } from '../../helpers/dynalite.ts';
import { createPlantEvent, lambdaContext } from '../../helpers/events.ts';
import { contractViolations, createPlantRequest } from '../../helpers/independent-contract.ts';

let handler: CreatePlantHandler;

beforeAll(async () => {
  handler = await loadCreatePlantHandler('plants', await refusedEndpoint());
});

test('an unreachable database answers 503 with Retry-After and no internals', async () => {
  const answer = await handler(createPlantEvent({ body: { id: 1, name: 'Aloe' } }), lambdaContext());

  expect(answer.statusCode).toBe(503);
  expect(answer.headers).toEqual({ 'Content-Type': 'application/json', 'Retry-After': '1' });
  expect(JSON.parse(answer.body)).toEqual({ error: 503, message: 'The database is unavailable, please retry' });
  expect(contractViolations(answer, createPlantRequest)).toEqual([]);
});
