// The error mapping (functions/commons/http-errors.ts): whatever a chain throws, the client gets the contract's Error,
// `{ error, message }` with `error` equal to the status (openapi.yaml). An error raised on purpose keeps its status,
// message and headers; Middy's own refusals and the validator's are told as the client's, naming the field; anything
// else is a 500 that shows nothing of the failure. Through real Middy chains, in-process; each answer is also checked
// against openapi.yaml by the independent checker.

import { describe, expect, test } from '@jest/globals';
import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import validateCreatePlantEvent from '../../../functions/commons/contract/validate-create-plant-event.js';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from '../../../functions/commons/errors.ts';
import { eventValidator } from '../../../functions/commons/event-validator.ts';
import { exactNumbers } from '../../../functions/commons/exact-json.ts';
import { httpErrors } from '../../../functions/commons/http-errors.ts';
import { jsonResponse } from '../../../functions/commons/json-response.ts';
import { handler as getFile } from '../../fixtures/extended-app/functions/get-file/handler.ts';
import { handler as getThing } from '../../fixtures/extended-app/functions/get-thing/handler.ts';
import { createPlantEvent, lambdaContext } from '../../helpers/events.ts';
import { contractViolations, createPlantRequest } from '../../helpers/independent-contract.ts';

interface Chain {
  /** Before httpErrors(), in this order. */
  middlewares?: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>[];
  /** What the logic throws; without it, the logic answers 200 (so a refusal the middlewares fail to make shows). */
  thrown?: unknown;
}

/** The answer of a chain built as the functions build theirs: `middlewares`, then httpErrors() last. */
const answerOf = async (event: APIGatewayProxyEvent, { middlewares = [], thrown }: Chain = {}) => {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>();
  for (const middleware of middlewares) chain.use(middleware);
  const answer = await chain.use(httpErrors()).handler(async () => {
    if (thrown !== undefined) throw thrown;
    return jsonResponse(200, { name: 'Pilea' });
  })(event, lambdaContext());
  // Every answer is one the contract allows: createPlant's for its status, or the `default` (the Error schema).
  expect(contractViolations(answer, createPlantRequest)).toEqual([]);
  return { ...answer, body: JSON.parse(answer.body) as unknown };
};

/** What the logic throwing `error` answers. */
const answerTo = (error: unknown) => answerOf(createPlantEvent({ body: { id: 1, name: 'Pilea' } }), { thrown: error });

/** The contract's Error answer, its body parsed. */
const errorAnswer = (status: number, message: string) => ({
  statusCode: status,
  headers: { 'Content-Type': 'application/json' },
  body: { error: status, message },
});

describe('an error raised on purpose (functions/commons/errors.ts) keeps its status and message', () => {
  test.each([
    { error: new InvalidRequestError('request body: is not valid UTF-8'), status: 400 },
    { error: new NotFoundError('No thing has the id 7'), status: 404 },
    { error: new ConflictError('A plant with id 1 already exists with a different name or tag'), status: 409 },
    { error: new PayloadTooLargeError('Request body is 70000 bytes; the limit is 65536 bytes'), status: 413 },
    { error: new UnsupportedMediaTypeError('Content-Type must be application/json'), status: 415 },
  ])('$error.name: $status', async ({ error, status }) => {
    expect(await answerTo(error)).toEqual(errorAnswer(status, error.message));
  });

  test('UnavailableError: 503 with Retry-After, whole seconds of at least 1 (openapi.yaml)', async () => {
    expect(await answerTo(new UnavailableError('The database is unavailable, please retry'))).toEqual({
      ...errorAnswer(503, 'The database is unavailable, please retry'),
      headers: { 'Content-Type': 'application/json', 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) },
    });
  });
});

