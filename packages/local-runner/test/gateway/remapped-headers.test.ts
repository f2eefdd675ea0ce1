// The headers of a Lambda proxy result that API Gateway keeps for itself, passed on as `x-amzn-Remapped-<name>`
// ("Amazon API Gateway important notes for REST APIs"; cargo-lambda/cargo-lambda issue 862 shows Content-Length so
// remapped on AWS): a web framework behind an adapter sends its own Content-Length, which the client must not get as
// the response's (app/app-shapes.e2e.test.ts serves one: the stacks fixture's monolith).
import { expect, test } from '@jest/globals';
import { proxyResultToResponse } from '../../src/gateway/responses.ts';

test('Content-Length, Connection, Date, Server, Authorization and WWW-Authenticate are remapped; other headers pass', () => {
  const response = proxyResultToResponse(
    {
      statusCode: 200,
      headers: {
        'Content-Length': '999',
        connection: 'close',
        Date: 'Tue, 21 Dec 2021 14:51:23 GMT',
        Server: 'express',
        Authorization: 'Bearer x',
        'WWW-Authenticate': 'Basic',
        'X-Powered-By': 'Express',
      },
      multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
      body: 'hello',
    },
    false,
  );
  if ('malformed' in response) throw new Error(response.malformed);
  expect(response.headers).toEqual([
    ['x-amzn-Remapped-Content-Length', '999'],
    ['x-amzn-Remapped-connection', 'close'],
    ['x-amzn-Remapped-Date', 'Tue, 21 Dec 2021 14:51:23 GMT'],
    ['x-amzn-Remapped-Server', 'express'],
    ['x-amzn-Remapped-Authorization', 'Bearer x'],
    ['x-amzn-Remapped-WWW-Authenticate', 'Basic'],
    ['X-Powered-By', 'Express'],
    ['Set-Cookie', 'a=1'],
    ['Set-Cookie', 'b=2'],
    ['Content-Type', 'application/json'],
  ]);
  expect(response.body.toString()).toBe('hello');
});
