// The endpoint of every AWS service the runner does not serve (all but served-services.ts's): functions are given
// it as AWS_ENDPOINT_URL, the endpoint every service's SDK client uses when no service-specific one is set
// ("Service-specific endpoints" in the AWS SDKs and Tools Reference Guide: the AWS SDK for JavaScript v3 and boto3 read
// it). A call there fails at once with an error naming the service and the operation, as the SDK reports a service's
// error: never a call to AWS itself from a local run (with the runner's dummy credentials), never a wait for a network
// that is not there. `--env-vars` can point a function elsewhere (another emulator) by setting AWS_ENDPOINT_URL or a
// service's own.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import {
  afterBody,
  hostIsServed,
  hostRefusal,
  listenOnLoopback,
  rawResponse,
  requestHost,
  respondingToEveryRequest,
} from '../http-server.ts';
import { readBody } from '../request-body.ts';
import { servedServiceNames } from './served-services.ts';

const errorCode = 'NotServedLocally';

/** The service a request was signed for (SigV4's credential scope: `Credential=<key>/<date>/<region>/<service>/`). */
const serviceOf = (request: IncomingMessage) =>
  /Credential=[^/]*\/[^/]*\/[^/]*\/([^/]+)\//.exec(String(request.headers.authorization))?.[1] ?? 'an AWS service';

/** The operation, as each protocol names it: the JSON protocols' X-Amz-Target, the query protocol's Action, else the request line. */
const operationOf = (request: IncomingMessage, body: string) => {
  const target = request.headers['x-amz-target'];
  if (typeof target === 'string') return target.slice(target.lastIndexOf('.') + 1);
  const action = new URLSearchParams(body).get('Action');
  return action ?? `${request.method} ${request.url?.split('?')[0]}`;
};

const xmlEscaped = (text: string) =>
  text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c] ?? c);

/**
 * The error in the shape the request's protocol reads ("AWS protocols" in the Smithy specification): JSON for the
 * JSON protocols (`__type` and `message`, and the `x-amzn-ErrorType` header the REST-JSON protocol reads), the query
 * protocol's `ErrorResponse` for a form-encoded request, and REST-XML's `Error` for the rest (S3).
 */
const errorBody = (request: IncomingMessage, message: string): [string, string] => {
  const type = String(request.headers['content-type'] ?? '');
  if (type.includes('x-www-form-urlencoded'))
    return [
      'text/xml',
      `<ErrorResponse><Error><Type>Sender</Type><Code>${errorCode}</Code><Message>${xmlEscaped(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
    ];
  if (type.includes('json') || serviceOf(request) !== 's3')
    return ['application/json', JSON.stringify({ __type: errorCode, message })];
  return ['application/xml', `<Error><Code>${errorCode}</Code><Message>${xmlEscaped(message)}</Message></Error>`];
};

/** Starts the endpoint; `log` gets a line for each call, naming its service and operation. */
export const serveUnservedServices = async (log: (line: string) => void) => {
  const server = createServer(async (request, response) => {
    // Loopback hosts alone, as every server of the runner (http-server.ts): a page on a rebound name gets nothing.
    const host = requestHost(request);
    if (!hostIsServed(host)) {
      const text = JSON.stringify({
        __type: 'AccessDeniedException',
        message: hostRefusal(host ?? '', { optionServesIt: false }),
      });
      afterBody(request, response, () => response.writeHead(403, { 'Content-Type': 'application/json' }).end(text));
      return;
    }
    // Only a query-protocol request's Action is read from the body: the first 64 KiB hold it.
    const body = ((await readBody(request, 65_536).catch(() => undefined)) ?? Buffer.alloc(0)).toString('utf8');
    const service = serviceOf(request);
    const operation = operationOf(request, body);
    const message = `${service} ${operation}: the local runner does not serve ${service} (it serves ${servedServiceNames()}); set AWS_ENDPOINT_URL with --env-vars to send the call elsewhere`;
    log(`a function called ${service} ${operation}, which the runner does not serve: answered ${errorCode} (400)`);
    const [contentType, text] = errorBody(request, message);
    // 400: a client error, which no SDK retries (they retry throttling and 5xx).
    response.writeHead(400, { 'Content-Type': contentType, 'x-amzn-ErrorType': errorCode }).end(text);
  });
  // CONNECT (a proxy tunnel) is no call of any service, answered as any other; a request Node's parser refuses, 400
  // (http-server.ts), where Node would close the connection unanswered or reset it.
  respondingToEveryRequest(server, {
    tunnel: () =>
      rawResponse(
        400,
        [
          ['Content-Type', 'application/json'],
          ['x-amzn-ErrorType', errorCode],
        ],
        JSON.stringify({ __type: errorCode, message: 'CONNECT: the local runner serves no tunnel' }),
      ),
  });
  const url = await listenOnLoopback(server);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};
