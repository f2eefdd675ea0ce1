// A state machine's calls to the other local services, over their own endpoints as an SDK would make them (a service
// never imports another, services/targets.ts): a POST signed with SigV4 by the runner's credentials, JSON for SQS,
// EventBridge, DynamoDB, Step Functions, SSM and Secrets Manager (`X-Amz-Target: <prefix>.<Action>`), the query
// protocol for SNS's Publish. A service's error comes back as a WireError of its type (`__type`, or the query
// protocol's `<Code>`).
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../../app/local-aws.ts';
import { Sha256 } from '../../gateway/sigv4.ts';

/** The local services' addresses, known once each listens (the database's once it has started); S3's, s3-calls.ts's. */
export type WireEndpoints = Partial<Record<WireService | 's3', string>>;

export type WireService = 'sqs' | 'sns' | 'events' | 'dynamodb' | 'states' | 'ssm' | 'secretsmanager';

const jsonServices: Record<Exclude<WireService, 'sns'>, { prefix: string; version: string }> = {
  sqs: { prefix: 'AmazonSQS', version: '1.0' },
  events: { prefix: 'AWSEvents', version: '1.1' },
  dynamodb: { prefix: 'DynamoDB_20120810', version: '1.0' },
  states: { prefix: 'AWSStepFunctions', version: '1.0' },
  ssm: { prefix: 'AmazonSSM', version: '1.1' },
  secretsmanager: { prefix: 'secretsmanager', version: '1.1' },
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

/** Publish's input as the query protocol's form: MessageAttributes as `entry.N.Name` and `entry.N.Value.*`. */
const publishForm = (input: Record<string, unknown>) => {
  const form = new URLSearchParams({ Action: 'Publish', Version: '2010-03-31' });
  for (const [key, value] of Object.entries(input)) {
    if (key !== 'MessageAttributes') {
      form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      continue;
    }
    const attributes = Object.entries((value ?? {}) as Record<string, Record<string, string>>);
    for (const [index, [name, attribute]] of attributes.entries()) {
      form.set(`MessageAttributes.entry.${index + 1}.Name`, name);
      for (const [field, text] of Object.entries(attribute))
        form.set(`MessageAttributes.entry.${index + 1}.Value.${field}`, text);
    }
  }
  return form.toString();
};

const snsPublish = async (endpoint: string, input: Record<string, unknown>) => {
  const body = publishForm(input);
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: await signed(endpoint, 'sns', headers, body),
    body,
  });
  const text = await response.text();
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  if (!response.ok) throw new WireError(field('Code') ?? 'ServiceError', field('Message') ?? text);
  const sequence = field('SequenceNumber');
  return { MessageId: field('MessageId'), ...(sequence !== undefined && { SequenceNumber: sequence }) };
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
  if (service === 'sns') {
    if (action !== 'Publish')
      throw new WireError('NotServedLocally', `SNS ${action} is not called by state machines locally`);
    return snsPublish(endpoint, input);
  }
  return jsonCall(endpoint, service, action, input);
};
