// Amazon SQS over the query protocol, which older clients speak (the AWS SDK for JavaScript v2's releases before SQS
// moved to JSON, boto3 before its switch, the AWS CLI v1 of then): a form-encoded POST, `Action=SendMessage&...`,
// answered in XML ("Interpreting Amazon SQS XML API responses", Amazon SQS Developer Guide,
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-xml-api-responses.html). The form
// is read into the input the JSON protocol carries and given to the same operations (sqs.ts); their output is written
// back as the API reference's query examples show it. The JSON server (json-protocol.ts) hands over a form-encoded POST
// that names no X-Amz-Target.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { checkSignature } from '../gateway/sigv4.ts';
import type { JsonInput, JsonService, QueryAnswer } from './json-protocol.ts';
import { ServiceError } from './json-protocol.ts';
import { acceptsJson, errorJson } from './query-protocol.ts';

const namespace = 'http://queue.amazonaws.com/doc/2012-11-05/';

/** A flattened list's member name in the form, and the input member it fills. */
const lists: Record<string, string> = {
  AttributeName: 'AttributeNames',
  MessageAttributeName: 'MessageAttributeNames',
  MessageSystemAttributeName: 'MessageSystemAttributeNames',
  SendMessageBatchRequestEntry: 'Entries',
  DeleteMessageBatchRequestEntry: 'Entries',
  ChangeMessageVisibilityBatchRequestEntry: 'Entries',
  TagKey: 'TagKeys',
};

/** A flattened map's entry name in the form, the input member it fills, and its key's and value's names. */
const maps: Record<string, [member: string, key: string, value: string]> = {
  Attribute: ['Attributes', 'Name', 'Value'],
  MessageAttribute: ['MessageAttributes', 'Name', 'Value'],
  MessageSystemAttribute: ['MessageSystemAttributes', 'Name', 'Value'],
  Tag: ['Tags', 'Key', 'Value'],
};

type Tree = { [key: string]: Tree | string };

/** The form's keys (`Attribute.1.Name`) as a tree of their dotted parts; objects without a prototype. */
const treeOf = (form: URLSearchParams): Tree => {
  const tree: Tree = Object.create(null);
  for (const [key, value] of form) {
    const parts = key.split('.');
    let node = tree;
    for (const part of parts.slice(0, -1)) {
      if (typeof node[part] !== 'object') node[part] = Object.create(null) as Tree;
      node = node[part] as Tree;
    }
    node[parts.at(-1) as string] = value;
  }
  return tree;
};

/** A flattened list's items (`.1`, `.2`, ...) in their order. */
const items = (node: Tree | string) =>
  typeof node === 'string'
    ? []
    : Object.entries(node)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, item]) => item);

/** The JSON protocol's input from the form's tree: lists and maps unflattened, every other member as it is. */
const inputOf = (tree: Tree): JsonInput => {
  const input: JsonInput = {};
  for (const [key, node] of Object.entries(tree)) {
    const list = lists[key];
    const map = maps[key];
    if (list) input[list] = items(node).map((item) => (typeof item === 'string' ? item : inputOf(item)));
    else if (map) {
      const [member, keyName, valueName] = map;
      const entries = items(node).flatMap((item) => (typeof item === 'string' ? [] : [item]));
      input[member] = Object.fromEntries(
        entries.map((entry) => {
          const value = entry[valueName] ?? '';
          return [entry[keyName], typeof value === 'string' ? value : inputOf(value)];
        }),
      );
    } else input[key] = typeof node === 'string' ? node : inputOf(node);
  }
  return input;
};

/** Text in XML: the five markup characters and a carriage return (which an XML reader would make a line feed). */
const escaped = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replaceAll('\r', '&#xD;');

/** The element a list of the output repeats (flattened), by the output's member. */
const listElements: Record<string, (action: string) => string> = {
  QueueUrls: () => 'QueueUrl',
  queueUrls: () => 'QueueUrl',
  Messages: () => 'Message',
  Successful: (action) => `${action}ResultEntry`,
  Failed: () => 'BatchResultErrorEntry',
  Results: () => 'ListMessageMoveTasksResultEntry',
};
const mapElements: Record<string, string> = { Attributes: 'Attribute', MessageAttributes: 'MessageAttribute' };

/** The output's members as XML elements, lists and maps flattened as the query examples show them. */
const xmlOf = (action: string, output: Record<string, unknown>): string =>
  Object.entries(output)
    .map(([key, value]) => {
      const element = (name: string, item: unknown) =>
        typeof item === 'object' && item !== null
          ? `<${name}>${xmlOf(action, item as Record<string, unknown>)}</${name}>`
          : `<${name}>${escaped(String(item))}</${name}>`;
      const mapElement = mapElements[key];
      if (mapElement && typeof value === 'object' && value !== null)
        return Object.entries(value)
          .map(
            ([name, item]) => `<${mapElement}><Name>${escaped(name)}</Name>${element('Value', item)}</${mapElement}>`,
          )
          .join('');
      if (Array.isArray(value)) {
        const name = listElements[key]?.(action) ?? key;
        return value.map((item) => element(name, item)).join('');
      }
      return value === undefined ? '' : element(key, value);
    })
    .join('');

