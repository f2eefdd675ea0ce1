// The authorizer's policies over random route tables, paths and tokens, judged as API Gateway judges a (cached) policy:
// against each request's method ARN, `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>` ("Control
// access for invoking an API", https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-control-access-using-iam-policies-to-invoke-api.html),
// with IAM's wildcards, an explicit Deny winning over an Allow ("Policy evaluation logic" in the IAM user guide).
// The rule: a token reaches a route exactly when it holds every scope that route needs, whatever the path holds (any
// character RFC 3986 section 3.3 allows in a segment: `:`, `*`, `@`, `%2F`...), whichever request came first, whatever
// another token in the same execution environment held. A failure prints fast-check's seed and path: replay it with
// FC_SEED=<seed> FC_PATH=<path> npm run jest -- test/functions/bearer-authorizer/route-policy.property.test.ts
import { expect, test } from '@jest/globals';
import type { PolicyDocument, Statement } from 'aws-lambda';
import fc from 'fast-check';
import { authorize } from '../../../functions/bearer-authorizer/authorize.ts';
import { checkRoutes, type RouteScopes } from '../../../functions/bearer-authorizer/route-policy.ts';
import { scopesOf } from '../../../functions/bearer-authorizer/scopes.ts';
import { replay, report, thorough } from '../../helpers/report.ts';

/**
 * IAM's wildcards, by hand: `*` any run of characters, `?` any one. `starCrossesColon` says whether the `*` at a
 * pattern index may take a `:`. The IAM user guide ("IAM JSON policy elements: Resource") allows wildcards "within
 * any ARN segment (the parts separated by colons)", and "if the * wildcard is the last character of a resource ARN
 * segment, it can expand to match beyond the colon boundaries"; whether API Gateway's evaluation of an authorizer's
 * policy lets a `*` inside a segment take a `:` no public page says, so both readings are checked.
 */
const wildcardMatches = (pattern: string, value: string, starCrossesColon: (index: number) => boolean) => {
  // Whether pattern.slice(i) matches value.slice(j), remembered per (i, j).
  const known = new Map<number, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = i * (value.length + 1) + j;
    let result = known.get(key);
    if (result !== undefined) return result;
    const [p, v] = [pattern[i], value[j]];
    if (p === undefined) result = v === undefined;
    else if (p === '*')
      result = from(i + 1, j) || (v !== undefined && (v !== ':' || starCrossesColon(i)) && from(i, j + 1));
    else if (p === '?') result = v !== undefined && v !== ':' && from(i + 1, j + 1);
    else result = v === p && from(i + 1, j + 1);
    known.set(key, result);
    return result;
  };
  return from(0, 0);
};

const anywhere = () => true;
const atSegmentEnd = (pattern: string) => (index: number) => index === pattern.length - 1 || pattern[index + 1] === ':';

type Decision = 'Allow' | 'Deny' | 'implicit deny';
const iamDecision = (policy: PolicyDocument, arn: string, reading: 'whole ARN' | 'by segment'): Decision => {
  const applies = (statement: Statement) =>
    'Resource' in statement &&
    [statement.Resource ?? []]
      .flat()
      .some((pattern) => wildcardMatches(pattern, arn, reading === 'whole ARN' ? anywhere : atSegmentEnd(pattern)));
  const applying = policy.Statement.filter(applies);
  if (applying.some(({ Effect }) => Effect === 'Deny')) return 'Deny';
  return applying.some(({ Effect }) => Effect === 'Allow') ? 'Allow' : 'implicit deny';
};

// Route tables: a few literals, so that routes and paths collide; `{name}` and `{name+}` parameters.
const literals = ['a', 'b', 'plants', 'GET', 'v1'];
const routeTables = fc
  .uniqueArray(
    fc
      .record({
        method: fc.constantFrom('GET', 'POST'),
        segments: fc.array(fc.option(fc.constantFrom(...literals), { nil: undefined }), { maxLength: 3 }),
        greedy: fc.boolean(),
        scopes: fc.subarray(['s1', 's2', 's3']),
      })
      .map(({ method, segments, greedy, scopes }): RouteScopes => {
        const parts = segments.map((literal, index) => literal ?? `{p${index}}`);
        if (greedy) parts.push('{rest+}');
        return { method, path: `/${parts.join('/')}`, scopes };
      }),
    { minLength: 1, maxLength: 5, selector: ({ method, path }) => `${method} ${path.replace(/\{\w+\}/g, '{}')}` },
  )
  .filter((routes) => {
    try {
      checkRoutes(routes);
      return true;
    } catch {
      return false;
    }
  });

// A path segment's characters (RFC 3986 section 3.3: pchar = unreserved / pct-encoded / sub-delims / ":" / "@"),
// with runs that look like what a method ARN holds.
const segmentParts = [
  ...'AZaz09-._~',
  ...`!$&'()*+,;=`,
  ':',
  '@',
  '%2F',
  '%3A',
  '%25',
  '%2A',
  ...literals,
  'arn:aws:execute-api:eu-west-1:123456789012:other/v2',
  '*/*',
];
const segmentValue = fc
  .array(fc.constantFrom(...segmentParts), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join('').replaceAll('/', ':'))
  // A dot segment is removed before routing (RFC 3986 section 5.2.4): not a value a route receives.
  .filter((value) => value !== '.' && value !== '..');
