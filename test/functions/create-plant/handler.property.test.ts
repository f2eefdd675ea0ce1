// Generated requests through createPlant's real Middy chain, storing in dynalite, judged by an oracle written from
// the contract alone (test/helpers/plant-requests.ts): never a 5xx; every answer documented and valid against
// openapi.yaml; 200 only for a valid NewPlant (409 when its id is stored with other content), 400/413/415 otherwise;
// every 200 read back from the table exactly. A failure prints fast-check's seed and path: replay it with
// FC_SEED=<seed> FC_PATH=<path> npm run jest -- test/functions/create-plant/handler.property.test.ts
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { type CreatePlantHandler, loadCreatePlantHandler } from '../../helpers/create-plant-handler.ts';
import { databaseStartMs, dynaliteForHooks, type LocalDynamoDb, storedPlant } from '../../helpers/dynalite.ts';
import { createPlantEvent, lambdaContext } from '../../helpers/events.ts';
import { expectedAnswer, judgeAnswer, plantRequests } from '../../helpers/plant-requests.ts';
import { replay, report, thorough } from '../../helpers/report.ts';

const tableName = 'plants-property-test';
// 1,000 in `npm test`, 5,000 in `npm run reliability` (PLANT_STORE_THOROUGH), as the token mutations.
const runs = thorough() ? 5_000 : 1_000;
let db: LocalDynamoDb;
let handler: CreatePlantHandler;

const database = dynaliteForHooks(tableName);

beforeAll(async () => {
  db = await database.start();
  handler = await loadCreatePlantHandler(tableName, db.endpoint);
}, databaseStartMs);

afterAll(() => database.stop(), databaseStartMs);

const stored = (id: string) => storedPlant(db.client, tableName, id);

test(`${runs} generated requests in-process: answered as the contract says, every 200 stored exactly`, async () => {
  const statuses: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(plantRequests(), fc.boolean(), async (request, asText) => {
      const expected = expectedAnswer(request);
      const before = expected.status === 'create' ? await stored(expected.id) : undefined;
      // API Gateway forwards bodies base64-encoded (the stack's binary media types); text is tried too.
      const text = asText && request.utf8;
      const event = createPlantEvent({
        headers: request.contentType ? { [request.contentType[0]]: request.contentType[1] } : {},
        ...(request.bytes.length > 0 && { body: request.bytes.toString(text ? 'utf8' : 'base64') }),
        isBase64Encoded: !text && request.bytes.length > 0,
      });

      const answer = await handler(event, lambdaContext('create-plant'));
      statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;

      await judgeAnswer(expected, answer, before, stored);
    }),
    { numRuns: runs, ...replay() },
  );
  report('fuzz-in-process', { requests: runs, statuses });
  // The generators reach every answer the function gives.
  expect(Object.keys(statuses).sort()).toEqual(['200', '400', '409', '413', '415']);
}, 300_000);
