// A streamed response's prelude, as the Node.js runtime writes it for HttpResponseStream.from
// (aws/aws-lambda-nodejs-runtime-interface-client, src/stream/http-response-stream.ts: the content type
// application/vnd.awslambda.http-integration-response, the prelude's JSON, 8 NUL bytes, then the body) and as "Lambda
// response streaming" (https://docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html) describes
// it: read whatever the chunks' boundaries, the body passed on from the byte after the delimiter.
import { Readable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { streamedResponse } from '../../src/gateway/streamed-response.ts';

const preludeType = 'application/vnd.awslambda.http-integration-response';
const bytesOf = async (body: Buffer | Readable) => {
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
};
/** The stream's bytes cut into chunks at `cuts`. */
const chunked = (bytes: Buffer, cuts: number[]) =>
  Readable.from(
    [0, ...cuts, bytes.length]
      .slice(1)
      .map((end, index, ends) => bytes.subarray(index === 0 ? 0 : ends[index - 1], end)),
  );
const written = (prelude: unknown, body: string) =>
  Buffer.concat([Buffer.from(JSON.stringify(prelude)), Buffer.alloc(8), Buffer.from(body)]);

describe('a streamed response', () => {
  const bytes = written({ statusCode: 201, headers: { 'X-A': 'a' }, cookies: ['c=1'] }, 'body\u0000with a NUL');
  test.each([[[]], [[5]], [[bytes.indexOf(0) + 3]], [[bytes.indexOf(0) + 8]], [[1, 2, 3, 40, 41]]])(
    'its prelude and body, however the chunks are cut (%j)',
    async (cuts) => {
      const streamed = await streamedResponse(preludeType, chunked(bytes, cuts));
      if (!('response' in streamed)) throw new Error('no response');
      expect(streamed.response.status).toBe(201);
      expect(streamed.response.headers).toEqual([
        ['X-A', 'a'],
        ['Set-Cookie', 'c=1'],
      ]);
      expect(await bytesOf(streamed.response.body)).toBe('body\u0000with a NUL');
    },
  );

  test('without a prelude (another content type): 200, that content type, every byte', async () => {
    const streamed = await streamedResponse('text/csv', chunked(Buffer.from('a,b\n1,2\n'), [3]));
    if (!('response' in streamed)) throw new Error('no response');
    expect(streamed.response).toMatchObject({ status: 200, headers: [['Content-Type', 'text/csv']] });
    expect(await bytesOf(streamed.response.body)).toBe('a,b\n1,2\n');
  });

  test.each([
    ['not JSON', Buffer.concat([Buffer.from('{status'), Buffer.alloc(8)])],
    ['a status out of range', written({ statusCode: 42 }, '')],
    ['a header not a scalar', written({ headers: { a: { b: 1 } } }, '')],
    ['no delimiter', Buffer.from('{"statusCode":200}')],
  ])('malformed: %s', async (_, stream) => {
    expect(await streamedResponse(preludeType, chunked(stream, []))).toEqual({ malformed: expect.any(String) });
  });

  test('failed before its prelude: the error', async () => {
    const body = new Readable({ read() {} });
    body.push(Buffer.from('{"statusCode"'));
    setImmediate(() => body.destroy(new Error('wilted')));
    const streamed = await streamedResponse(preludeType, body);
    expect('error' in streamed && streamed.error.message).toBe('wilted');
  });
});
