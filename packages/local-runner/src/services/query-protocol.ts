// The AWS query protocol's server ("AWS query protocol" in the Smithy specification, awsQuery): the protocol of SNS
// (and of SQS before its JSON protocol). A call is a POST of a form-encoded body (or a GET of the same parameters in
// the query string) naming `Action` and `Version`, its input flattened into dotted keys (`Attributes.entry.1.key`,
// `PublishBatchRequestEntries.member.1.Id`); the answer is XML: `<ActionResponse xmlns=...><ActionResult>...`
// `</ActionResult><ResponseMetadata><RequestId>...`, and an error `<ErrorResponse><Error><Type>Sender</Type><Code>...`
// with the error's status. Each service is a module giving its XML namespace and its operations; an operation takes
// the decoded input (lists as arrays) and returns its result as a plain value (`xmlOf` below: an array is a list of
// `member`s, a Map a list of `entry` `key`/`value` pairs). Signed with SigV4 as the JSON services are (gateway/sigv4.ts).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { localAws } from '../app/local-aws.ts';
import { RunnerError } from '../errors.ts';
import { checkSignature, type SignatureRefusal } from '../gateway/sigv4.ts';
import { afterBody, listenOnLoopback, respondingToEveryRequest, sdkCallRefusal } from '../http-server.ts';
import { readBody } from '../request-body.ts';
import { ServiceError } from './json-protocol.ts';

/** A decoded input: each value a string, a nested input, or a list of either. */
export type QueryValue = string | QueryInput | QueryValue[];
export interface QueryInput {
  [key: string]: QueryValue;
}

/** What a file path of the service answers (a GET of a path other than `/`): its media type and its body. */
interface QueryFile {
  type: string;
  body: string;
}

/** A service of the query protocol. */
export interface QueryService {
  /** Its name in the log. */
  name: string;
  /** Its name in a SigV4 credential scope (`sns`, `sqs`). */
  signingName: string;
  /** The namespace of its XML answers (`http://sns.amazonaws.com/doc/2010-03-31/`). */
  xmlns: string;
  operations: Record<string, (input: QueryInput) => unknown>;
  /** Operations a caller may call unsigned: the links a service puts in its messages (SNS's SubscribeURL). */
  unsigned?: readonly string[];
  /** A GET of another path than `/` (SNS's signing certificate), or undefined (404). */
  file?: (path: string) => QueryFile | undefined;
}

const bodyLimit = 1024 * 1024;

