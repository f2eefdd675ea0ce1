// The AWS JSON protocol family's server (awsJson1_1, "AWS JSON 1.1 protocol" in the Smithy specification): one
// loopback server for every local service that speaks it (SSM, Secrets Manager). A call is a POST whose
// `X-Amz-Target` names `<service prefix>.<operation>` and whose body is the input as JSON; the answer is the output
// as JSON, or an error as the SDKs read it: status 400 (or the error's own), `{"__type": <name>, "message": ...}` and
// the `x-amzn-ErrorType` header. Each service is a module giving its target prefix and its operations.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { localAws } from '../app/local-aws.ts';
import { RunnerError } from '../errors.ts';
import {
  afterBody,
  hostIsServed,
  hostRefusal,
  listenOnLoopback,
  requestHost,
  respondingToEveryRequest,
} from '../http-server.ts';
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
  targetPrefix: string;
  operations: Record<string, (input: JsonInput) => unknown>;
}

/** A request body this large is refused (the largest value either service takes is 64 KiB). */
const bodyLimit = 1024 * 1024;

const send = (response: ServerResponse, status: number, body: unknown, errorType?: string) =>
  response
    .writeHead(status, {
      'Content-Type': 'application/x-amz-json-1.1',
      'x-amzn-RequestId': randomUUID(),
      ...(errorType && { 'x-amzn-ErrorType': errorType }),
    })
    .end(JSON.stringify(body));

/** `AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, ...`: the key and the region. */
const credentialScope = (request: IncomingMessage) => {
  const [, key, region] =
    /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/\d{8}\/([^/,\s]+)\/[^/,\s]+\/aws4_request,/.exec(
      String(request.headers.authorization ?? ''),
    ) ?? [];
  return key === undefined ? undefined : { key, region };
};

/**
 * The caller, as far as the runner checks it: signed (SigV4's Authorization header) with the runner's access key, for
 * its region. The signature itself is not computed again (docs/services.md); an unsigned call is refused as AWS refuses
 * it (MissingAuthenticationTokenException), another key or region as an invalid token or signature.
 */
const refusedCaller = (request: IncomingMessage): ServiceError | undefined => {
  const scope = credentialScope(request);
  if (scope === undefined)
    return new ServiceError('MissingAuthenticationTokenException', 'Missing Authentication Token');
  if (scope.key !== localAws.credentials.accessKeyId)
    return new ServiceError(
      'UnrecognizedClientException',
      `The security token included in the request is invalid: the local services take the runner's access key (${localAws.credentials.accessKeyId})`,
    );
  if (scope.region !== localAws.region)
    return new ServiceError(
      'InvalidSignatureException',
      `Credential should be scoped to a valid region: the local services are in ${localAws.region}, not ${scope.region}`,
    );
  return undefined;
};

/** The operation `target` names of one of `services`, or the error that says it is not served. */
const operationOf = (services: JsonService[], target: string) => {
  const dot = target.lastIndexOf('.');
  const prefix = target.slice(0, dot);
  const name = target.slice(dot + 1);
  const service = services.find(({ targetPrefix }) => targetPrefix === prefix);
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
  request: IncomingMessage,
  body: Buffer | undefined,
  log: (line: string) => void,
) => {
  const refused = refusedCaller(request);
  if (refused) return refused;
  if (body === undefined) return new ServiceError('ValidationException', `the request body is over ${bodyLimit} bytes`);
  const found = operationOf(services, String(request.headers['x-amz-target'] ?? ''));
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

/** Serves `services` on loopback; resolves with the address every service's endpoint variable names. */
export const serveJsonServices = async (services: JsonService[], log: (line: string) => void) => {
  const server = createServer(async (request, response) => {
    // Loopback hosts alone, as every server of the runner (http-server.ts).
    // Browsers are refused outright, as the database refuses them (database/loopback-only.ts): an SDK sends no Origin.
    const host = requestHost(request);
    const refused = !hostIsServed(host)
      ? hostRefusal(host ?? '', { optionServesIt: false })
      : request.headers.origin === undefined
        ? undefined
        : `a request from a web page (Origin ${request.headers.origin}): the local services answer SDKs alone`;
    if (refused) {
      const refusal = { __type: 'AccessDeniedException', message: refused };
      afterBody(request, response, () => send(response, 403, refusal, refusal.__type));
      return;
    }
    const body = await readBody(request, bodyLimit).catch(() => undefined);
    try {
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
  });
  respondingToEveryRequest(server);
  const url = await listenOnLoopback(server);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};
