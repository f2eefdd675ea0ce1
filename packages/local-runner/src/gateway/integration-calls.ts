// What a non-proxy integration calls, once its request is mapped (rest/integrated.ts): a function (Lambda's Invoke,
// its payload the mapped body), an HTTP endpoint, or a served AWS service at its local wire endpoint, signed with the
// runner's credentials as API Gateway signs with the integration's role. Each within the integration's time-out.
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../app/local-aws.ts';
import type { IntegratedService, IntegrationTarget } from '../app/rest-integrations.ts';
import type { FunctionPool } from '../lambda/pool.ts';
import { Sha256 } from './sigv4.ts';
import { invokeIntegration } from './time-limit.ts';

/** The integration's answer: its status, headers and body; a Lambda function's error's message apart. */
export interface IntegrationAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** A function's error: its errorMessage, which the integration responses' patterns are matched against. */
  errorMessage?: string;
}

/** The call's outcome: an answer, a time-out, a payload the target refuses (400), or a failure to reach it. */
export type Called = { answer: IntegrationAnswer } | { timedOut: true } | { refused: string } | { failed: string };

/** The request the mapping made: the integration's method, URL parameters, headers and body. */
export interface IntegrationRequest {
  headers: Record<string, string>;
  querystring: Record<string, string>;
  path: Record<string, string>;
  body: string;
}

/** The function invoked with the mapped body as its event ("Could not parse request body into json" when not JSON). */
export const callLambda = async (
  pool: FunctionPool,
  target: { functionId: string; qualifier?: string },
  request: IntegrationRequest,
  timeoutMs: number,
  notes: string[],
): Promise<Called> => {
  let event: unknown;
  try {
    event = request.body.trim() === '' ? {} : JSON.parse(request.body);
  } catch (error) {
    return { refused: `Could not parse request body into json: ${(error as Error).message}` };
  }
  const report = await invokeIntegration(pool, { ...target, integrationTimeoutMs: timeoutMs }, event, notes);
  if (!report) return { timedOut: true };
  const { invocation } = report;
  const headers = { 'Content-Type': 'application/json' };
  if (invocation.outcome === 'result')
    return { answer: { status: 200, headers, body: JSON.stringify(invocation.result ?? null) } };
  if (invocation.outcome === 'error') {
    const { errorType, message } = invocation;
    const body = JSON.stringify({ errorMessage: message, errorType });
    return { answer: { status: 200, headers, body, errorMessage: message } };
  }
  return { failed: `${target.functionId} ${invocation.outcome}` };
};

/** Why a fetch failed, in words: the machine's own error code (no route, refused, unknown host). */
const fetchFailure = (url: URL, error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as Error).message;
  const noRoute = ['ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'].includes(code);
  return noRoute
    ? `${url.host} cannot be reached from this machine (${code}): the runner calls the integration's URL as API Gateway would, and this machine has no route to it`
    : `${url.origin} did not answer (${code})`;
};

const droppedHeaders = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

/** The headers a request is sent with: those of its hop (and Host, which fetch sets from the URL) left out. */
const sendable = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => !droppedHeaders.has(name.toLowerCase()) && name.toLowerCase() !== 'host',
    ),
  );

/** An HTTP call within `timeoutMs`; the answer's headers without those of the hop (and the encoding fetch undid). */
export const callHttp = async (
  url: URL,
  init: { method: string; headers: Record<string, string>; body: string | Buffer },
  timeoutMs: number,
): Promise<Called> => {
  const bodyless = init.method === 'GET' || init.method === 'HEAD';
  try {
    const response = await fetch(url, {
      method: init.method,
      headers: sendable(init.headers),
      ...(!bodyless && { body: init.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) if (!droppedHeaders.has(name)) headers[name] = value;
    return { answer: { status: response.status, headers, body: await response.text() } };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { timedOut: true };
    return { failed: fetchFailure(url, error) };
  }
};

/** The JSON protocol's target prefix and content type of the services that speak it. */
const jsonProtocols: Partial<Record<IntegratedService, { prefix: string; type: string }>> = {
  events: { prefix: 'AWSEvents', type: 'application/x-amz-json-1.1' },
  dynamodb: { prefix: 'DynamoDB_20120810', type: 'application/x-amz-json-1.0' },
  kinesis: { prefix: 'Kinesis_20131202', type: 'application/x-amz-json-1.1' },
  states: { prefix: 'AWSStepFunctions', type: 'application/x-amz-json-1.0' },
};

const hasHeader = (headers: Record<string, string>, name: string) =>
  Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());

/**
 * The service's URL and request: `path/...` appended to its endpoint; `action/X` as the query protocol's `Action=X`
 * (in the form, with the query string's parameters, for SQS and SNS) or the JSON protocol's X-Amz-Target (EventBridge,
 * DynamoDB), their content type where the mapping sets none.
 */
const serviceRequest = (
  endpoint: string,
  target: Extract<IntegrationTarget, { kind: 'aws' }>,
  request: IntegrationRequest,
) => {
  // `{name}` in the path filled from the mapped path parameters, as an HTTP integration's URL.
  const path = target.path?.replace(/\{([^}]+?)\+?\}/g, (_, name: string) =>
    encodeURIComponent(request.path[name] ?? ''),
  );
  // The path set on the endpoint's URL: a path starting with `/` (an SNS topic's `path//`) is no host-relative URL.
  const url = new URL(endpoint);
  url.pathname = `/${(path ?? '').replace(/^\/+/, '')}`;
  const headers = { ...request.headers };
  const json = jsonProtocols[target.service];
  let body = request.body;
  if (target.action !== undefined && json) {
    if (!hasHeader(headers, 'x-amz-target')) headers['X-Amz-Target'] = `${json.prefix}.${target.action}`;
    if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = json.type;
  }
  for (const [name, value] of Object.entries(request.querystring)) url.searchParams.set(name, value);
  // S3 speaks REST: the path, the method and the body as the mapping made them.
  if (!json && target.service !== 's3' && !hasHeader(headers, 'x-amz-target')) {
    const form = new URLSearchParams(url.search);
    if (target.action !== undefined && !form.has('Action')) form.set('Action', target.action);
    for (const [name, value] of new URLSearchParams(body)) form.append(name, value);
    body = form.toString();
    url.search = '';
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    // API Gateway asks for JSON where the mapping names no Accept: SQS and SNS then answer in JSON (query-protocol.ts).
    if (!hasHeader(headers, 'accept')) headers.Accept = 'application/json';
  }
  return { url, headers, body };
};

/** A served service called at `endpoint` as the integration's mapping says, signed with the runner's credentials. */
export const callService = async (
  endpoint: string,
  target: Extract<IntegrationTarget, { kind: 'aws' }>,
  request: IntegrationRequest,
  timeoutMs: number,
): Promise<Called> => {
  const { url, headers, body } = serviceRequest(endpoint, target, request);
  const { accessKeyId, secretAccessKey } = localAws.credentials;
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region: localAws.region,
    service: target.service,
    sha256: Sha256,
    // S3 takes the payload's hash in x-amz-content-sha256.
    applyChecksum: target.service === 's3',
    // S3 signs the path as it is sent; the other services, escaped once more.
    uriEscapePath: target.service !== 's3',
  });
  const signed = await signer.sign({
    method: target.method,
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...headers, host: url.host },
    body,
  });
  const { host: _host, ...sent } = signed.headers;
  return callHttp(url, { method: target.method, headers: sent, body }, timeoutMs);
};