const isInput = (value: QueryValue | undefined): value is QueryInput =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{member: {1: a, 2: b}}`, `{entry: {...}}` and `{1: a, 2: b}` as the lists they flatten; recursively. */
const listsOf = (value: QueryValue): QueryValue => {
  if (!isInput(value)) return value;
  const keys = Object.keys(value);
  const wrapped = keys.length === 1 && (keys[0] === 'member' || keys[0] === 'entry') ? value[keys[0]] : undefined;
  const indexed = isInput(wrapped) ? wrapped : value;
  const indexes = Object.keys(indexed);
  if (indexes.length > 0 && indexes.every((key) => /^\d+$/.test(key)))
    return indexes
      .map(Number)
      .sort((a, b) => a - b)
      .map((index) => listsOf(indexed[String(index)] as QueryValue));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, listsOf(inner)]));
};

/** The parameters (`a.member.1.b=x`) as a nested input, lists as arrays. */
const decodeQuery = (parameters: URLSearchParams): QueryInput => {
  // Objects without a prototype: a parameter named `__proto__.x` is a key like any other.
  const root: QueryInput = Object.create(null);
  for (const [key, value] of parameters) {
    const path = key.split('.');
    let node = root;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      const inner: QueryInput = isInput(next) ? next : Object.create(null);
      node[part] = inner;
      node = inner;
    }
    node[path.at(-1) as string] = value;
  }
  return listsOf(root) as QueryInput;
};

const escaped = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** A result as the query protocol's XML: scalars as text, arrays as `member`s, Maps as `entry` `key`/`value`s. */
const xmlOf = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((item) => `<member>${xmlOf(item)}</member>`).join('');
  if (value instanceof Map)
    return [...value]
      .map(([key, item]) => `<entry><key>${escaped(String(key))}</key><value>${xmlOf(item)}</value></entry>`)
      .join('');
  if (typeof value === 'object')
    return Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `<${key}>${xmlOf(item)}</${key}>`)
      .join('');
  return escaped(String(value));
};

/**
 * Whether the caller asks for JSON (`Accept: application/json`), as API Gateway's AWS integrations do: SNS and SQS then
 * answer the same response as JSON (`{"PublishResponse": {"PublishResult": {...}, "ResponseMetadata": {...}}}`), as
 * "Tutorial: Create a REST API with an AWS integration" shows SNS's ListTopics through one
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/getting-started-aws-proxy.html) and as response
 * templates read with `$input.path` (localstack/localstack, tests/aws/services/apigateway/test_apigateway_sqs.py,
 * test_sqs_request_and_response_xml_templates_integration, validated on AWS).
 */
export const acceptsJson = (request: IncomingMessage) => /\bapplication\/json\b/.test(request.headers.accept ?? '');

/** A result as JSON, for a caller that accepts it (`acceptsJson`): lists as arrays, Maps as objects. */
const jsonOf = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(jsonOf);
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), jsonOf(item)]));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, jsonOf(item)]),
    );
  return value;
};

const send = (response: ServerResponse, status: number, body: string, type = 'text/xml') =>
  response.writeHead(status, { 'Content-Type': type, 'x-amzn-RequestId': randomUUID() }).end(body);

const errorXml = (service: QueryService | undefined, error: ServiceError) =>
  `<ErrorResponse${service ? ` xmlns="${service.xmlns}"` : ''}><Error><Type>${error.status >= 500 ? 'Receiver' : 'Sender'}</Type>` +
  `<Code>${escaped(error.type)}</Code><Message>${escaped(error.message)}</Message></Error>` +
  `<RequestId>${randomUUID()}</RequestId></ErrorResponse>`;

const resultXml = (service: QueryService, action: string, result: unknown) => {
  const inner = result === undefined ? '' : `<${action}Result>${xmlOf(result)}</${action}Result>`;
  const metadata = `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata>`;
  return `<${action}Response xmlns="${service.xmlns}">${inner}${metadata}</${action}Response>`;
};

/** An error as JSON, `{Error: {Code, Message, Type}, RequestId}` (`code`: the service's name of its type). */
export const errorJson = (error: ServiceError, code = error.type) => ({
  Error: { Code: code, Message: error.message, Type: error.status >= 500 ? 'Receiver' : 'Sender' },
  RequestId: randomUUID(),
});

/** An answer as JSON (`{"PublishResponse": {"PublishResult": {...}, "ResponseMetadata": {...}}}`), or its error. */
const sendJson = (response: ServerResponse, answered: Answer) => {
  if ('action' in answered) {
    const { action, result } = answered;
    const inner = result === undefined ? {} : { [`${action}Result`]: jsonOf(result) };
    const body = { [`${action}Response`]: { ...inner, ResponseMetadata: { RequestId: randomUUID() } } };
    send(response, 200, JSON.stringify(body), 'application/json');
    return;
  }
  send(response, answered.error.status, JSON.stringify(errorJson(answered.error)), 'application/json');
};

/**
 * A refusal of the SigV4 check as the query services' "Common Errors" name it (e.g. Amazon SNS API Reference, "Common
 * Errors", https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html): MissingAuthenticationToken,
 * IncompleteSignature, InvalidClientTokenId, SignatureDoesNotMatch.
 */
const refusalError = (refused: SignatureRefusal): ServiceError => {
  switch (refused.reason) {
    case 'missing':
      return new ServiceError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
    case 'incomplete':
      return new ServiceError('IncompleteSignature', refused.message, 400);
    case 'unrecognized':
      return new ServiceError(
        'InvalidClientTokenId',
        `The security token included in the request is invalid: the local services take the runner's access key (${localAws.credentials.accessKeyId})`,
        403,
      );
    case 'invalid':
      return new ServiceError('SignatureDoesNotMatch', refused.message, 403);
  }
};

