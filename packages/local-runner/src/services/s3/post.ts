// Browser uploads with an HTML form ("PostObject", Amazon S3 API Reference,
// https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html; "Creating a POST policy",
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html): a multipart/form-data POST to
// the bucket whose fields name the key (`${filename}` standing for the file's name), the object's headers and
// metadata, and carry a policy (base64 JSON: an expiration and conditions every other field must meet) signed with
// SigV4 (x-amz-signature, the policy's HMAC with the signing key of x-amz-credential's scope). The file is the last
// field. Answered 204 by default, or success_action_status 200, or 201 with a `<PostResponse>`.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { localAws } from '../../app/local-aws.ts';
import { header, type S3Answer, type S3Call, type S3Context, xmlAnswer } from './call.ts';
import { invalidArgument, S3Error } from './errors.ts';
import { changeOf, defaultChecksum, versionIdFor } from './objects.ts';
import { checkedChecksum } from './payload.ts';
import type { BucketRecord, StoredVersion } from './store.ts';
import { xmlDocument } from './xml.ts';

interface FormField {
  name: string;
  value: Buffer;
  filename?: string;
  contentType?: string;
}

const malformedPost = (why: string) =>
  new S3Error(
    400,
    'MalformedPOSTRequest',
    `The body of your POST request is not well-formed multipart/form-data: ${why}`,
  );

/** The parts of a multipart/form-data body (RFC 7578), in order. */
const formFields = (body: Buffer, contentType: string): FormField[] => {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!mark) throw malformedPost('no boundary');
  const delimiter = Buffer.from(`--${mark}`);
  const fields: FormField[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw malformedPost('no part');
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return fields;
    const headersEnd = body.indexOf('\r\n\r\n', at);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), at);
    if (headersEnd < 0 || next < 0 || next < headersEnd) throw malformedPost('a part is not closed');
    const headers = body.subarray(at, headersEnd).toString('utf8');
    const disposition = /content-disposition:\s*form-data;([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw malformedPost('a part has no name');
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
    fields.push({
      name,
      value: body.subarray(headersEnd + 4, next),
      ...(filename !== undefined && { filename }),
      ...(type !== undefined && { contentType: type.trim() }),
    });
    at = next + 2;
  }
};

