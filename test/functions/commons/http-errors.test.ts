// How a refused event is told to the client: the field as the client wrote it, for the body and for path and query
// parameters. Shown through the extended fixture app's real Middy chains (test/fixtures/extended-app), in-process.
import { describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
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
  return [statusCode, JSON.parse(body)];
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
    expect(await invoke(getThing, { pathParameters: { id: '7' } })).toEqual([200, { id: '7', fields: 'all' }]);
  });
});
