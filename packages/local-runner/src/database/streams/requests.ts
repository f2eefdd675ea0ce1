// What the database process answers before dynalite: the DynamoDB Streams API (its target prefix,
// `DynamoDBStreams_20120810`, on the database's own port), UpdateTable's stream setting, TransactWriteItems and
// TransactGetItems, Time to Live (time-to-live.ts), and CreateTable's StreamSpecification (noted, then the request
// goes on to dynalite, its body as it came). Every DynamoDB call's body is read here first, and one that is JSON but no object refused
// (SerializationException): dynalite ends its process on a body of `null`. Any other request goes to dynalite as is.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { readBody } from '../../request-body.ts';
import { DatabaseError, sendError, sendJson } from './database-error.ts';
import type { Streams } from './streams.ts';
import { streamsOperations } from './streams-api.ts';
import { requestedStream, streamLabelHeader, updateTableStream } from './table-streams.ts';
import { describeTimeToLive, updateTimeToLive } from './time-to-live.ts';
import { transactGetItems } from './transact-get.ts';
import { transactWriteItems } from './transact-write.ts';

type Input = Record<string, unknown>;

const streamsPrefix = 'DynamoDBStreams_20120810';
const databasePrefix = 'DynamoDB_20120810';
/** The DynamoDB operations answered here whole (dynalite serves none of them). */
const ownOperations: Record<string, (streams: Streams, input: Input) => Promise<unknown>> = {
  TransactWriteItems: transactWriteItems,
  TransactGetItems: transactGetItems,
  UpdateTimeToLive: updateTimeToLive,
  DescribeTimeToLive: describeTimeToLive,
};
/** dynalite's own limit on a request's body. */
const bodyLimit = 16 * 1024 * 1024;

/** The request again, its body `body`, for dynalite's handler (which reads its events). */
const replayed = (request: IncomingMessage, body: Buffer) =>
  Object.assign(Readable.from([body]), {
    headers: request.headers,
    method: request.method,
    url: request.url,
  }) as unknown as IncomingMessage;

/** The body's JSON: an object (an operation's input), another JSON value, or none (not JSON). */
const parsed = (body: Buffer): { input?: Input; notObject?: true } => {
  let value: unknown;
  try {
    value = JSON.parse(body.toString());
  } catch {
    return {};
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { input: value as Input }
    : { notObject: true };
};

/**
 * Notes the stream CreateTable asks for (refused, a StreamSpecification that is not one), for streams.ts to attach
 * when dynalite stores the table; forgotten once answered.
 */
const noteCreate = (streams: Streams, input: Input, label: string | undefined, response: ServerResponse) => {
  if (typeof input.TableName !== 'string') return;
  const name = input.TableName;
  const stream = requestedStream(input, label);
  if (!stream) return;
  streams.expectCreate(name, stream);
  response.once('close', () => streams.forgetCreate(name));
};

/** Puts the streams' answers in front of `server`'s request handlers (dynalite's). */
export const withStreams = (server: Server, streams: Streams) => {
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  const forward = (request: IncomingMessage, response: ServerResponse) => {
    for (const handler of handlers) handler.call(server, request, response);
  };
  // `work` may throw before it returns a promise (a refused input): answered the same.
  const answer = (response: ServerResponse, work: () => Promise<unknown>) =>
    Promise.resolve()
      .then(work)
      .then(
        (output) => sendJson(response, 200, output),
        (error: unknown) => sendError(response, error),
      );

  const handle = async (request: IncomingMessage, response: ServerResponse, api: string, operation: string) => {
    const body = await readBody(request, bodyLimit).catch(() => undefined);
    if (body === undefined) return void response.destroy();
    const { input, notObject } = parsed(body);
    const label = request.headers[streamLabelHeader];
    const given = typeof label === 'string' ? label : undefined;
    // dynalite ends its process on a body of JSON `null` (it reads members of it): any input that is no object is
    // refused here, as AWS does.
    const run = api === streamsPrefix ? streamsOperations[operation] : ownOperations[operation];
    if (notObject || (api === streamsPrefix && !input) || (api === streamsPrefix && !run)) {
      const type = api === streamsPrefix && !run ? 'UnknownOperationException' : 'SerializationException';
      return sendError(
        response,
        new DatabaseError(type, `${operation}: not an operation, or its input is no JSON object`),
      );
    }
    if (input && run) return answer(response, () => run(streams, input));
    if (input && operation === 'UpdateTable' && input.StreamSpecification !== undefined)
      return answer(response, () => updateTableStream(streams, input, given));
    if (input && operation === 'CreateTable') {
      try {
        noteCreate(streams, input, given, response);
      } catch (error) {
        return sendError(response, error);
      }
    }
    forward(replayed(request, body), response);
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const [api = '', operation = ''] = String(request.headers['x-amz-target'] ?? '').split('.');
    const ours = api === streamsPrefix || api === databasePrefix;
    if (!ours || request.method !== 'POST') return forward(request, response);
    void handle(request, response, api, operation);
  });
  return server;
};
