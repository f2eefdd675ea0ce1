// The one SigV4 check every kind of API shares: a function URL with AuthType AWS_IAM (url/authorize.ts), a REST
// method and an HTTP API route with AuthorizationType AWS_IAM (rest/authorize.ts, http/authorize.ts). The request's
// Signature Version 4 signature (its Authorization header) is computed again by @smithy/signature-v4 (the AWS SDK's
// own signer) with the runner's credentials (local-aws.ts), and compared. What it finds wrong is said as API Gateway
// says it ("How do I troubleshoot signature mismatch errors when making SigV4 signed requests with IAM authentication
// to API Gateway?", https://repost.aws/knowledge-center/api-gateway-iam-sigv4-mismatch): unsigned, "Missing
// Authentication Token"; another access key, "The security token included in the request is invalid."; another
// secret or a changed request, "The request signature we calculated does not match the signature you provided."
// A signature is good for five minutes either side of its date: API Gateway answers one signed earlier 403
// InvalidSignatureException "Signature expired: <date> is now earlier than <now - 5 min> (<now> - 5 min.)" (the message
// its users report; "Elements of an AWS API request signature", https://docs.aws.amazon.com/general/latest/gr/signing-elements.html,
// says the date guards against a request resubmitted later, without a figure). A presigned URL (the signature in the
// query string: "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)",
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html) is good until X-Amz-Expires seconds
// (604,800 at most) after its date. What API Gateway says to an expired presigned URL is not documented: the runner
// says the same as for an expired header. Over HTTP/2 (the SDK's Kinesis client) the SDK signs `:authority` where
// HTTP/1.1 has `host`: either names the host.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { localAws } from '../app/local-aws.ts';

/** What the check reads of a request: its headers as sent, and its method (an HTTP/1.1 or an HTTP/2 one). */
type SignedRequest = Pick<IncomingMessage, 'rawHeaders' | 'method'>;

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

/** Why a request is not signed with the runner's credentials, as API Gateway's error types name it. */
export type SignatureRefusal =
  /** No Authorization header: "Missing Authentication Token". */
  | { reason: 'missing' }
  /** An Authorization header that is no SigV4 one, or no X-Amz-Date: IncompleteSignatureException. */
  | { reason: 'incomplete'; message: string }
  /** Another access key id or session token: UnrecognizedClientException. */
  | { reason: 'unrecognized' }
  /** Another secret, scope, date or request: InvalidSignatureException. */
  | { reason: 'invalid'; message: string };

export type SignatureCheck = { caller: IamCaller } | { refused: SignatureRefusal };

const signatureMismatch =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/**
 * SHA-256 and HMAC-SHA-256 in the shape the signer takes (a Checksum of @smithy/types), from node:crypto; the tests
 * sign with it too.
 */
export class Sha256 {
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
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;:-]+),\s*Signature=([0-9a-f]{64})$/;

/** The one value of header `name`, or undefined when absent or sent more than once. */
const single = (request: SignedRequest, name: string) => {
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

/** What an Authorization header that is not a whole SigV4 one lacks, as IncompleteSignatureException lists it. */
const incompleteness = (authorization: string, dated: boolean) => {
  const lacks = ['Credential', 'Signature', 'SignedHeaders']
    .filter((part) => !authorization.includes(`${part}=`))
    .map((part) => `Authorization header requires '${part}' parameter.`);
  if (!dated) lacks.push("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  return `${lacks.join(' ') || 'Authorization header is not a valid AWS4-HMAC-SHA256 header.'} Authorization=${authorization}`;
};

/** The caller the runner's credentials sign as: its access key id as user, in the local account. */
const localCaller = (accessKeyId: string): IamCaller => ({
  accessKey: accessKeyId,
  accountId: localAws.accountId,
  callerId: accessKeyId,
  cognitoIdentity: null,
  principalOrgId: null,
  userArn: `arn:aws:iam::${localAws.accountId}:user/${accessKeyId}`,
  userId: accessKeyId,
});

/** The signed headers' values, or undefined when one is missing or sent twice (or no host, or authority, is signed). */
const signedHeaderValues = (request: SignedRequest, signedList: string) => {
  const names = signedList.split(';');
  if (!names.includes('host') && !names.includes(':authority')) return undefined;
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = single(request, name);
    if (value === undefined) return undefined;
    headers[name] = value;
  }
  return headers;
};

const queryOf = (url: URL) => {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? (values[0] as string) : values;
  }
  return query;
};

