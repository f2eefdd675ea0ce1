// A WebSocket API's @connections API ("Use @connections commands in your backend service",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-how-to-call-websocket-api-connections.html):
// `POST /{stage}/@connections/{id}` sends its body to the client, `GET` answers when it connected and was last active,
// `DELETE` closes it (204); a connection that is closed, or never was, is `410 GoneException`. Its callers' SigV4
// signatures are not checked (any credentials reach it locally).
import type { IncomingMessage } from 'node:http';
import { webSocketQuotas } from '../../app/websocket-api.ts';
import { readBody } from '../../request-body.ts';
import type { WebSocketDeployment } from '../deployment.ts';
import type { HttpResponse } from '../responses.ts';
import type { Connections } from './connections.ts';

/** A management API error as the service answers it: its type in `x-amzn-ErrorType` (which the SDK reads), a message. */
const serviceError = (status: number, type: string, message: string): HttpResponse => ({
  status,
  headers: [
    ['Content-Type', 'application/json'],
    ['x-amzn-ErrorType', type],
  ],
  body: Buffer.from(JSON.stringify({ message })),
});

/** API Gateway's answer to a path no route has: 403 Forbidden. */
const forbidden = (): HttpResponse => ({
  status: 403,
  headers: [['Content-Type', 'application/json']],
  body: Buffer.from('{"message":"Forbidden"}'),
});

/** Whether the bytes are UTF-8 text (sent as a text frame; anything else as a binary one). */
const isText = (bytes: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** A request to the API's address that is no upgrade: an @connections call, else 403. */
export const managementPipeline = async (
  request: IncomingMessage,
  url: URL,
  deployment: WebSocketDeployment,
  connections: Connections,
): Promise<{ response: HttpResponse; notes: string[] }> => {
  const [, stageName, encodedId] = /^\/([^/]+)\/@connections\/([^/]+)$/.exec(url.pathname) ?? [];
  const answer = (response: HttpResponse, notes: string[] = []) => ({ response, notes });
  if (!deployment.api.stages.some(({ name }) => name === stageName) || encodedId === undefined) {
    request.resume();
    return answer(forbidden());
  }
  let id: string;
  try {
    id = decodeURIComponent(encodedId);
  } catch {
    request.resume();
    return answer(forbidden());
  }
  const body = await readBody(request, webSocketQuotas.maxMessageBytes);
  const connection = connections.get(id);
  // A connection of another stage is not this stage's to name.
  if (!connection || connection.stage.name !== stageName)
    return answer(serviceError(410, 'GoneException', `Connection ${id} is gone`), ['gone']);
  switch (request.method) {
    case 'POST':
      if (body === undefined)
        return answer(
          serviceError(413, 'PayloadTooLargeException', `Message over ${webSocketQuotas.maxMessageBytes} bytes`),
        );
      connection.socket.send(body, { binary: !isText(body) });
      return answer({ status: 200, headers: [], body: Buffer.alloc(0) });
    case 'GET':
      return answer({
        status: 200,
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from(
          JSON.stringify({
            connectedAt: new Date(connection.connectedAt).toISOString(),
            identity: {
              sourceIp: connection.sourceIp,
              ...(connection.userAgent !== undefined && { userAgent: connection.userAgent }),
            },
            lastActiveAt: new Date(connection.lastActiveAt).toISOString(),
          }),
        ),
      });
    case 'DELETE':
      // The $disconnect event AWS sent after a DeleteConnection, as its log showed it (boto/boto3 issue 3789): 1000,
      // "Connection Closed Normally". The close frame's own reason AWS sends we have not seen: none here.
      connections.close(connection, 1000, '', 'Connection Closed Normally');
      return answer({ status: 204, headers: [], body: Buffer.alloc(0) });
    default:
      return answer(forbidden());
  }
};