/**
 * A ServiceError's query error code: the SQS model's awsQueryError codes (as `x-amzn-query-error` carries them over
 * JSON, "Interpreting Amazon SQS JSON API responses"), where they differ from the JSON protocol's error names.
 */
const queryCodes: Record<string, string> = {
  QueueDoesNotExist: 'AWS.SimpleQueueService.NonExistentQueue',
  QueueNameExists: 'QueueAlreadyExists',
  MessageNotInflight: 'AWS.SimpleQueueService.MessageNotInflight',
  EmptyBatchRequest: 'AWS.SimpleQueueService.EmptyBatchRequest',
  TooManyEntriesInBatchRequest: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
  BatchEntryIdsNotDistinct: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
  UnsupportedOperation: 'AWS.SimpleQueueService.UnsupportedOperation',
  PurgeQueueInProgress: 'AWS.SimpleQueueService.PurgeQueueInProgress',
};

const xmlAnswer = (status: number, body: string): QueryAnswer => ({
  status,
  headers: { 'Content-Type': 'text/xml', 'x-amzn-RequestId': randomUUID() },
  body: `<?xml version="1.0"?>${body}`,
});

const jsonAnswer = (status: number, body: unknown): QueryAnswer => ({
  status,
  headers: { 'Content-Type': 'application/json', 'x-amzn-RequestId': randomUUID() },
  body: JSON.stringify(body),
});

const errorAnswer = (error: ServiceError, json = false) => {
  const code = queryCodes[error.type] ?? error.type;
  const type = error.status >= 500 ? 'Receiver' : 'Sender';
  if (json) return jsonAnswer(error.status, errorJson(error, code));
  return xmlAnswer(
    error.status,
    `<ErrorResponse><Error><Type>${type}</Type><Code>${escaped(code)}</Code><Message>${escaped(error.message)}</Message><Detail/></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );
};

/**
 * The SigV4 check the JSON services make (gateway/sigv4.ts), for SQS's signing name; a refusal named as the query
 * protocol's common errors name it (MissingAuthenticationToken, IncompleteSignature, InvalidClientTokenId,
 * SignatureDoesNotMatch; status 403).
 */
const refusal = async (request: IncomingMessage, body: Buffer) => {
  const checked = await checkSignature(request, new URL(request.url ?? '/', 'http://localhost'), body, 'sqs');
  if (!('refused' in checked)) return undefined;
  const refused = checked.refused;
  switch (refused.reason) {
    case 'missing':
      return new ServiceError('MissingAuthenticationToken', 'Missing Authentication Token', 403);
    case 'incomplete':
      return new ServiceError('IncompleteSignature', refused.message, 403);
    case 'unrecognized':
      return new ServiceError(
        'InvalidClientTokenId',
        "The security token included in the request is invalid: the local services take the runner's access key",
        403,
      );
    case 'invalid':
      return new ServiceError('SignatureDoesNotMatch', refused.message, 403);
  }
};

/** The queue URL a call names: its QueueUrl, else the path it was posted to (`/<account>/<name>`, older clients). */
const withQueueUrl = (input: JsonInput, request: IncomingMessage): JsonInput => {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (input.QueueUrl !== undefined || !/^\/[^/]+\/[^/]+$/.test(path)) return input;
  return { ...input, QueueUrl: `http://${request.headers.host ?? 'localhost'}${path}` };
};

/** The answer to one query call on `service` (the local SQS's operations). */
export const sqsQueryAnswer = async (service: JsonService, request: IncomingMessage, body: Buffer) => {
  const json = acceptsJson(request);
  const refused = await refusal(request, body);
  if (refused) return errorAnswer(refused, json);
  const { Action: action, Version: _version, ...rest } = inputOf(treeOf(new URLSearchParams(body.toString('utf8'))));
  const operation =
    typeof action === 'string' && Object.hasOwn(service.operations, action) ? service.operations[action] : undefined;
  if (!operation)
    return errorAnswer(
      new ServiceError('InvalidAction', `The action ${String(action)} is not valid for this endpoint.`),
      json,
    );
  try {
    const output = ((await operation(withQueueUrl(rest, request))) ?? {}) as Record<string, unknown>;
    const metadata = { RequestId: randomUUID() };
    if (json)
      return jsonAnswer(200, { [`${action}Response`]: { [`${action}Result`]: output, ResponseMetadata: metadata } });
    const result =
      Object.keys(output).length > 0 ? `<${action}Result>${xmlOf(String(action), output)}</${action}Result>` : '';
    return xmlAnswer(
      200,
      `<${action}Response xmlns="${namespace}">${result}<ResponseMetadata><RequestId>${metadata.RequestId}</RequestId></ResponseMetadata></${action}Response>`,
    );
  } catch (error) {
    if (error instanceof ServiceError) return errorAnswer(error, json);
    throw error;
  }
};
