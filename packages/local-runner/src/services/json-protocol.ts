// The AWS JSON protocol family's server (awsJson1_1, "AWS JSON 1.1 protocol" in the Smithy specification): a loopback
// server for the local services given it (local-services.ts gives each its own). A call is a POST whose
// `X-Amz-Target` names `<service prefix>.<operation>` and whose body is the input as JSON; the answer is the output
// as JSON, or an error as the SDKs read it: status 400 (or the error's own), `{"__type": <name>, "message": ...}` and
// the `x-amzn-ErrorType` header. Each service is a module giving its target prefix and its operations.
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { Readable } from 'node:stream';
import { localAws } from '../app/local-aws.ts';
import { bothHttpVersions } from '../both-http-versions.ts';
import { RunnerError } from '../errors.ts';
import { checkSignature, type SignatureRefusal } from '../gateway/sigv4.ts';
import { afterBody, listenOnLoopback, respondingToEveryRequest, sdkCallRefusal } from '../http-server.ts';
import { readBody } from '../request-body.ts';

/** A service's answer of error `type` (its name, as the API reference lists it), with its HTTP status. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly type: string;
  readonly status: number;
  constructor(type: string, message: string, status = 400) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

export type JsonInput = Record<string, unknown>;

/** A service of the JSON protocol: its target prefix (`AmazonSSM`, `secretsmanager`) and its operations. */
export interface JsonService {
  /** Its name in the log and in a not-served error. */
  name: string;
  /** Its name in a SigV4 credential scope (`ssm`, `secretsmanager`): what its callers sign for. */
  signingName: string;
  targetPrefix: string;
  operations: Record<string, (input: JsonInput) => unknown>;
  /** Whether its port takes cleartext HTTP/2 besides HTTP/1.1: Kinesis's, whose SDK v3 client speaks HTTP/2. */
  http2?: boolean;
  /** The largest request body it takes, if over the default (`bodyLimit`): Kinesis's PutRecords, base64. */
  bodyLimit?: number;
  /** Its calls over the query protocol (a form-encoded POST naming no X-Amz-Target), if it takes them: SQS's. */
  query?: (request: IncomingMessage, body: Buffer) => Promise<QueryAnswer>;
}

/** The answer of a service of the query protocol (sqs-query.ts), which this server hands a form-encoded POST. */
export interface QueryAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A call as this server reads it, over HTTP/1.1 (IncomingMessage) or HTTP/2 (Http2ServerRequest). */
type ServiceRequest = Readable & Pick<IncomingMessage, 'url' | 'headers' | 'rawHeaders' | 'method'>;

/** An answer as this server writes it, over either version. */
interface ServiceResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
  destroy(): unknown;
}

/** A form-encoded POST naming no X-Amz-Target: a call of the query protocol (an older SQS client's). */
const isQueryCall = (request: ServiceRequest): request is IncomingMessage =>
  request instanceof IncomingMessage &&
  request.headers['x-amz-target'] === undefined &&
  String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

/** A request body larger is refused, unless a service takes more (the largest SSM or Secrets Manager value is 64 KiB). */
const bodyLimit = 1024 * 1024;

/** The largest request body any of `services` takes. */
const bodyLimitOf = (services: JsonService[]) =>
  Math.max(bodyLimit, ...services.map((service) => service.bodyLimit ?? 0));

const send = (response: ServiceResponse, status: number, body: unknown, errorType?: string) => {
  response.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.1',
    'x-amzn-RequestId': randomUUID(),
    ...(errorType && { 'x-amzn-ErrorType': errorType }),
  });
  response.end(JSON.stringify(body));
};

/**
 * A refusal of the shared SigV4 check (gateway/sigv4.ts), as the JSON services name it: an unsigned call
 * MissingAuthenticationTokenException, an Authorization header that is no SigV4 one IncompleteSignatureException,
 * another access key UnrecognizedClientException, and another secret, scope, date, region or request
 * InvalidSignatureException, each status 400 (docs/services.md; the API references' "Common Errors").
 */
const refusalError = (refused: SignatureRefusal): ServiceError => {
  switch (refused.reason) {
    case 'missing':
      return new ServiceError('MissingAuthenticationTokenException', 'Missing Authentication Token');
    case 'incomplete':
      return new ServiceError('IncompleteSignatureException', refused.message);
    case 'unrecognized':
      return new ServiceError(
        'UnrecognizedClientException',
        `The security token included in the request is invalid: the local services take the runner's access key (${localAws.credentials.accessKeyId})`,
      );
    case 'invalid':
      return new ServiceError('InvalidSignatureException', refused.message);
  }
};

/**
 * The caller's refusal, if any: the request's SigV4 signature computed again with the runner's credentials, for the
 * service's signing name (`ssm`, `secretsmanager`) and the runner's region, by the check function URLs and IAM routes
 * share (gateway/sigv4.ts). A target no service has needs only an Authorization header: it is answered NotServedLocally.
 */
