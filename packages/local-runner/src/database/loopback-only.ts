// The local DynamoDB answers programs on this machine alone. dynalite answers any Host and any Origin (a preflight
// with `Access-Control-Allow-Origin: *`) and takes any signature, so a web page that found its port could read and
// write the tables: here a request must name a loopback host (http-server.ts) and carry no `Origin`, which browsers send
// with every cross-origin request and every preflight (the Fetch standard's CORS protocol); an `OPTIONS` request is
// refused too (no SDK sends one). The AWS SDK sends `Host: 127.0.0.1:<port>`, no `Origin`, no `OPTIONS`.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { afterBody, hostIsServed, hostRefusal, requestHost, respondingToEveryRequest } from '../http-server.ts';

/** Why `request` is refused, or undefined when it is a loopback program's. */
const databaseRefusal = (request: IncomingMessage): string | undefined => {
  const host = requestHost(request);
  if (!hostIsServed(host)) return hostRefusal(host ?? '', { optionServesIt: false });
  if (request.headers.origin !== undefined || request.method === 'OPTIONS')
    return 'The local DynamoDB answers programs, not web pages: a request with an Origin header, or a CORS preflight, is refused';
  return undefined;
};

/**
 * Puts the check in front of `server`'s request handlers (dynalite's): a refused request gets a 403 in DynamoDB's
 * error shape (`__type`, `message`: an SDK names it AccessDeniedException) and no CORS header. dynalite throws a
 * request's stream errors (a client that goes away mid-body) out of its listener, which would end this process: its
 * listener is replaced by one that drops the response. CONNECT is answered 405 (http-server.ts, respondingToEveryRequest).
 */
export const servingLoopbackProgramsOnly = (server: Server) => {
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const refusal = databaseRefusal(request);
    if (refusal !== undefined) {
      const body = JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message: refusal });
      afterBody(request, response, () =>
        response.writeHead(403, { 'Content-Type': 'application/x-amz-json-1.0', Connection: 'close' }).end(body),
      );
      return;
    }
    for (const handler of handlers) handler.call(server, request, response);
    request.removeAllListeners('error');
    request.on('error', () => response.destroy());
  });
  return respondingToEveryRequest(server);
};
