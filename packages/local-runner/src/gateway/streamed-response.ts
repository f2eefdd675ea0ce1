// A streaming function's response as HTTP, for a function URL with InvokeMode RESPONSE_STREAM and a REST method with
// ResponseTransferMode STREAM ("Lambda response streaming", "Stream the integration response for your proxy
// integrations in API Gateway"): the status, headers and cookies from the prelude the function wrote before its body
// (HttpResponseStream.from: the content type application/vnd.awslambda.http-integration-response, the prelude's JSON,
// 8 NUL bytes; aws/aws-lambda-nodejs-runtime-interface-client, src/stream/http-response-stream.ts), then the body as
// it comes. Without a prelude, the stream's own content type and 200.
import { PassThrough, type Readable } from 'node:stream';
import { isScalar } from '../app/cfn.ts';
import { functionHeaders, type Malformed } from './function-headers.ts';
import { type HttpResponse, headerPairs, isFinalStatus } from './responses.ts';

const preludeContentType = 'application/vnd.awslambda.http-integration-response';
const delimiter = Buffer.alloc(8);

/**
 * The head of `body`, once it has come: `read`, the prelude up to its delimiter (`prelude`), else nothing once a first
 * chunk came; `rest`, the body from there on (undefined: it ended before). `error`: it failed before (the function's
 * error, runtime-api.ts).
 */
const head = (body: Readable, prelude: boolean) =>
  new Promise<{ read: Buffer; rest: Readable | undefined } | { error: Error }>((resolve) => {
    let read = Buffer.alloc(0);
    const settle = (outcome: { read: Buffer; rest: Readable | undefined } | { error: Error }) => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      read = Buffer.concat([read, chunk]);
      const at = prelude ? read.indexOf(delimiter) : read.length > 0 ? 0 : -1;
      if (at < 0) return;
      body.pause();
      const rest = new PassThrough();
      rest.write(read.subarray(prelude ? at + delimiter.length : at));
      // An error after the head cuts the response: `rest` is destroyed with it.
      body.once('error', (error) => rest.destroy(error));
      settle({ read: read.subarray(0, at), rest });
      body.pipe(rest);
    };
    const onEnd = () => settle({ read, rest: undefined });
    const onError = (error: Error) => settle({ error });
    body.on('data', onData).once('end', onEnd).once('error', onError);
  });

/**
 * The prelude's status, headers and cookies (as Set-Cookie), its headers as function-headers.ts sends a function's;
 * `{ malformed }` when it is not what HttpResponseStream writes.
 */
const preludeOf = (text: string): Pick<HttpResponse, 'status' | 'headers'> | Malformed => {
  const malformed = { malformed: 'not a prelude' };
  let prelude: unknown;
  try {
    prelude = JSON.parse(text);
  } catch {
    return malformed;
  }
  if (typeof prelude !== 'object' || prelude === null || Array.isArray(prelude)) return malformed;
  const { statusCode = 200, headers = {}, multiValueHeaders = {}, cookies = [] } = prelude as Record<string, unknown>;
  const status = Number(statusCode);
  if (!isFinalStatus(status)) return malformed;
  const pairs = headerPairs(headers, multiValueHeaders);
  if (!pairs || !Array.isArray(cookies) || !cookies.every(isScalar)) return malformed;
  const framed = functionHeaders([
    ...pairs,
    ...cookies.map((cookie): [string, string] => ['Set-Cookie', String(cookie)]),
  ]);
  return 'malformed' in framed ? framed : { status, headers: framed.headers };
};

/**
 * The response of a stream of `contentType`, once its head has come (the client gets nothing before): its body the
 * rest of the stream. `{ error }` when the function failed before its first byte (or its prelude), `{ malformed }`
 * when its prelude is not one.
 */
export const streamedResponse = async (
  contentType: string,
  body: Readable,
): Promise<{ response: HttpResponse } | { error: Error } | Malformed> => {
  const prelude = contentType === preludeContentType;
  const started = await head(body, prelude);
  if ('error' in started) return started;
  const { read, rest } = started;
  const rested = rest ?? Buffer.alloc(0);
  if (!prelude) return { response: { status: 200, headers: [['Content-Type', contentType]], body: rested } };
  // The stream ended without a delimiter: nothing written (the runtime writes the prelude at the first write), or no
  // prelude.
  if (!rest && read.length > 0) return { malformed: 'no delimiter after the prelude' };
  const parsed = rest ? preludeOf(read.toString('utf8')) : { status: 200, headers: [] };
  return 'malformed' in parsed ? parsed : { response: { ...parsed, body: rested } };
};