const refusedCaller = async (service: JsonService | undefined, request: ServiceRequest, body: Buffer) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (service === undefined)
    return request.headers.authorization === undefined ? refusalError({ reason: 'missing' }) : undefined;
  const checked = await checkSignature(request, url, body, service.signingName);
  return 'refused' in checked ? refusalError(checked.refused) : undefined;
};

/** The service whose target prefix `target` (`<prefix>.<operation>`) has. */
const serviceOf = (services: JsonService[], target: string) =>
  services.find(({ targetPrefix }) => targetPrefix === target.slice(0, target.lastIndexOf('.')));

/** The operation `target` names of one of `services`, or the error that says it is not served. */
const operationOf = (services: JsonService[], target: string) => {
  const name = target.slice(target.lastIndexOf('.') + 1);
  const service = serviceOf(services, target);
  const operation = service && Object.hasOwn(service.operations, name) ? service.operations[name] : undefined;
  if (operation) return { operation, called: `${service?.name} ${name}` };
  const served = services.map(
    ({ name: named, targetPrefix, operations }) => `${named} (${targetPrefix}: ${Object.keys(operations).join(', ')})`,
  );
  return {
    error: new ServiceError(
      'NotServedLocally',
      `${target || 'a request with no X-Amz-Target'}: the local runner does not serve it; it serves ${served.join('; ')}`,
    ),
  };
};

/** The answer to one call: the operation's output, or the error it threw (a ServiceError; anything else is a bug). */
const answer = async (
  services: JsonService[],
  request: ServiceRequest,
  body: Buffer | undefined,
  log: (line: string) => void,
) => {
  if (body === undefined)
    return new ServiceError('ValidationException', `the request body is over ${bodyLimitOf(services)} bytes`);
  const target = String(request.headers['x-amz-target'] ?? '');
  const refused = await refusedCaller(serviceOf(services, target), request, body);
  if (refused) return refused;
  const found = operationOf(services, target);
  if (found.error) {
    log(
      `a function called ${String(request.headers['x-amz-target'])}, which the runner does not serve: answered NotServedLocally (400)`,
    );
    return found.error;
  }
  let input: unknown;
  try {
    input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    return new ServiceError('SerializationException', 'the request body is not JSON');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return new ServiceError('SerializationException', 'the request body is not a JSON object');
  try {
    return { output: await found.operation(input as JsonInput) };
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
};

/** Answers each call to `services`, over HTTP/1.1 or HTTP/2. */
const handlerOf = (services: JsonService[], log: (line: string) => void) => {
  const query = services.find((service) => service.query !== undefined)?.query;
  return async (request: ServiceRequest, response: ServiceResponse) => {
    // Loopback hosts alone, as every server of the runner (http-server.ts).
    // Browsers are refused outright, as the database refuses them (database/loopback-only.ts): an SDK sends no Origin.
    const refused = sdkCallRefusal(request, 'this local service');
    if (refused) {
      const refusal = { __type: 'AccessDeniedException', message: refused };
      afterBody(request, response, () => send(response, 403, refusal, refusal.__type));
      return;
    }
    const body = await readBody(request, bodyLimitOf(services)).catch(() => undefined);
    try {
      if (query && body !== undefined && isQueryCall(request)) {
        const answered = await query(request, body);
        response.writeHead(answered.status, answered.headers);
        response.end(answered.body);
        return;
      }
      const result = await answer(services, request, body, log);
      if (result instanceof ServiceError)
        send(response, result.status, { __type: result.type, message: result.message }, result.type);
      else send(response, 200, result.output ?? {});
    } catch (error) {
      // The data folder's (a RunnerError: a value its key does not open), said as it is; anything else is a bug,
      // with its stack. The SDK reads a 500 as the service's failure (and retries it).
      log(
        `a local service failed: ${error instanceof RunnerError ? error.message : ((error as Error).stack ?? String(error))}`,
      );
      send(response, 500, { __type: 'InternalFailure', message: (error as Error).message }, 'InternalFailure');
    }
  };
};

/**
 * Serves `services` on loopback; resolves with the address their endpoint variables name. When one takes HTTP/2, the
 * same port takes cleartext HTTP/2 too (both-http-versions.ts).
 */
export const serveJsonServices = async (services: JsonService[], log: (line: string) => void) => {
  const handle = handlerOf(services, log);
  const server = respondingToEveryRequest(createServer(handle));
  if (services.some((service) => service.http2)) {
    const both = bothHttpVersions(server, createHttp2Server(handle));
    return { url: await listenOnLoopback(both.front), close: both.close };
  }
  const url = await listenOnLoopback(server);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};
