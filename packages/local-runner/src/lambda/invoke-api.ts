// Lambda's Invoke API on a loopback port of its own ("Invoke", AWS Lambda API Reference,
// https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html), as `sam local start-lambda` offers it: the AWS SDKs,
// boto3 and the AWS CLI reach it unchanged through AWS_ENDPOINT_URL_LAMBDA (or `--endpoint-url`). One operation, in
// Lambda's REST-JSON protocol: `POST /2015-03-31/functions/{FunctionName}/invocations`, FunctionName a name, an ARN or
// a partial ARN with a qualifier or not (invoke-target.ts), `Qualifier` in the query, `X-Amz-Invocation-Type`
// RequestResponse (the function's result, `X-Amz-Function-Error: Unhandled` with the error as the payload on a function
// error, `X-Amz-Executed-Version`, and with `X-Amz-Log-Type: Tail` the last 4 KB of its log, base64, in
// `X-Amz-Log-Result`), Event (202: queued, async-invocations.ts) or DryRun (204). Errors are Lambda's: the status, the
// `x-amzn-ErrorType` header and `{"Type": "User", "message": ...}`. Requests are signed with the runner's credentials
// for `lambda` (gateway/sigv4.ts, the one SigV4 check).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { functionNameOf } from '../app/aws-function-names.ts';
import { localAws } from '../app/local-aws.ts';
import { checkSignature, type SignatureRefusal } from '../gateway/sigv4.ts';
import { afterBody, listenOnLoopback, respondingToEveryRequest, sdkCallRefusal } from '../http-server.ts';
import { ClientAbortedError, readBody } from '../request-body.ts';
import { TargetError } from '../services/targets.ts';
import type { AsyncInvocations } from './async-invocations.ts';
import type { InvocableFunctions } from './invocable.ts';
import { invokeTarget } from './invoke-target.ts';
import { failureOf, type InvocationReport } from './pool.ts';

/** An error as Lambda answers it: its type (the API reference's name) and status. */
class InvokeError extends Error {
  override name = 'InvokeError';
  readonly type: string;
  readonly status: number;
  constructor(type: string, status: number, message: string) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

/** The request payload quotas ("Lambda quotas"): 6 MB invoked synchronously, 1 MB asynchronously. */
const syncLimit = 6 * 1024 * 1024;
const asyncLimit = 1024 * 1024;
/** The log a Tail answer carries, at most: its last 4 KB. */
const tailBytes = 4 * 1024;

const invocationPath = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const sendError = (response: ServerResponse, { type, status, message }: InvokeError) =>
  response
    .writeHead(status, {
      'Content-Type': 'application/json',
      'x-amzn-RequestId': randomUUID(),
      'x-amzn-ErrorType': type,
    })
    .end(JSON.stringify({ Type: 'User', message }));

/** A refusal of the SigV4 check, as Lambda's common errors name it. */
const refusalError = (refused: SignatureRefusal) => {
  switch (refused.reason) {
    case 'missing':
      return new InvokeError('MissingAuthenticationTokenException', 403, 'Missing Authentication Token');
    case 'incomplete':
      return new InvokeError('IncompleteSignatureException', 400, refused.message);
    case 'unrecognized':
      return new InvokeError(
        'UnrecognizedClientException',
        403,
        `The security token included in the request is invalid: the local Lambda takes the runner's access key (${localAws.credentials.accessKeyId})`,
      );
    case 'invalid':
      return new InvokeError('InvalidSignatureException', 403, refused.message);
  }
};

/** What the request asks: the function (as found), how to invoke it, and its payload. */
const invocationOf = (request: IncomingMessage, url: URL, body: Buffer, functions: InvocableFunctions) => {
  const path = invocationPath.exec(url.pathname);
  if (request.method !== 'POST' || !path)
    throw new InvokeError(
      'NotServedLocally',
      400,
      `${request.method} ${url.pathname}: the local Lambda endpoint serves Invoke alone (POST /2015-03-31/functions/{FunctionName}/invocations)`,
    );
  const functionName = decodeURIComponent(path[1] ?? '');
  const type = String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse');
  if (!['RequestResponse', 'Event', 'DryRun'].includes(type))
    throw new InvokeError(
      'InvalidParameterValueException',
      400,
      `InvocationType ${type}: not RequestResponse, Event or DryRun`,
    );
  const named = invokeTarget(functionName);
  const queried = url.searchParams.get('Qualifier') ?? undefined;
  if (named?.qualifier !== undefined && queried !== undefined && named.qualifier !== queried)
    throw new InvokeError(
      'InvalidParameterValueException',
      400,
      'The derived qualifier from the function name does not match the specified qualifier.',
    );
  const qualifier = named?.qualifier ?? queried;
  const target = named ? `${named.name}${qualifier === undefined ? '' : `:${qualifier}`}` : functionName;
  const found = findFunction(functions, target);
  const limit = type === 'Event' ? asyncLimit : syncLimit;
  if (body.length > limit)
    throw new InvokeError(
      'RequestTooLargeException',
      413,
      `Request must be smaller than ${limit} bytes for the InvokeFunction operation`,
    );
  return {
    type,
    found,
    qualifier,
    target,
    payload: payloadOf(body),
    tail: request.headers['x-amz-log-type'] === 'Tail',
  };
};

const findFunction = (functions: InvocableFunctions, target: string) => {
  try {
    return functions.find(target);
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    const shown = target.startsWith('arn:')
      ? target
      : `arn:${localAws.partition}:lambda:${localAws.region}:${localAws.accountId}:function:${target.replace(/^\d{12}:function:/, '')}`;
    throw new InvokeError('ResourceNotFoundException', 404, `Function not found: ${shown}`);
  }
};

/** The payload as JSON (none: `{}`); InvalidRequestContentException when it is not JSON. */
const payloadOf = (body: Buffer): unknown => {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new InvokeError(
      'InvalidRequestContentException',
      400,
      `Could not parse request body into json: ${(error as Error).message}`,
    );
  }
};

