// What the database process answers before dynalite: the DynamoDB Streams API (its target prefix,
// `DynamoDBStreams_20120810`, on the database's own port), UpdateTable's stream setting, TransactWriteItems, Time to
// Live (time-to-live.ts), and
// CreateTable's StreamSpecification (noted, then the request goes on to dynalite, its body as it came). Every other
// request goes to dynalite untouched.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { readBody } from '../../request-body.ts';
import { DatabaseError, sendError, sendJson } from './database-error.ts';
import type { Streams } from './streams.ts';
import { streamsOperations } from './streams-api.ts';
import { requestedStream, streamLabelHeader, updateTableStream } from './table-streams.ts';
import { describeTimeToLive, updateTimeToLive } from './time-to-live.ts';
import { transactWriteItems } from './transact-write.ts';

type Input = Record<string, unknown>;

const streamsPrefix = 'DynamoDBStreams_20120810';
const databasePrefix = 'DynamoDB_20120810';
/** The DynamoDB operations answered here whole (dynalite serves none of them). */
const ownOperations: Record<string, (streams: Streams, input: Input) => Promise<unknown>> = {
  TransactWriteItems: transactWriteItems,
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

const parsed = (body: Buffer): Input | undefined => {
  try {
    const value: unknown = JSON.parse(body.toString());
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Input) : undefined;
  } catch {
    return undefined;
  }
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
    const input = parsed(body);
    const label = request.headers[streamLabelHeader];
    const given = typeof label === 'string' ? label : undefined;
    if (api === streamsPrefix) {
      const run = streamsOperations[operation];
      if (!run || !input) {
        const type = run ? 'SerializationException' : 'UnknownOperationException';
        return answer(response, () =>
          Promise.reject(new DatabaseError(type, `${operation}: not an operation, or its input is no JSON object`)),
        );
      }
      return answer(response, () => run(streams, input));
    }
    const own = input && ownOperations[operation];
    if (input && own) return answer(response, () => own(streams, input));
    if (input && operation === 'UpdateTable' && input.StreamSpecification !== undefined)
      return answer(response, () => updateTableStream(streams, input, given));
    if (input && operation === 'CreateTable' && typeof input.TableName === 'string') {
      const name = input.TableName;
      let stream: ReturnType<typeof requestedStream>;
      try {
        stream = requestedStream(input, given);
      } catch (error) {
        return sendError(response, error);
      }
      if (stream) {
        streams.expectCreate(name, stream);
        response.once('close', () => streams.forgetCreate(name));
      }
    }
    forward(replayed(request, body), response);
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const [api = '', operation = ''] = String(request.headers['x-amz-target'] ?? '').split('.');
    const ours =
      api === streamsPrefix ||
      (api === databasePrefix &&
        (operation === 'CreateTable' || operation === 'UpdateTable' || operation in ownOperations));
    if (!ours || request.method !== 'POST') return forward(request, response);
    void handle(request, response, api, operation);
  });
  return server;
};
