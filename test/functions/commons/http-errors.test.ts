// How a refused event is told to the client: the field as the client wrote it, for the body and for path and query
// parameters; and responses, an int64 written exactly and the 404. Shown through the extended fixture app's real
// Middy chains (test/fixtures/extended-app), in-process.

import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { NotFoundError } from '../../../functions/commons/errors.ts';
import { exactNumbers } from '../../../functions/commons/exact-json.ts';
import { httpErrors } from '../../../functions/commons/http-errors.ts';
import { projectRoot } from '../../../infra/project-root.ts';
import { handler as getFile } from '../../fixtures/extended-app/functions/get-file/handler.ts';
import { handler as getThing } from '../../fixtures/extended-app/functions/get-thing/handler.ts';
import { lambdaContext, proxyEvent } from '../../helpers/events.ts';
import { contractChecker } from '../../helpers/independent-contract.ts';

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
        // httpEventNormalizer's types ask for its normalized shape; API Gateway sends the proxy event.
        proxyEvent({ method: 'GET', resource: '/things/{id}', pathParameters: { id } }) as Parameters<
          typeof getThing
        >[0],
        lambdaContext(),
      );
      expect(body).toBe(`{"id":${id},"fields":"all"}`);
      expect(JSON.parse(body, exactNumbers)).toEqual({ id: BigInt(id), fields: 'all' });
    }
  });

  test('the independent contract checker reads such ids exactly: both ends conform, one beyond does not', async () => {
    const fixture = await contractChecker(join(projectRoot, 'test/fixtures/extended-app/openapi.yaml'));
    const answer = (id: string) => ({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: `{"id":${id},"fields":"all"}`,
    });
    for (const id of ['9223372036854775807', '-9223372036854775808', '7']) {
      expect(fixture.violations(answer(id), { method: 'GET', path: `/things/${id}` })).toEqual([]);
    }
    for (const id of ['9223372036854775808', '-9223372036854775809']) {
      expect(fixture.violations(answer(id), { method: 'GET', path: '/things/1' })).toEqual([
        '/id must match format "int64"',
      ]);
    }
    expect(fixture.violations(answer('1'), { method: 'DELETE', path: '/things/1' })).toEqual([
      `DELETE /things/1 is no operation of ${join(projectRoot, 'test/fixtures/extended-app/openapi.yaml')}`,
    ]);
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
