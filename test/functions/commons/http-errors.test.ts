// How a refused event is told to the client: the field as the client wrote it, for the body and for path and query
// parameters; and responses, an int64 written exactly and the 404. Shown through the extended fixture app's real
// Middy chains (test/fixtures/extended-app), in-process.
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { NotFoundError } from '../../../functions/commons/errors.ts';
import { exactNumbers } from '../../../functions/commons/exact-json.ts';
import { httpErrors } from '../../../functions/commons/http-errors.ts';
import { handler as getFile } from '../../fixtures/extended-app/functions/get-file/handler.ts';
import { handler as getThing } from '../../fixtures/extended-app/functions/get-thing/handler.ts';
import { lambdaContext } from '../../helpers/events.ts';

const invoke = async (handler: typeof getThing, event: Partial<APIGatewayProxyEvent>) => {
  const { statusCode, body } = await handler(
    { headers: {}, pathParameters: null, queryStringParameters: null, ...event } as unknown as Parameters<
      typeof getThing
    >[0],
    lambdaContext(),
  );
  return [statusCode, JSON.parse(body, exactNumbers)];
};

describe('parameters are named as a client writes them', () => {
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

describe('responses', () => {
  test('an int64 leaves exactly, at both ends of its range', async () => {
    for (const id of ['9223372036854775807', '-9223372036854775808']) {
      const { body } = await getThing(
        { headers: {}, pathParameters: { id }, queryStringParameters: null } as unknown as Parameters<
          typeof getThing
        >[0],
        lambdaContext(),
      );
      expect(body).toBe(`{"id":${id},"fields":"all"}`);
      expect(JSON.parse(body, exactNumbers)).toEqual({ id: BigInt(id), fields: 'all' });
    }
  });

  test('a NotFoundError is a 404 with the Error body and its message', async () => {
    const handler = middy()
      .use(httpErrors())
      .handler(async (): Promise<APIGatewayProxyResult> => {
        throw new NotFoundError('No thing has the id 7');
      });
    expect(await handler({}, lambdaContext())).toEqual({
      statusCode: 404,
      headers: { 'Content-Type': 'application/json' },
      body: '{"error":404,"message":"No thing has the id 7"}',
    });
  });
});
