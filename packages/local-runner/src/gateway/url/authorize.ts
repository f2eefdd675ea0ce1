// A function URL's authorize phase: for AuthType NONE, what its function's permissions grant (url-permissions.ts);
// for AuthType AWS_IAM ("Invoking Lambda function URLs": "When your function URL receives a request, Lambda also
// calculates the SigV4 signature. Lambda processes the request only if the signatures match"): the request's
// Signature Version 4 signature (its Authorization header) computed again, by @smithy/signature-v4 (the AWS SDK's own
// signer), with the runner's credentials (local-aws.ts), and compared.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../../app/local-aws.ts';
import type { UrlDeployment } from '../deployment.ts';
import type { Exchange, Step } from '../exchange.ts';
import { ownResponse } from './respond.ts';

/** The caller's identity a signed request carries to the function (`requestContext.authorizer.iam`). */
export interface IamCaller {
  accessKey: string;
  accountId: string;
  callerId: string;
  cognitoIdentity: null;
  principalOrgId: null;
  userArn: string;
  userId: string;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 and HMAC-SHA-256 in the shape the signer takes (a Checksum of @smithy/types), from node:crypto. */
class Sha256 {
  readonly #secret: SourceData | undefined;
  #hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: SourceData) {
    this.#secret = secret;
    this.#hash = this.#make();
  }
  #make() {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.#secret));
  }
  update(data: SourceData) {
    this.#hash.update(bytes(data));
  }
  digest() {
    return Promise.resolve(new Uint8Array(this.#hash.digest()));
  }
  reset() {
    this.#hash = this.#make();
  }
}

/** `AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, SignedHeaders=<a;b>, Signature=<hex>`. */
const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

/** The one value of header `name`, or undefined when absent or sent more than once. */
const single = (request: IncomingMessage, name: string) => {
  const values: string[] = [];
  for (let index = 0; index < request.rawHeaders.length; index += 2)
    if (request.rawHeaders[index]?.toLowerCase() === name) values.push(request.rawHeaders[index + 1] ?? '');
  return values.length === 1 ? values[0] : undefined;
};

/** `x-amz-date`'s basic ISO 8601 form (20240101T000000Z) as a Date; undefined when it is not one. */
const amzDate = (value: string | undefined) => {
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '') ?? [];
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/**
 * The caller of `request` (its `url`, its `body`) when its SigV4 signature is the one the runner's credentials make
 * for it (service `lambda`, the runner's region); undefined otherwise (unsigned, another key, another secret, a
 * changed header, path, query or body): the URL then answers 403. A signature in the query string (a presigned URL)
 * is not read: such a request is unsigned here.
 */
export const signedCaller = async (
  request: IncomingMessage,
  url: URL,
  body: Buffer,
): Promise<IamCaller | undefined> => {
  const { accessKeyId, secretAccessKey, sessionToken } = localAws.credentials;
  const [, key, day, region, service, signedList = '', signature = ''] =
    authorizationPattern.exec(single(request, 'authorization') ?? '') ?? [];
  const signingDate = amzDate(single(request, 'x-amz-date'));
  if (key !== accessKeyId || region !== localAws.region || service !== 'lambda' || !signingDate) return undefined;
  if (signingDate.toISOString().slice(0, 10).replaceAll('-', '') !== day) return undefined;
  const token = single(request, 'x-amz-security-token');
  if (token !== undefined && token !== sessionToken) return undefined;
  const signedHeaders = signedList.split(';');
  if (!signedHeaders.includes('host')) return undefined;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = single(request, name);
    if (value === undefined) return undefined;
    headers[name] = value;
  }
  // A payload hash the client signed must be its body's (the signer takes the header's value as the body's hash).
  const payloadHash = headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(body).digest('hex')) return undefined;
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? (values[0] as string) : values;
  }
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey, ...(token !== undefined && { sessionToken: token }) },
    region,
    service,
    sha256: Sha256,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: url.pathname,
      query,
      headers,
      body,
    },
    { signingDate, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
  if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return undefined;
  return {
    accessKey: accessKeyId,
    accountId: localAws.accountId,
    callerId: accessKeyId,
    cognitoIdentity: null,
    principalOrgId: null,
    userArn: `arn:aws:iam::${localAws.accountId}:user/${accessKeyId}`,
    userId: accessKeyId,
  };
};

/**
 * Authorize: for AuthType AWS_IAM, the caller of the request (its `body` read whole), signed with the runner's
 * credentials (`signedCaller`), else the URL's 403; for NONE, no caller, once the function's resource-based policy
 * grants the public access (app/url-permissions.ts; "Control access to Lambda function URLs"), else the URL's 403.
 */
export const authorize = async (
  { deployment: { api }, request, url, notes }: Exchange<UrlDeployment>,
  body: Buffer,
): Promise<Step<IamCaller | undefined>> => {
  if (api.ungranted.length > 0) {
    notes.push(`NONE: the function's resource-based policy grants no one ${api.ungranted.join(' nor ')}`);
    return { responded: ownResponse(403) };
  }
  if (api.authType !== 'AWS_IAM') return { next: undefined };
  const caller = await signedCaller(request, url, body);
  if (caller) return { next: caller };
  notes.push("AWS_IAM: not signed with the runner's credentials (SigV4, access key id local)");
  return { responded: ownResponse(403) };
};
