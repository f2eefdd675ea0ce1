// POST /2018-06-01/runtime/invocation/{id}/response: an invocation's response, whole (up to 6 MB) or streamed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import {
  type Environment,
  json,
  postedBody,
  RuntimeApiError,
  reportedError,
  responseTooLarge,
  StreamedError,
} from './environment.ts';

/**
 * A streamed response ("Using the Lambda runtime API for custom runtimes", response streaming): its chunks passed on
 * as they come; at its end, its trailers say whether it failed (Lambda-Runtime-Function-Error-Type, and the error
 * body, base64, in Lambda-Runtime-Function-Error-Body). The 6 MB limit of a buffered response does not apply.
 */
const streamed = (environment: Environment, request: IncomingMessage, response: ServerResponse, id: string) => {
  environment.answer(id);
  const body = new PassThrough();
  // A stream no one reads any more (its invocation settled: the client gone, the time-out) is still failed below when
  // its runtime's request ends badly: that error must not end the process. A reader takes it by its own listener.
  body.on('error', () => {});
  let ended = false;
  request.on('data', (chunk: Buffer) => body.write(chunk));
  request.on('end', () => {
    ended = true;
    const errorType = request.trailers['lambda-runtime-function-error-type'];
    if (errorType === undefined) body.end();
    else {
      const encoded = request.trailers['lambda-runtime-function-error-body'] ?? '';
      const { message } = reportedError(request, Buffer.from(encoded, 'base64').toString('utf8'));
      body.destroy(new StreamedError(errorType, message));
    }
    json(response, 202, { status: 'OK' });
  });
  // The runtime gone before the end (killed at its timeout): the stream is cut.
  request.on('close', () => {
    if (!ended) body.destroy(new StreamedError('Runtime.StreamCut', 'the runtime ended before its response'));
  });
  environment.reports.stream(id, String(request.headers['content-type'] ?? 'application/octet-stream'), body);
};

export const invocationResponse = async (
  environment: Environment,
  request: IncomingMessage,
  response: ServerResponse,
  id: string,
) => {
  if (request.headers['lambda-runtime-function-response-mode'] === 'streaming')
    return streamed(environment, request, response, id);
  const body = await postedBody(request).catch((error: unknown) => {
    // Over the limit, the runtime is refused, and the invocation ends with the function error Lambda's Invoke gives.
    if (error instanceof RuntimeApiError && error.status === 413 && id === environment.current) {
      environment.answer(id);
      environment.reports.error(id, responseTooLarge.errorType, responseTooLarge.message);
    }
    throw error;
  });
  if (body === undefined) return;
  environment.answer(id);
  // A runtime that sent its next poll with this response (pipelined, as runtime.mjs does: the poll is read by now) has
  // its 202 once the pool has handed that poll the next invocation, if one waits (it does so in this turn of the event
  // loop): the two answers leave back to back, and the runtime wakes once for both rather than once for each. A runtime
  // that waits for the 202 before it polls has it at once.
  const pipelined = environment.waiting !== undefined;
  if (!pipelined) json(response, 202, { status: 'OK' });
  environment.reports.response(id, body);
  if (pipelined)
    setImmediate(() => {
      if (!response.destroyed) json(response, 202, { status: 'OK' });
    });
};