const policyFailure = (condition: string) =>
  new S3Error(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${condition}`);

type Condition = unknown[] | Record<string, unknown>;

/** Whether the policy's `conditions` hold for the form `fields` (lower-case names) and a file of `size` bytes. */
const checkConditions = (conditions: Condition[], fields: Map<string, string>, size: number) => {
  const covered = new Set<string>();
  for (const condition of conditions) {
    const [operator, field, value] = Array.isArray(condition)
      ? condition
      : ['eq', `$${Object.keys(condition)[0]}`, Object.values(condition)[0]];
    const shown = JSON.stringify(condition);
    if (operator === 'content-length-range') {
      if (size < Number(field) || size > Number(value))
        throw new S3Error(
          400,
          size < Number(field) ? 'EntityTooSmall' : 'EntityTooLarge',
          `Your proposed upload ${size < Number(field) ? 'is smaller than the minimum' : 'exceeds the maximum'} allowed size`,
        );
      continue;
    }
    const name = String(field).replace(/^\$/, '').toLowerCase();
    covered.add(name);
    const given = fields.get(name) ?? '';
    const holds =
      String(operator).toLowerCase() === 'eq'
        ? given === String(value)
        : String(operator).toLowerCase() === 'starts-with' && given.startsWith(String(value));
    if (!holds) throw policyFailure(shown);
  }
  const exempt = ['x-amz-signature', 'file', 'policy', 'bucket'];
  for (const name of fields.keys())
    if (!covered.has(name) && !exempt.includes(name) && !name.startsWith('x-ignore-'))
      throw new S3Error(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${name}`);
};

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/** The policy, once its signature (x-amz-signature over the base64 policy) is the runner's credentials'. */
const signedPolicy = (fields: Map<string, string>) => {
  const policy = fields.get('policy');
  const signature = fields.get('x-amz-signature') ?? '';
  const [key, day = '', region = '', service = ''] = (fields.get('x-amz-credential') ?? '').split('/');
  if (policy === undefined || fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256')
    throw new S3Error(
      403,
      'AccessDenied',
      'Bucket POST must contain a field named policy, signed with x-amz-algorithm AWS4-HMAC-SHA256',
    );
  if (key !== localAws.credentials.accessKeyId)
    throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${localAws.credentials.secretAccessKey}`, day), region), service),
    'aws4_request',
  );
  const expected = Buffer.from(hmac(signingKey, policy).toString('hex'));
  if (expected.length !== signature.length || !timingSafeEqual(expected, Buffer.from(signature)))
    throw new S3Error(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  let parsed: { expiration?: unknown; conditions?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as typeof parsed;
  } catch {
    throw invalidArgument('Invalid Policy: Invalid JSON.', 'policy', policy);
  }
  const expiration = Date.parse(String(parsed.expiration));
  if (Number.isNaN(expiration) || !Array.isArray(parsed.conditions))
    throw invalidArgument('Invalid Policy: it needs an expiration and a list of conditions.', 'policy', policy);
  if (expiration < Date.now()) throw new S3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
  return parsed.conditions as Condition[];
};

/** Whether the call is a POST form upload to a bucket (multipart/form-data, no query). */
export const isFormUpload = (call: { method: string; key: string | undefined; contentType: string | undefined }) =>
  call.method === 'POST' && call.key === undefined && /^multipart\/form-data/i.test(call.contentType ?? '');

/** The object's headers and metadata the form's fields give. */
const formHeaders = (fields: Map<string, string>, file: FormField) => {
  const content: Record<string, string> = {};
  for (const name of ['cache-control', 'content-disposition', 'content-encoding', 'expires'])
    if (fields.has(name)) content[name] = fields.get(name) as string;
  const metadata: Record<string, string> = {};
  for (const [name, value] of fields) if (name.startsWith('x-amz-meta-')) metadata[name.slice(11)] = value;
  return { contentType: fields.get('content-type') ?? file.contentType ?? 'binary/octet-stream', content, metadata };
};

export const postObject = (context: S3Context, call: S3Call, bucket: BucketRecord): S3Answer => {
  const all = formFields(call.body, header(call, 'content-type') ?? '');
  const file = all.find((field) => field.name.toLowerCase() === 'file');
  if (!file) throw invalidArgument('POST requires exactly one file upload per request.', 'file', '0');
  const fields = new Map(
    all.filter((field) => field !== file).map((field) => [field.name.toLowerCase(), field.value.toString('utf8')]),
  );
  fields.set('bucket', bucket.name);
  const conditions = signedPolicy(fields);
  const key = (fields.get('key') ?? '').replace('${filename}', file.filename ?? '');
  if (key === '') throw invalidArgument("Bucket POST must contain a field named 'key'.", 'key', '');
  checkConditions(conditions, new Map([...fields, ['key', fields.get('key') ?? '']]), file.value.length);
  const data = Buffer.from(file.value);
  const checksum = checkedChecksum(data, { 'content-md5': fields.get('content-md5') }) ?? defaultChecksum(data);
  const version: StoredVersion = {
    versionId: versionIdFor(bucket),
    lastModified: Date.now(),
    size: data.length,
    eTag: `"${createHash('md5').update(data).digest('hex')}"`,
    ...formHeaders(fields, file),
    checksum,
    blob: context.store.writeBlob(bucket.name, data),
  };
  context.store.addVersion(bucket.name, key, version);
  context.changed(changeOf(call, bucket.name, key, 'ObjectCreated:Post', version));
  const location = `/${bucket.name}/${encodeURIComponent(key).replace(/%2F/g, '/')}`;
  const headers = { ETag: version.eTag, Location: location };
  const status = fields.get('success_action_status');
  if (status === '201')
    return xmlAnswer(
      xmlDocument(
        'PostResponse',
        [
          ['Location', location],
          ['Bucket', bucket.name],
          ['Key', key],
          ['ETag', version.eTag],
        ],
        { namespace: false },
      ),
      headers,
      201,
    );
  return { status: status === '200' ? 200 : 204, headers };
};