const paramValues = fc.array(fc.array(segmentValue, { minLength: 1, maxLength: 3 }), { minLength: 4, maxLength: 4 });

/** The request path for `route`, each parameter given a value (a greedy one, one or more segments). */
const pathOf = (route: RouteScopes, values: string[][]) =>
  route.path
    .split('/')
    .map((segment, index) =>
      segment.endsWith('+}')
        ? (values[index % 4] ?? []).join('/')
        : segment.startsWith('{')
          ? (values[index % 4]?.[0] ?? '')
          : segment,
    )
    .join('/');

/** The routes whose template matches the path segment by segment, as API Gateway's resources do. */
const routesMatching = (routes: RouteScopes[], method: string, path: string) =>
  routes.filter((route) => {
    if (route.method !== method) return false;
    const template = route.path.split('/');
    const segments = path.split('/');
    return template.every((part, index) =>
      part.endsWith('+}')
        ? segments.length > index && segments.slice(index).every((segment) => segment !== '')
        : index < segments.length &&
          (part.startsWith('{') ? segments[index] !== '' : segments[index] === part) &&
          (index < template.length - 1 || segments.length === template.length),
    );
  });

// A token's scope claims: strings and arrays with spaces, tabs, quotes, duplicates and empty elements; a few words, so
// that two tokens of a case often hold the same words in other shapes (`"s1 s2"`, `["s1 s2"]`, `["s1", "s2"]`).
const scopeWords = ['s1', 's2', 's1 s2', 's1 s2', ' s1', '', 's1\t', 's"2', 's3é'];
const claim = fc.option(
  fc.oneof(fc.array(fc.constantFrom(...scopeWords), { maxLength: 3 }), fc.constantFrom(...scopeWords)),
  { nil: undefined, freq: 2 },
);
const tokenClaims = fc.record({ scope: claim, scp: claim, roles: claim });
type Claims = { scope?: unknown; scp?: unknown; roles?: unknown };

/**
 * Whether the token holds `scope` (a scope token, as every route's is), by docs/identity-providers.md's rule: a word of
 * a space-separated `scope` or `scp` string, an element of an `scp` array; an element of `roles` when the token has
 * neither `scope` nor `scp`.
 */
const holds = ({ scope, scp, roles }: Claims, wanted: string) => {
  const inClaim = (value: unknown) =>
    typeof value === 'string' ? value.split(' ').includes(wanted) : Array.isArray(value) && value.includes(wanted);
  return scope === undefined && scp === undefined ? inClaim(roles) : inClaim(scope) || inClaim(scp);
};

const stage = 'arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/v1';
const runs = thorough() ? 30_000 : 3_000;

test(`${runs} route tables, tokens and paths: a token reaches a route exactly when it holds its scopes`, async () => {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(
      routeTables,
      fc.array(tokenClaims, { minLength: 1, maxLength: 3 }),
      fc.array(fc.record({ token: fc.nat(2), route: fc.nat(4), values: paramValues }), { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      async (table, tokens, requests, cached) => {
        // A table of its own per run: the authorizer's own cache of policies (per table) starts empty, and a shrunk
        // counterexample shows every request that filled it.
        const routes = table.map((route) => ({ ...route }));
        // API Gateway's result cache: one policy per token, from whichever request came first.
        const policies = new Map<number, PolicyDocument>();
        for (const request of requests) {
          const tokenIndex = request.token % tokens.length;
          const claims = tokens[tokenIndex] ?? {};
          const route = routes[request.route % routes.length];
          if (route === undefined) throw new Error('a route table has a route');
          const path = pathOf(route, request.values);
          const methodArn = `${stage}/${route.method}${path}`;
          let policy = cached ? policies.get(tokenIndex) : undefined;
          if (policy === undefined) {
            const verify = async () => ({ sub: 'user', scopes: scopesOf(claims), clientId: 'client' });
            ({ policyDocument: policy } = await authorize(
              { type: 'TOKEN', authorizationToken: 'Bearer header.payload.signature', methodArn },
              { verify, routes },
            ));
            policies.set(tokenIndex, policy);
          }
          // Every route this request could be routed to needs the same scopes (checkRoutes' promise).
          const candidates = routesMatching(routes, route.method, path);
          expect(candidates).toContain(route);
          expect(new Set(candidates.map(({ scopes }) => [...scopes].sort().join(' '))).size).toBe(1);
          const reached = route.scopes.every((scope) => holds(claims, scope));
          const context = `${JSON.stringify(claims)} ${route.method} ${path} of ${JSON.stringify(routes)}`;
          expect([context, iamDecision(policy, methodArn, 'whole ARN') === 'Allow']).toEqual([context, reached]);
          // Read by segment, a `*` inside a segment does not take a `:`: such a request may be denied, never allowed
          // wrongly.
          const bySegment = iamDecision(policy, methodArn, 'by segment') === 'Allow';
          expect([context, bySegment && !reached]).toEqual([context, false]);
          checked += 1;
        }
      },
    ),
    { numRuns: runs, ...replay() },
  );
  expect(checked).toBeGreaterThanOrEqual(runs);
  report('route-policy', { cases: runs, requests: checked });
}, 300_000);