/** What a request's signature says, from its Authorization header or (a presigned URL) its query string. */
interface Signed {
  key: string;
  day: string;
  region: string;
  service: string;
  signedList: string;
  signature: string;
  signingDate: Date;
  token: string | undefined;
  /** A presigned URL's X-Amz-Expires: how long after its date it is good (undefined: a header's signature). */
  expiresIn?: number;
}

type Reading = { signed: Signed } | { refused: SignatureRefusal };

/** The parts of an Authorization header's signature. */
const fromHeader = (request: SignedRequest, authorization: string): Reading => {
  const signingDate = amzDate(single(request, 'x-amz-date'));
  const [, key, day = '', region = '', service = '', signedList = '', signature = ''] =
    authorizationPattern.exec(authorization) ?? [];
  if (key === undefined || !signingDate)
    return { refused: { reason: 'incomplete', message: incompleteness(authorization, signingDate !== undefined) } };
  const token = single(request, 'x-amz-security-token');
  return { signed: { key, day, region, service, signedList, signature, signingDate, token } };
};

/** The longest X-Amz-Expires a presigned URL may have: a week. */
const maxExpiresIn = 604_800;

/** The query parameters of a presigned URL's signature, which its canonical request does not sign. */
const presignParameters = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders'];

/** The parts of a presigned URL's signature (its X-Amz-* query parameters). */
const fromQuery = (url: URL): Reading => {
  const query = url.searchParams;
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(query.get('X-Amz-Credential') ?? '');
  const signingDate = amzDate(query.get('X-Amz-Date') ?? undefined);
  const expires = query.get('X-Amz-Expires') ?? '';
  const signedList = query.get('X-Amz-SignedHeaders') ?? '';
  const signature = query.get('X-Amz-Signature') ?? '';
  const missing = [...presignParameters, 'X-Amz-Signature'].filter((name) => !query.has(name));
  if (missing.length > 0 || query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !credential || !signingDate)
    return {
      refused: {
        reason: 'incomplete',
        message: `A presigned URL requires ${[...presignParameters, 'X-Amz-Signature'].join(', ')}, with X-Amz-Algorithm AWS4-HMAC-SHA256${missing.length ? `: it lacks ${missing.join(', ')}` : ''}.`,
      },
    };
  const expiresIn = /^\d+$/.test(expires) ? Number(expires) : Number.NaN;
  if (
    !(expiresIn >= 1 && expiresIn <= maxExpiresIn) ||
    !/^[0-9a-f]{64}$/.test(signature) ||
    !/^[a-z0-9;-]+$/.test(signedList)
  )
    return { refused: { reason: 'invalid', message: signatureMismatch } };
  const [, key = '', day = '', region = '', service = ''] = credential;
  const token = query.get('X-Amz-Security-Token') ?? undefined;
  return { signed: { key, day, region, service, signedList, signature, signingDate, token, expiresIn } };
};

/** How far a header's signature date may be from now (API Gateway's "- 5 min."). */
const skewMs = 5 * 60_000;

const basicDate = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** Why a signature is out of its time, in API Gateway's words; undefined when it is in it. */
const outOfTime = ({ signingDate, expiresIn }: Signed, now = new Date()) => {
  const earliest = new Date(now.getTime() - skewMs - (expiresIn ?? 0) * 1000);
  const latest = new Date(now.getTime() + skewMs);
  if (signingDate < earliest)
    return `Signature expired: ${basicDate(signingDate)} is now earlier than ${basicDate(earliest)} (${basicDate(now)} - ${expiresIn === undefined ? '5 min.' : `${expiresIn} s - 5 min.`})`;
  if (signingDate > latest)
    return `Signature not yet current: ${basicDate(signingDate)} is still later than ${basicDate(latest)} (${basicDate(now)} + 5 min.)`;
  return undefined;
};

/**
 * How a service's signatures differ from the default, S3's ("Authenticating Requests (AWS Signature Version 4)",
 * Amazon S3 API Reference, https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html): the
 * path signed as given, not escaped again; payload hashes that are no SHA-256 of the body (UNSIGNED-PAYLOAD,
 * STREAMING-...); and a presigned URL's payload hash, UNSIGNED-PAYLOAD.
 */
export interface SigningRules {
  /** The path as signed, already escaped (the signer escapes none again). */
  path: string;
  /** Values of `x-amz-content-sha256` that stand for the payload instead of hashing it. */
  unhashedPayloads: readonly string[];
  /** The payload hash a presigned URL's signature covers. */
  presignedPayload: string;
}

