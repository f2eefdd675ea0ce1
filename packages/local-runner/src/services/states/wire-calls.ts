// A state machine's calls to the other local services, over their own endpoints as an SDK would make them (a service
// never imports another, services/targets.ts): a POST signed with SigV4 by the runner's credentials, JSON for SQS,
// EventBridge, DynamoDB, Step Functions, SSM, Secrets Manager and Kinesis (`X-Amz-Target: <prefix>.<Action>`), the
// query protocol for SNS's actions (answered as JSON, `Accept: application/json`, as query-protocol.ts answers an
// API Gateway integration). A service's error comes back as a WireError of its type (`__type`, or the query
// protocol's `Code`).
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../../app/local-aws.ts';
import { Sha256 } from '../../gateway/sigv4.ts';

/** The local services' addresses, known once each listens (the database's once it has started); S3's, s3-calls.ts's. */
export type WireEndpoints = Partial<Record<WireService | 's3', string>>;

export type WireService = 'sqs' | 'sns' | 'events' | 'dynamodb' | 'states' | 'ssm' | 'secretsmanager' | 'kinesis';

const jsonServices: Record<Exclude<WireService, 'sns'>, { prefix: string; version: string }> = {
  sqs: { prefix: 'AmazonSQS', version: '1.0' },
  events: { prefix: 'AWSEvents', version: '1.1' },
  dynamodb: { prefix: 'DynamoDB_20120810', version: '1.0' },
  states: { prefix: 'AWSStepFunctions', version: '1.0' },
  ssm: { prefix: 'AmazonSSM', version: '1.1' },
  secretsmanager: { prefix: 'secretsmanager', version: '1.1' },
  kinesis: { prefix: 'Kinesis_20131202', version: '1.1' },
};

/** A service's error answer: its type (`QueueDoesNotExist`, `ResourceNotFoundException`) and message. */
export class WireError extends Error {
  override name = 'WireError';
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

const signed = async (endpoint: string, service: string, headers: Record<string, string>, body: string) => {
  const url = new URL(endpoint);
  const signer = new SignatureV4({
    credentials: localAws.credentials,
    region: localAws.region,
    service,
    sha256: Sha256,
  });
  const request = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, ...headers },
    body,
  });
  return Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'host'));
};

/** `action` of the JSON service `service` at `endpoint` with `input`: its output, or a WireError. */
const jsonCall = async (endpoint: string, service: Exclude<WireService, 'sns'>, action: string, input: unknown) => {
  const { prefix, version } = jsonServices[service];
  const body = JSON.stringify(input);
  const headers = { 'content-type': `application/x-amz-json-${version}`, 'x-amz-target': `${prefix}.${action}` };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: await signed(endpoint, service, headers, body),
    body,
  });
  const text = await response.text();
  const answer = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
  if (!response.ok) {
    const type = String(answer.__type ?? response.headers.get('x-amzn-errortype') ?? 'ServiceError');
    throw new WireError(
      type.slice(type.lastIndexOf('#') + 1).split(':')[0] as string,
      String(answer.message ?? answer.Message ?? ''),
    );
  }
  return answer;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` (the member `name` at `key` of the input) into the query protocol's form: lists as `key.member.N`, SNS's
 * maps (`Attributes`) as `key.entry.N.key`/`.value`, message attributes as `key.entry.N.Name`/`.Value.<field>`, other
 * structures as `key.<member>`; a Message given as JSON, as its text.
 */
const flattened = (form: URLSearchParams, key: string, name: string, value: unknown) => {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) flattened(form, `${key}.member.${index + 1}`, '', item);
    return;
  }
  if (!isRecord(value) || name === 'Message') {
    if (value !== undefined && value !== null) form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    return;
  }
  for (const [index, [member, item]] of Object.entries(value).entries()) {
    const entry = `${key}.entry.${index + 1}`;
    if (name === 'MessageAttributes') {
      form.set(`${entry}.Name`, member);
      for (const [field, text] of Object.entries(isRecord(item) ? item : {}))
        form.set(`${entry}.Value.${field}`, String(text));
    } else if (name === 'Attributes') {
      form.set(`${entry}.key`, member);
      form.set(`${entry}.value`, String(item));
    } else flattened(form, `${key}.${member}`, member, item);
  }
};

/** `action`'s input as the query protocol's form. */
const queryForm = (action: string, input: Record<string, unknown>) => {
  const form = new URLSearchParams({ Action: action, Version: '2010-03-31' });
  for (const [key, value] of Object.entries(input)) flattened(form, key, key, value);
  return form.toString();
};

/** SNS's `action`, its answer asked as JSON: the action's result (`<Action>Result`), or a WireError. */
const snsCall = async (endpoint: string, action: string, input: Record<string, unknown>) => {
  const body = queryForm(action, input);
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: await signed(endpoint, 'sns', headers, body),
    body,
  });
  const answer = JSON.parse(await response.text()) as Record<string, unknown>;
  if (!response.ok) {
    const error = isRecord(answer.Error) ? answer.Error : {};
    throw new WireError(String(error.Code ?? 'ServiceError'), String(error.Message ?? ''));
  }
  const wrapped = answer[`${action}Response`];
  const result = isRecord(wrapped) ? wrapped[`${action}Result`] : undefined;
  return isRecord(result) ? result : {};
};

/** `action` of `service` with `input`, at its endpoint in `endpoints`; a service not listening is a WireError. */
export const wireCall = async (
  endpoints: WireEndpoints,
  service: WireService,
  action: string,
  input: Record<string, unknown>,
) => {
  const endpoint = endpoints[service];
  if (endpoint === undefined) throw new WireError('ServiceUnavailable', `the local ${service} is not serving`);
  if (service === 'sns') return snsCall(endpoint, action, input);
  return jsonCall(endpoint, service, action, input);
};
