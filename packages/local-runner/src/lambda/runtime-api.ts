// One execution environment's Lambda Runtime API, on loopback: the documented HTTP protocol between Lambda and every
// runtime ("Using the Lambda runtime API for custom runtimes" in the Lambda guide, and the OpenAPI description AWS
// publishes for it, version 2018-06-01). The runtime finds it through AWS_LAMBDA_RUNTIME_API (host:port), asks for the
// next invocation (a long poll), and posts each invocation's response or error, or its initialization's error.
// `endpoints` lists them, each handled in a file of its own (runtime-api/), as the Runtime Interface Emulator's router
// does; what they share, the environment's side of the protocol, is runtime-api/environment.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterBody, rawResponse, respondingToEveryRequest } from '../http-server.ts';
import {
  Environment,
  forbidden,
  json,
  RuntimeApiError,
  type RuntimeInvocation,
  type RuntimeReports,
} from './runtime-api/environment.ts';
import { invocationError } from './runtime-api/error.ts';
import { initError } from './runtime-api/init-error.ts';
import { nextInvocation } from './runtime-api/next.ts';
import { invocationResponse } from './runtime-api/response.ts';

export {
  maxResponseBytes,
  type RuntimeReports,
  responseTooLarge,
  StreamedError,
} from './runtime-api/environment.ts';

export interface RuntimeApi {
  /** AWS_LAMBDA_RUNTIME_API's value: host:port. */
  address: string;
  /** Hands the runtime its next invocation (at once if it is waiting for one). */
  deliver: (invocation: RuntimeInvocation) => void;
  close: () => void;
}

/** A call of the Runtime API: its method, its path (the group, if any, the invocation's id) and its handler. */
interface Endpoint {
  method: 'GET' | 'POST';
  path: RegExp;
  /** `id`: the invocation's request id, percent-decoded ('' for a path without one). */
  handle: (environment: Environment, request: IncomingMessage, response: ServerResponse, id: string) => unknown;
}

/** The Runtime API's calls (its OpenAPI description's paths, under /2018-06-01/runtime). */
const endpoints: Endpoint[] = [
  {
    method: 'GET',
    path: /^\/2018-06-01\/runtime\/invocation\/next$/,
    handle: (environment, _request, response) => nextInvocation(environment, response),
  },
  { method: 'POST', path: /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/response$/, handle: invocationResponse },
  { method: 'POST', path: /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/error$/, handle: invocationError },
  { method: 'POST', path: /^\/2018-06-01\/runtime\/init\/error$/, handle: initError },
];

/**
 * Only the environment it serves may speak to a Runtime API (on Lambda nothing else reaches it). What can be told
 * apart on loopback: the Host must be the address AWS_LAMBDA_RUNTIME_API names (a page on a DNS-rebinding name sends
 * its own), and a request a browser sends carries Origin or the Fetch Metadata header Sec-Fetch-Site ("Fetch
 * Metadata Request Headers", W3C); Node's fetch, which a runtime may use, sends Sec-Fetch-Mode alone.
 */
const checkCaller = (request: IncomingMessage, address: string) => {
  if (request.headers.host !== address) throw forbidden(`the Runtime API answers only Host: ${address}`);
  if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined)
    throw forbidden('the Runtime API answers its execution environment, not a web page');
};

/** A path segment, percent-decoded; a bad encoding is the request's fault (400), never an error of the runner. */
const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RuntimeApiError(400, 'InvalidRequestID', `Invalid request ID: ${segment} (bad percent-encoding)`);
  }
};

/** Calls the endpoint `request` names (404 for a call that is not in the API). */
const route = async (environment: Environment, request: IncomingMessage, response: ServerResponse) => {
  const path = request.url ?? '';
  for (const { method, path: pattern, handle } of endpoints) {
    const match = request.method === method ? pattern.exec(path) : null;
    if (match) return handle(environment, request, response, decoded(match[1] ?? ''));
  }
  throw new RuntimeApiError(404, 'NotFound', `${request.method} ${path} is not in the Runtime API`);
};

/** Starts one environment's Runtime API on a free loopback port. */
export const startRuntimeApi = async (reports: RuntimeReports): Promise<RuntimeApi> => {
  const environment = new Environment(reports);
  let address = '';
  const server = createServer(async (request, response) => {
    // Total: whatever the request's bytes, an answer (a refusal in the Runtime API's ErrorResponse shape, or its 500,
    // "Container error"), and never an error that ends the runner.
    try {
      checkCaller(request, address);
      await route(environment, request, response);
    } catch (error) {
      if (response.headersSent) return void response.destroy();
      afterBody(request, response, () => {
        if (error instanceof RuntimeApiError)
          json(response, error.status, { errorMessage: error.message, errorType: error.errorType });
        else json(response, 500, { errorMessage: `Container error: ${String(error)}`, errorType: 'ContainerError' });
      });
    }
  });
  // CONNECT (a proxy tunnel) is no call of the Runtime API, and a request Node's parser refuses is none either: both
  // answered (http-server.ts), where Node would close the connection unanswered or reset it.
  respondingToEveryRequest(server, {
    tunnel: () =>
      rawResponse(
        404,
        [['Content-Type', 'application/json']],
        JSON.stringify({ errorMessage: 'CONNECT is not in the Runtime API', errorType: 'NotFound' }),
      ),
  });
  // The runtime keeps its connection alive between invocations, as its clients do.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    address,
    deliver: (invocation) => environment.deliver(invocation),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
};