/** The function's answer as Invoke gives it: the result, or the error object with the function error header. */
const answerOf = (report: InvocationReport, requestId: string) => {
  const { invocation } = report;
  if (invocation.outcome === 'result') return { payload: invocation.result ?? null, error: undefined };
  if (invocation.outcome === 'error')
    return { payload: { errorType: invocation.errorType, errorMessage: invocation.message }, error: 'Unhandled' };
  return {
    payload: {
      errorType: 'Runtime.ExitError',
      errorMessage: `RequestId: ${requestId} Error: ${failureOf(invocation)}`,
    },
    error: 'Unhandled',
  };
};

/** The log lines Lambda frames an invocation's output with, and its last 4 KB, base64. */
const tailOf = (output: string, requestId: string, version: string, report: InvocationReport, memoryMb: number) => {
  const duration = report.durationMs.toFixed(2);
  const init = report.initMs === undefined ? '' : `\tInit Duration: ${report.initMs.toFixed(2)} ms`;
  const log = Buffer.from(
    `START RequestId: ${requestId} Version: ${version}\n${output}${output.endsWith('\n') || output === '' ? '' : '\n'}` +
      `END RequestId: ${requestId}\nREPORT RequestId: ${requestId}\tDuration: ${duration} ms\tBilled Duration: ${Math.ceil(report.durationMs)} ms\tMemory Size: ${memoryMb} MB${init}\t\n`,
  );
  return log.subarray(Math.max(0, log.length - tailBytes)).toString('base64');
};

/** Runs a RequestResponse invocation and answers it. */
const invokeNow = async (
  response: ServerResponse,
  { found, qualifier, payload, tail }: ReturnType<typeof invocationOf>,
  log: (line: string) => void,
) => {
  const requestId = randomUUID();
  const written: string[] = [];
  const report = await found.pool.invoke(payload, {
    requestId,
    ...(found.qualifier && { qualifier: found.qualifier }),
    ...(tail && { onOutput: (text: string) => written.push(text) }),
  });
  // What the function wrote just before it answered may still be in its pipe: one turn of the loop reads it.
  if (tail) await new Promise((resolve) => setImmediate(resolve));
  const version = qualifier === undefined || qualifier === '$LATEST' ? '$LATEST' : found.fn.version;
  const answer = answerOf(report, requestId);
  const name = functionNameOf(found.context, found.fn.id);
  log(
    `Invoke ${name}${qualifier ? `:${qualifier}` : ''} (RequestResponse): ${answer.error ? `function error: ${failureOf(report.invocation)}` : 'ok'}`,
  );
  response
    .writeHead(200, {
      'Content-Type': 'application/json',
      'x-amzn-RequestId': requestId,
      'X-Amz-Executed-Version': version,
      ...(answer.error && { 'X-Amz-Function-Error': answer.error }),
      ...(tail && { 'X-Amz-Log-Result': tailOf(written.join(''), requestId, version, report, found.fn.memoryMb) }),
    })
    .end(JSON.stringify(answer.payload));
};

/** The answer to one request, the errors Lambda gives included. */
const answer = async (
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer | undefined,
  { functions, asyncInvocations, log }: InvokeApiOptions,
) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (body === undefined)
    throw new InvokeError(
      'RequestTooLargeException',
      413,
      `Request must be smaller than ${syncLimit} bytes for the InvokeFunction operation`,
    );
  const checked = await checkSignature(request, url, body, 'lambda');
  if ('refused' in checked) throw refusalError(checked.refused);
  const invocation = invocationOf(request, url, body, functions);
  if (invocation.type === 'DryRun') return void response.writeHead(204, { 'x-amzn-RequestId': randomUUID() }).end();
  if (invocation.type === 'RequestResponse') return invokeNow(response, invocation, log);
  const requestId = asyncInvocations.enqueue(invocation.target, invocation.payload, 'Invoke (Event)');
  response.writeHead(202, { 'x-amzn-RequestId': requestId }).end();
};

export interface InvokeApiOptions {
  functions: InvocableFunctions;
  asyncInvocations: AsyncInvocations;
  log: (line: string) => void;
}

/** Serves Invoke on loopback; resolves with its address (AWS_ENDPOINT_URL_LAMBDA). */
export const serveInvokeApi = async (options: InvokeApiOptions) => {
  const server = createServer(async (request, response) => {
    // Loopback hosts alone, and no web page: an SDK sends no Origin (as the other local services).
    const refused = sdkCallRefusal(request, 'the local Lambda');
    if (refused)
      return afterBody(request, response, () =>
        sendError(response, new InvokeError('AccessDeniedException', 403, refused)),
      );
    try {
      await answer(request, response, await readBody(request, syncLimit), options);
    } catch (error) {
      if (error instanceof InvokeError) return sendError(response, error);
      if (error instanceof ClientAbortedError) return;
      options.log(`the local Lambda failed: ${(error as Error).stack ?? String(error)}`);
      sendError(response, new InvokeError('ServiceException', 500, (error as Error).message));
    }
  });
  respondingToEveryRequest(server);
  const url = await listenOnLoopback(server);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};
