// Generated requests over HTTP through the local runner (the synthesized stack: gateway, authorizer, createPlant,
// dynalite), judged by the same contract oracle as the in-process suite: never a 5xx; every answer documented and
// valid against openapi.yaml; 200 only for a valid NewPlant; every 200 read back from the table exactly.
// Replay a failure with FC_SEED=<seed> FC_PATH=<path> npm run jest -- test/local/plant-store.property.e2e.test.ts

import { request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type Runner, signDevToken, startRunner } from 'cdk-local-runner';
import fc from 'fast-check';
import { plantStoreOptions } from '../helpers/cloud-assembly.ts';
import { storedPlant } from '../helpers/dynalite.ts';
import { expectedAnswer, judgeAnswer, plantRequests } from '../helpers/plant-requests.ts';
import { replay, report } from '../helpers/report.ts';

const runs = 500;
let api: Runner;
let token: string;
let client: DynamoDBClient;
let tableName: string;

beforeAll(async () => {
  api = await startRunner(plantStoreOptions());
  token = await signDevToken(api.signingKey, { sub: 'property', scope: 'plants/write', expiresIn: '1h' });
  client = new DynamoDBClient({
    endpoint: api.databaseEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  tableName = api.app.tables[0]?.tableName ?? '';
}, 30_000);

afterAll(async () => {
  client.destroy();
  await api.close();
});

const stored = (id: string) => storedPlant(client, tableName, id);

/** POST /plants with the headers exactly as given (name case kept), the body as bytes. */
const post = (headers: Record<string, string>, body: Buffer) =>
  new Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const outgoing = request(`${api.url}/plants`, { method: 'POST', headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          statusCode: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });

test(`${runs} generated requests over HTTP: answered as the contract says, every 200 stored exactly`, async () => {
  const statuses: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(
      plantRequests(),
      fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION'),
      async (plantRequest, authorization) => {
        const expected = expectedAnswer(plantRequest);
        const before = expected.status === 'create' ? await stored(expected.id) : undefined;

        const answer = await post(
          {
            [authorization]: `Bearer ${token}`,
            ...(plantRequest.contentType && { [plantRequest.contentType[0]]: plantRequest.contentType[1] }),
            'Content-Length': String(plantRequest.bytes.length),
          },
          plantRequest.bytes,
        );
        statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;

        await judgeAnswer(expected, answer, before, stored);
      },
    ),
    { numRuns: runs, ...replay() },
  );
  report('fuzz-http', { requests: runs, statuses });
  expect(Object.keys(statuses).sort()).toEqual(['200', '400', '409', '413', '415']);
}, 300_000);