/** The signature the runner's credentials make for the request as signed (its headers, `signingDate`). */
const expectedSignature = async (
  request: SignedRequest,
  url: URL,
  body: Buffer,
  { service, signingDate, token, expiresIn }: Signed,
  given: Record<string, string>,
  rules: SigningRules | undefined,
) => {
  const { accessKeyId, secretAccessKey } = localAws.credentials;
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey, ...(token !== undefined && { sessionToken: token }) },
    region: localAws.region,
    service,
    sha256: Sha256,
    applyChecksum: false,
    uriEscapePath: rules === undefined,
  });
  // A presigned URL's payload hash, given the signer as the header it reads one from, which it then does not sign.
  const payload = expiresIn !== undefined && rules && !('x-amz-content-sha256' in given);
  const headers = payload ? { ...given, 'x-amz-content-sha256': rules.presignedPayload } : given;
  const unsigned = new URL(url);
  for (const name of [...presignParameters, 'X-Amz-Signature', 'X-Amz-Security-Token'])
    unsigned.searchParams.delete(name);
  const toSign = {
    method: request.method ?? 'GET',
    protocol: 'http:',
    hostname: headers.host ?? headers[':authority'] ?? '',
    path: rules?.path ?? url.pathname,
    query: queryOf(expiresIn === undefined ? url : unsigned),
    headers,
    body,
  };
  const names = new Set(Object.keys(given));
  if (expiresIn !== undefined) {
    const presigned = await signer.presign(toSign, {
      signingDate,
      expiresIn,
      signableHeaders: names,
      unhoistableHeaders: new Set(Object.keys(headers)),
      ...(payload && { unsignableHeaders: new Set(['x-amz-content-sha256']) }),
    });
    return String(presigned.query?.['X-Amz-Signature'] ?? '');
  }
  const signed = await signer.sign(toSign, { signingDate, signableHeaders: names });
  return /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
};

/** Why the signature `signed` is not the runner's credentials' for `service` in its region, if it is not. */
const scopeRefusal = (signed: Signed, service: string): SignatureRefusal | undefined => {
  const { accessKeyId, sessionToken } = localAws.credentials;
  if (signed.key !== accessKeyId || (signed.token !== undefined && signed.token !== sessionToken))
    return { reason: 'unrecognized' };
  if (signed.service !== service)
    return { reason: 'invalid', message: `Credential should be scoped to correct service: '${service}'. ` };
  if (signed.region !== localAws.region)
    return { reason: 'invalid', message: `Credential should be scoped to a valid region, not '${signed.region}'. ` };
  const late = outOfTime(signed);
  return late === undefined ? undefined : { reason: 'invalid', message: late };
};

/**
 * Whether `request` (its `url`, its `body` read whole) is signed with the runner's credentials for `service`
 * (`lambda` for a function URL, `execute-api` for API Gateway) in the runner's region, in its Authorization header or
 * as a presigned URL, within its time: its caller, or why not.
 */
export const checkSignature = async (
  request: SignedRequest,
  url: URL,
  body: Buffer,
  service: string,
  rules?: SigningRules,
): Promise<SignatureCheck> => {
  const authorization = single(request, 'authorization');
  const presigned = authorization === undefined && url.searchParams.has('X-Amz-Signature');
  if (authorization === undefined && !presigned) return { refused: { reason: 'missing' } };
  const reading = authorization === undefined ? fromQuery(url) : fromHeader(request, authorization);
  if ('refused' in reading) return reading;
  const { signed } = reading;
  const refused = scopeRefusal(signed, service);
  if (refused) return { refused };
  const headers = signedHeaderValues(request, signed.signedList);
  // A payload hash the client signed must be its body's (the signer takes the header's value as the body's hash).
  const payloadHash = headers?.['x-amz-content-sha256'];
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const dayMatches = basicDate(signed.signingDate).slice(0, 8) === signed.day;
  const hashed = payloadHash === undefined || !rules?.unhashedPayloads.includes(payloadHash);
  if (!headers || !dayMatches || (payloadHash !== undefined && hashed && payloadHash !== bodyHash))
    return { refused: { reason: 'invalid', message: signatureMismatch } };
  const expected = await expectedSignature(request, url, body, signed, headers, rules);
  const { signature } = signed;
  if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return { refused: { reason: 'invalid', message: signatureMismatch } };
  return { caller: localCaller(signed.key) };
};
