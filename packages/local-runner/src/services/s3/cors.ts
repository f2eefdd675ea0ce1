// A bucket's CORS configuration as S3 applies it ("Elements of a CORS configuration" and "How does Amazon S3 evaluate
// the CORS configuration on a bucket?", Amazon S3 User Guide, https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html):
// the first rule whose AllowedOrigins match the request's Origin, whose AllowedMethods hold its method (a preflight's
// Access-Control-Request-Method) and whose AllowedHeaders match each of a preflight's Access-Control-Request-Headers
// answers it; a preflight no rule matches is refused 403 AccessForbidden.
import { S3Error } from './errors.ts';
import { childrenOf, textOf, type XmlChild, type XmlValue } from './xml.ts';

export interface CorsRule {
  id?: string;
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

const corsMethods = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];

/** Whether `value` matches `pattern`, which may hold one `*` standing for any characters (case-insensitive). */
const wildcardMatch = (pattern: string, value: string) => {
  const [head = '', ...rest] = pattern.toLowerCase().split('*');
  const given = value.toLowerCase();
  if (rest.length === 0) return given === head;
  const tail = rest.join('*');
  return given.length >= head.length + tail.length && given.startsWith(head) && given.endsWith(tail);
};

const ruleFor = (rules: CorsRule[], origin: string, method: string, headers: string[]) =>
  rules.find(
    (rule) =>
      rule.allowedOrigins.some((allowed) => wildcardMatch(allowed, origin)) &&
      rule.allowedMethods.includes(method) &&
      headers.every((header) => rule.allowedHeaders.some((allowed) => wildcardMatch(allowed, header))),
  );

const allowedOrigin = (rule: CorsRule, origin: string) => (rule.allowedOrigins.includes('*') ? '*' : origin);

const vary = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

/** The answer to a preflight (OPTIONS) of `origin` on a bucket with `rules`: its headers, or the refusal. */
export const preflight = (
  rules: CorsRule[] | undefined,
  origin: string | undefined,
  method: string | undefined,
  requested: string | undefined,
): Record<string, string> => {
  if (origin === undefined || method === undefined)
    throw new S3Error(400, 'BadRequest', 'Insufficient information. Origin request header needed.');
  if (!rules || rules.length === 0)
    throw new S3Error(403, 'AccessForbidden', 'CORSResponse: CORS is not enabled for this bucket.', {
      Method: method,
      ResourceType: 'BUCKET',
    });
  const headers = (requested ?? '')
    .split(',')
    .map((header) => header.trim().toLowerCase())
    .filter(Boolean);
  const rule = ruleFor(rules, origin, method, headers);
  if (!rule)
    throw new S3Error(
      403,
      'AccessForbidden',
      "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
      { Method: method, ResourceType: 'OBJECT' },
    );
  return {
    'Access-Control-Allow-Origin': allowedOrigin(rule, origin),
    'Access-Control-Allow-Methods': rule.allowedMethods.join(', '),
    ...(headers.length > 0 && { 'Access-Control-Allow-Headers': headers.join(', ') }),
    ...(rule.exposeHeaders.length > 0 && { 'Access-Control-Expose-Headers': rule.exposeHeaders.join(', ') }),
    ...(rule.maxAgeSeconds !== undefined && { 'Access-Control-Max-Age': String(rule.maxAgeSeconds) }),
    ...(!rule.allowedOrigins.includes('*') && { 'Access-Control-Allow-Credentials': 'true' }),
    Vary: vary,
  };
};

/** The CORS headers of an actual request from `origin` (none when no rule allows it). */
export const corsHeaders = (rules: CorsRule[] | undefined, origin: string, method: string) => {
  const rule = ruleFor(rules ?? [], origin, method, []);
  if (!rule) return undefined;
  return {
    'Access-Control-Allow-Origin': allowedOrigin(rule, origin),
    'Access-Control-Allow-Methods': rule.allowedMethods.join(', '),
    ...(rule.exposeHeaders.length > 0 && { 'Access-Control-Expose-Headers': rule.exposeHeaders.join(', ') }),
    ...(rule.maxAgeSeconds !== undefined && { 'Access-Control-Max-Age': String(rule.maxAgeSeconds) }),
    ...(!rule.allowedOrigins.includes('*') && { 'Access-Control-Allow-Credentials': 'true' }),
    Vary: vary,
  };
};

/** A rule, checked as PutBucketCors checks it. */
const checkedRule = (rule: CorsRule): CorsRule => {
  if (rule.allowedOrigins.length === 0 || rule.allowedMethods.length === 0)
    throw new S3Error(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
    );
  for (const method of rule.allowedMethods)
    if (!corsMethods.includes(method))
      throw new S3Error(
        400,
        'InvalidRequest',
        `Found unsupported HTTP method in CORS config. Unsupported method is ${method}`,
      );
  for (const origin of rule.allowedOrigins)
    if (origin.split('*').length > 2)
      throw new S3Error(400, 'InvalidRequest', `AllowedOrigin "${origin}" can not have more than one wildcard.`);
  return rule;
};

/** The rules of a `<CORSConfiguration>` document. */
export const rulesOfXml = (value: XmlValue): CorsRule[] => {
  const texts = (rule: XmlValue, name: string) =>
    childrenOf(rule, name).filter((v): v is string => typeof v === 'string');
  const rules = childrenOf(value, 'CORSRule').map((rule) => {
    const maxAge = textOf(rule, 'MaxAgeSeconds');
    const id = textOf(rule, 'ID');
    return checkedRule({
      ...(id !== undefined && { id }),
      allowedOrigins: texts(rule, 'AllowedOrigin'),
      allowedMethods: texts(rule, 'AllowedMethod'),
      allowedHeaders: texts(rule, 'AllowedHeader'),
      exposeHeaders: texts(rule, 'ExposeHeader'),
      ...(maxAge !== undefined && /^\d+$/.test(maxAge) && { maxAgeSeconds: Number(maxAge) }),
    });
  });
  if (rules.length === 0 || rules.length > 100)
    throw new S3Error(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
    );
  return rules;
};

/** The rules as GetBucketCors's `<CORSConfiguration>` holds them. */
export const rulesXml = (rules: CorsRule[]): XmlChild[] =>
  rules.map(
    (rule): XmlChild => [
      'CORSRule',
      [
        ['ID', rule.id],
        ...rule.allowedHeaders.map((header): XmlChild => ['AllowedHeader', header]),
        ...rule.allowedMethods.map((method): XmlChild => ['AllowedMethod', method]),
        ...rule.allowedOrigins.map((origin): XmlChild => ['AllowedOrigin', origin]),
        ...rule.exposeHeaders.map((header): XmlChild => ['ExposeHeader', header]),
        ['MaxAgeSeconds', rule.maxAgeSeconds],
      ],
    ],
  );
