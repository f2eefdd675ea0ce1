// createPlant through its Middy chain when DynamoDB accepts connections but never answers: the invocation's deadline
// (its remaining time less a margin) ends every DynamoDB call, and the 503 arrives before the function's timeout —
// on the conflict path too, where a PutItem and a GetItem share the one deadline.
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
import { type CreatePlantHandler, loadCreatePlantHandler } from '../../helpers/create-plant-handler.ts';
import { createPlantEvent, lambdaContext } from '../../helpers/events.ts';
import { contractViolations, createPlantRequest } from '../../helpers/independent-contract.ts';

let handler: CreatePlantHandler;
const sockets = new Set<Socket>();
/** Answers the first `answered` requests as dynalite would for an existing id; holds every later one forever. */
let answered = 0;
const database = createServer((request: IncomingMessage, response) => {
  if (answered <= 0) return; // hold it
  answered -= 1;
  request.resume();
  response.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' });
  response.end(
    JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'exists' }),
  );
}).on('connection', (socket) => sockets.add(socket));

beforeAll(async () => {
  handler = await loadCreatePlantHandler('plants', await listenOnLoopback(database));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => database.close(resolve));
});

/** A function timeout long enough for the SDK to time out one 2 s attempt and start the next. */
const functionTimeoutMs = 3_000;

/**
 * Invokes the handler with Lambda's own timer beside it: started with the invocation, it would cut the invocation off
 * at the function's timeout. The handler's answer must come first. Both are timers of this one process, so a busy
 * machine delays them alike and the order is kept (a wall-clock bound would measure the machine instead).
 */
const invokeWithTimeout = async (body: unknown) => {
  const context = lambdaContext('create-plant', functionTimeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const cutOff = new Promise<'cut off'>((resolve) => {
    timer = setTimeout(() => resolve('cut off'), functionTimeoutMs);
  });
  const answer = await Promise.race([handler(createPlantEvent({ body }), context), cutOff]);
  clearTimeout(timer);
  // Lambda would have cut the invocation off at its timeout, and API Gateway answered 502 instead.
  if (answer === 'cut off') throw new Error(`no answer within the function's timeout of ${functionTimeoutMs} ms`);
  return answer;
};

const expectTimely503 = (answer: Awaited<ReturnType<typeof invokeWithTimeout>>) => {
  expect(answer.statusCode).toBe(503);
  expect(answer.headers).toMatchObject({ 'Retry-After': '1' });
  expect(JSON.parse(answer.body)).toEqual({ error: 503, message: 'The request ran out of time, please retry' });
  expect(contractViolations(answer, createPlantRequest)).toEqual([]);
};

test('a database that never answers is a 503 with Retry-After before the function times out', async () => {
  expectTimely503(await invokeWithTimeout({ id: 1, name: 'Aloe' }));
});

test('the conflict path (PutItem refused, then a GetItem that hangs) shares the deadline', async () => {
  answered = 1;
  expectTimely503(await invokeWithTimeout({ id: 2, name: 'Aloe' }));
  expect(answered).toBe(0);
});