/** The service a call is for: the one its signature is scoped to, else (unsigned) the one taking `action` unsigned. */
const serviceOf = (services: QueryService[], request: IncomingMessage, action: string) => {
  const scope = /Credential=[^/]*\/\d{8}\/[^/]*\/([^/,]+)\//.exec(request.headers.authorization ?? '')?.[1];
  return scope === undefined
    ? services.find((service) => service.unsigned?.includes(action))
    : services.find((service) => service.signingName === scope);
};

/** The parameters of a call: the query string's and, for a form-encoded body, the body's. */
const parametersOf = (request: IncomingMessage, url: URL, body: Buffer) => {
  const parameters = new URLSearchParams(url.search);
  const type = String(request.headers['content-type'] ?? '');
  if (body.length > 0 && (type === '' || type.startsWith('application/x-www-form-urlencoded')))
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) parameters.append(key, value);
  return parameters;
};

type Answer =
  | { service: QueryService | undefined; error: ServiceError }
  | { service: QueryService; action: string; result: unknown };

/** The operation's answer, or the error that refuses the call. */
const answer = async (services: QueryService[], request: IncomingMessage, url: URL, body: Buffer): Promise<Answer> => {
  const parameters = parametersOf(request, url, body);
  const action = parameters.get('Action') ?? '';
  const service = serviceOf(services, request, action);
  const signed = service && !service.unsigned?.includes(action);
  const checked = signed ? await checkSignature(request, url, body, service.signingName) : undefined;
  if (checked && 'refused' in checked) return { service, error: refusalError(checked.refused) };
  if (!service) return { service, error: refusalError({ reason: 'missing' }) };
  const operation = Object.hasOwn(service.operations, action) ? service.operations[action] : undefined;
  if (!operation)
    return {
      service,
      error: new ServiceError(
        'InvalidAction',
        `The action ${action || '(none)'} is not valid for this web service: the local ${service.name} serves ${Object.keys(service.operations).join(', ')}`,
      ),
    };
  try {
    return { service, action, result: await operation(decodeQuery(parameters)) };
  } catch (error) {
    if (error instanceof ServiceError) return { service, error };
    throw error;
  }
};

/**
 * Answers one request of the query protocol: on a server of its own (serveQueryServices), or, exported when one needs it,
 * on a server shared with another protocol (SQS's JSON and query protocols on one port, told apart by Content-Type).
 */
const answerQuery = async (
  services: QueryService[],
  request: IncomingMessage,
  response: ServerResponse,
  log: (line: string) => void,
) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const body = await readBody(request, bodyLimit).catch(() => undefined);
  if (body === undefined) {
    send(response, 413, errorXml(undefined, new ServiceError('RequestEntityTooLarge', `over ${bodyLimit} bytes`)));
    return;
  }
  if (request.method === 'GET' && url.pathname !== '/') {
    const file = services.map((service) => service.file?.(url.pathname)).find((found) => found !== undefined);
    if (file) send(response, 200, file.body, file.type);
    else send(response, 404, errorXml(undefined, new ServiceError('NotFound', `${url.pathname}: no such file`, 404)));
    return;
  }
  try {
    const result = await answer(services, request, url, body);
    if (acceptsJson(request)) sendJson(response, result);
    else if ('action' in result) send(response, 200, resultXml(result.service, result.action, result.result));
    else send(response, result.error.status, errorXml(result.service, result.error));
  } catch (error) {
    // A value of the data folder its key does not open (RunnerError), said as it is; anything else is a bug.
    log(
      `a local service failed: ${error instanceof RunnerError ? error.message : ((error as Error).stack ?? String(error))}`,
    );
    send(response, 500, errorXml(undefined, new ServiceError('InternalFailure', (error as Error).message, 500)));
  }
};

/** Serves `services` on a loopback port of their own; resolves with its address. */
export const serveQueryServices = async (services: QueryService[], log: (line: string) => void) => {
  const server = createServer((request, response) => {
    // Loopback hosts alone, and no web page (an SDK sends no Origin), as the JSON services (json-protocol.ts).
    const refused = sdkCallRefusal(request, 'this local service');
    if (refused) {
      const error = new ServiceError('AccessDenied', refused, 403);
      afterBody(request, response, () => send(response, 403, errorXml(undefined, error)));
      return;
    }
    void answerQuery(services, request, response, log);
  });
  respondingToEveryRequest(server);
  const url = await listenOnLoopback(server);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};
