// Issue 41, item 4: for any request path, the resource chosen, its path parameters and the method ARN the authorizer's
// policy is judged against describe the same request, so a path-specific Deny cannot be escaped. Random paths
// (slashes, empty segments, a trailing `/`, percent-encoding, dots, backslashes) over random resource trees, a policy
// allowing the stage and denying one path; the gateway's steps as server.ts chains them (refuse, segments, route,
// method ARN, decide). The oracle below is written apart from src/gateway/request-path.ts and routes.ts: its reading
// of a path follows the sources cited in docs/gateway.md ("Routes"): LocalStack's AWS-validated snapshot (a
// trailing `/` is the same resource), localstack/localstack issue 11253 (`/prod//orders` answered as `/prod/orders`),
// martzcodes/blog-ts-request-validation's README (`//` in the middle matched `{hello}` as empty).
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { ProxyRoute } from '../../src/app/rest-api.ts';
import { decide, parseResult } from '../../src/gateway/authorizers/policy.ts';
import { canonicalPath, pathSegments, refusedPath } from '../../src/gateway/request-path.ts';
import { compileRoutes, findRoute } from '../../src/gateway/routes.ts';

const stageArn = 'arn:aws:execute-api:us-east-1:000000000000:api/prod';

const route = (method: string, resourcePath: string): ProxyRoute => ({
  integration: 'proxy',
  resourcePath,
  method,
  streamed: false,
  functionId: `${method} ${resourcePath}`,
  authorizerId: 'auth',
  validation: undefined,
  authorizationScopes: [],
  apiKeyRequired: false,
  iam: false,
  integrationTimeoutMs: 29_000,
});

/** What the gateway does with `path` (after the stage): refused, unknown, denied, or invoked with what. */
const gateway = (path: string, routes: ProxyRoute[], denied: string) => {
  if (refusedPath(path)) return { outcome: 'refused' as const };
  const segments = pathSegments(path);
  const found = findRoute(compileRoutes(routes), segments, 'GET');
  if (!found) return { outcome: 'unknown' as const };
  const methodArn = `${stageArn}/GET${canonicalPath(segments)}`;
  const policy = parseResult({
    principalId: 'p',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${stageArn}/*` },
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${stageArn}/GET${denied}` },
      ],
    },
  });
  if (!policy) throw new Error('the policy is malformed');
  const { allowed } = decide(policy, methodArn);
  return allowed
    ? { outcome: 'invoked' as const, resource: found.route.resourcePath, parameters: found.parameters, methodArn }
    : { outcome: 'denied' as const };
};

// The oracle.
/** The spellings no public source settles: the gateway must refuse them. */
const oracleRefuses = (path: string) =>
  path.includes('\\') ||
  /\/\/$/.test(path) ||
  path.split('/').some((segment) => ['.', '..'].includes(segment.replace(/%2e/gi, '.'))) ||
  // %30-%39 digits, %41-%5A and %61-%7A letters, %2D - %2E . %5F _ %7E ~ (RFC 3986 section 2.3).
  /%(3\d|4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a]|2d|2e|5f|7e)/i.test(path);
/** The request's path as AWS reads it: empty segments at the start and one trailing `/` do not count. */
const oracleRead = (path: string) => {
  const read = path.replace(/^\/+/, '/').replace(/(.)\/$/, '$1');
  return read === '' ? '/' : read;
};
/** The concrete path a resource names with these parameters. */
const instantiate = (resourcePath: string, parameters: Record<string, string>) =>
  resourcePath.replace(/\{([^}+]+)\+?\}/g, (_, name: string) => parameters[name] ?? '<missing>');

const literal = fc.constantFrom('t', 'secret', 'a');
/** A resource path: literals, `{pN}` parameters named by position (AWS refuses two names at one place), a greedy last. */
const resourcePath = fc
  .tuple(fc.array(fc.oneof(literal, fc.constant('{}')), { minLength: 0, maxLength: 3 }), fc.boolean())
  .map(([parts, greedy]) => {
    const named = parts.map((part, index) => (part === '{}' ? `{p${index}}` : part));
    if (greedy) named.push(`{p${named.length}+}`);
    return `/${named.join('/')}`;
  });
const routes = fc
  .uniqueArray(resourcePath, { minLength: 1, maxLength: 8 })
  .chain((paths) =>
    fc.tuple(...paths.map((path) => fc.constantFrom('GET', 'ANY').map((method) => route(method, path)))),
  );
const piece = fc.constantFrom(
  't',
  'secret',
  'a',
  '',
  '.',
  '..',
  '%2e',
  '%2E%2e',
  '%73ecret',
  'secre%74',
  '%41',
  'x%2Fy',
  'sp%20ce',
  '%7B',
  'se\\cret',
  '%zz',
);
const requestPath = fc
  .tuple(fc.array(piece, { maxLength: 5 }), fc.constantFrom('', '/', '//'))
  .map(([pieces, tail]) => `/${pieces.join('/')}${tail}`);
const deniedPath = fc.array(literal, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`);

describe('the route chosen and the method ARN judged describe the same request', () => {
  test('no request the oracle reads as the denied path reaches a function; what is invoked is what the ARN names', () => {
    fc.assert(
      fc.property(routes, requestPath, deniedPath, (tree, path, denied) => {
        const served = gateway(path, tree, denied);
        if (oracleRefuses(path)) {
          expect(served.outcome).toBe('refused');
          return;
        }
        expect(served.outcome).not.toBe('refused');
        const read = oracleRead(path);
        if (read === denied) expect(served.outcome).not.toBe('invoked');
        if (served.outcome !== 'invoked') return;
        // The resource with its parameters names the path the oracle read, and the ARN names that path too.
        expect(instantiate(served.resource, served.parameters)).toBe(read);
        expect(served.methodArn).toBe(`${stageArn}/GET${read}`);
      }),
      { numRuns: 5_000 },
    );
  });

  test('the sources, one example each', () => {
    const tree = [route('GET', '/t/{p1}'), route('GET', '/unvalidated/{p1}/basic'), route('ANY', '/{p0+}')];
    // A trailing `/`: the same resource, the same ARN (denied).
    expect(gateway('/t/secret/', tree, '/t/secret')).toEqual({ outcome: 'denied' });
    // `//` at the start: dropped.
    expect(gateway('//t/secret', tree, '/t/secret')).toEqual({ outcome: 'denied' });
    // `//` in the middle: an empty segment, which `{name}` matches.
    expect(gateway('/unvalidated//basic', tree, '/t/secret')).toMatchObject({
      outcome: 'invoked',
      resource: '/unvalidated/{p1}/basic',
      parameters: { p1: '' },
      methodArn: `${stageArn}/GET/unvalidated//basic`,
    });
    // `/t//secret` is three segments: the greedy resource takes it, and its ARN names it as sent.
    expect(gateway('/t//secret', tree, '/t/secret')).toMatchObject({
      outcome: 'invoked',
      resource: '/{p0+}',
      parameters: { p0: 't//secret' },
      methodArn: `${stageArn}/GET/t//secret`,
    });
  });
});