describe("Middy's own errors, known by their shape whatever copy of @middy/util made them", () => {
  test("@middy/http-json-body-parser's 415 for another media type: its status and message", async () => {
    const event = createPlantEvent({ headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    expect(await answerOf(event, { middlewares: [httpJsonBodyParser()] })).toEqual(
      errorAnswer(415, 'Unsupported Media Type'),
    );
  });

  test("its 422 for malformed JSON: a 400 that says so, without JSON.parse's words", async () => {
    const answer = await answerOf(createPlantEvent({ body: '{"id": 1,' }), { middlewares: [httpJsonBodyParser()] });
    expect(answer).toEqual(errorAnswer(400, 'request body: is not valid JSON'));
    expect(JSON.stringify(answer.body)).not.toMatch(/Unexpected|position|SyntaxError/);
  });

  test.each([
    ['{"__proto__": {"admin": true}}', '__proto__'],
    ['{"constructor": {"prototype": {"admin": true}}}', 'constructor'],
  ])('its 422 for a key that could pollute prototypes, %s: a 400 naming the key', async (body, key) => {
    expect(await answerOf(createPlantEvent({ body }), { middlewares: [httpJsonBodyParser()] })).toEqual(
      errorAnswer(400, `request body: the key "${key}" is not allowed`),
    );
  });

  test('one of any other package, exposed and under 500: its status and message', async () => {
    const notAcceptable = Object.assign(new Error('Not Acceptable'), { statusCode: 406, expose: true });
    expect(await answerTo(notAcceptable)).toEqual(errorAnswer(406, 'Not Acceptable'));
  });

  test.each([
    ['not exposed', { statusCode: 400, expose: false }],
    ['a 5xx', { statusCode: 502, expose: true }],
  ])('one %s: a 500 with the generic message, not its own', async (_case, shape) => {
    const answer = await answerTo(Object.assign(new Error('Failed to fetch secret db-password'), shape));
    expect(answer).toEqual(errorAnswer(500, 'Internal server error'));
  });
});

describe('a validation failure (the ajv errors @middy/validator carries): 400 naming the field and the rule', () => {
  // The body parsed first, as the functions' chains parse it.
  const validated = (body: unknown) =>
    answerOf(createPlantEvent({ body }), {
      middlewares: [httpJsonBodyParser(), eventValidator(validateCreatePlantEvent)],
    });

  test.each([
    [{ id: '1', name: 'Pilea' }, 'id: must be an integer in the int64 range'],
    [{ id: 1 }, 'name: is required'],
    [{ id: 1, name: 2, tag: 3 }, 'name: must be string; tag: must be string'],
    [[], 'request body: must be a JSON object'],
  ])('body %j: %s', async (body, message) => {
    expect(await validated(body)).toEqual(errorAnswer(400, message));
  });

  test('a valid body reaches the logic', async () => {
    expect((await validated({ id: 1, name: 'Pilea' })).statusCode).toBe(200);
  });
});

describe('parameters are named as a client writes them (the extended fixture app)', () => {
  const invoke = async (handler: typeof getThing, event: Partial<APIGatewayProxyEvent>) => {
    const { statusCode, body } = await handler(
      { headers: {}, pathParameters: null, queryStringParameters: null, ...event } as unknown as Parameters<
        typeof getThing
      >[0],
      lambdaContext(),
    );
    return [statusCode, JSON.parse(body, exactNumbers)];
  };

  test('a path parameter', async () => {
    expect(await invoke(getThing, { pathParameters: { id: 'x' } })).toEqual([
      400,
      { error: 400, message: 'path parameter id: must be an integer in the int64 range' },
    ]);
  });

  test('a query parameter, and one that is required but absent (no query string at all)', async () => {
    expect(await invoke(getThing, { pathParameters: { id: '1' }, queryStringParameters: { fields: 'x' } })).toEqual([
      400,
      { error: 400, message: 'query parameter fields: must be equal to one of the allowed values' },
    ]);
    expect(await invoke(getFile, { pathParameters: { proxy: 'a' } })).toEqual([
      400,
      { error: 400, message: 'query parameter version: is required' },
    ]);
  });

  test('a valid event reaches the logic', async () => {
    expect(await invoke(getThing, { pathParameters: { id: '7' } })).toEqual([200, { id: 7, fields: 'all' }]);
  });
});

describe('anything else is a 500 that shows nothing of the failure', () => {
  /** A failure as a dependency reports it: an internal name, address and stack. */
  const internal = Object.assign(new Error('connect ECONNREFUSED 10.0.4.7:443'), {
    name: 'ResourceNotFoundException',
    // An AWS SDK error's own status is the dependency's, not the client's.
    $metadata: { httpStatusCode: 400 },
  });

  test.each([
    ['an Error from a dependency', internal],
    ['a TypeError (a bug)', new TypeError("Cannot read properties of undefined (reading 'principalId')")],
    ['a thrown string', 'ECONNREFUSED 10.0.4.7'],
  ])('%s', async (_case, thrown) => {
    const answer = await answerTo(thrown);
    expect(answer).toEqual(errorAnswer(500, 'Internal server error'));
    expect(JSON.stringify(answer)).not.toMatch(/ECONNREFUSED|10\.0\.4\.7|ResourceNotFound|principalId|\bat /);
  });
});
