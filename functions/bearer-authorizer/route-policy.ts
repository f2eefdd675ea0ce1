// Which routes a token reaches: each route of the API needs the scopes its operation lists in openapi.yaml (the stack
// hands them over: infra/constructs/bearer-authorizer.ts), and the policy names every route, allowed or denied.
//
// API Gateway caches a TOKEN authorizer's result per token and evaluates the cached policy against each later
// request's method ARN, so the policy must cover every route, not only the `methodArn` it was asked about ("Control
// access to REST APIs with Lambda authorizers", the result cache:
// https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-lambda-authorizer-output.html).
import { isScopeToken } from './scopes.ts';

/** A route of the API (`{name}`, `{name+}` path parameters, as openapi.yaml writes them) and the scopes it needs. */
export interface RouteScopes {
  method: string;
  path: string;
  scopes: readonly string[];
}

type Statement = { Action: 'execute-api:Invoke'; Effect: 'Allow' | 'Deny'; Resource: string | string[] };

/**
 * The execute-api ARN of the stage `methodArn` is in: `arn:<partition>:execute-api:<region>:<account>:<api>/<stage>`.
 * An ARN is `arn:partition:service:region:account-id:resource`, its resource everything after the fifth `:` ("Amazon
 * Resource Names (ARNs)" in the IAM user guide), and execute-api's resource is `<api>/<stage>/<METHOD>/<path>`: the
 * path may hold `:`, `/`, `*` and anything else a client sends, and never names the API or the stage.
 */
const stageArnOf = (methodArn: string) => {
  const fields = methodArn.split(':');
  const [apiId = '', stage = ''] = fields.slice(5).join(':').split('/');
  if (
    fields.length < 6 ||
    fields[0] !== 'arn' ||
    fields[2] !== 'execute-api' ||
    ![apiId, stage].every((name) => /^[\w-]+$/.test(name))
  ) {
    throw new Error(`${methodArn} is not the ARN of a method of an API's stage`);
  }
  return `${fields.slice(0, 5).join(':')}:${apiId}/${stage}`;
};

/** A route's method ARN pattern: a path parameter matches any value, IAM's `*`. */
const routePattern = ({ method, path }: RouteScopes) => `${method}${path.replace(/\{[^}]+\}/g, '*')}`;

/**
 * Whether some text matches both patterns, where `*` matches any run of characters (`/` included) and every other
 * character itself: a walk over pairs of positions, one in each pattern (no library decides whether two globs
 * intersect).
 */
const patternsOverlap = (first: string, second: string) => {
  const seen = new Set<string>();
  const walk = (i: number, j: number): boolean => {
    const key = `${i} ${j}`;
    if (seen.has(key)) return false;
    seen.add(key);
    const [a, b] = [first[i], second[j]];
    if (a === undefined && b === undefined) return true;
    // A `*` may match nothing, or take the other pattern's next character (a literal, never a `*` of its own).
    if (a === '*' && (walk(i + 1, j) || (b !== undefined && b !== '*' && walk(i, j + 1)))) return true;
    if (b === '*' && (walk(i, j + 1) || (a !== undefined && a !== '*' && walk(i + 1, j)))) return true;
    return a !== undefined && a === b && a !== '*' && walk(i + 1, j + 1);
  };
  return walk(0, 0);
};

/**
 * A route's path as openapi.yaml writes it: `/`, or segments that are each a literal or a whole parameter (`{name}`, or
 * `{name+}` last), as API Gateway's resources are. A literal holding IAM's wildcards (`*`, `?`) would widen the policy.
 */
const isRoutePath = (path: string) =>
  path === '/' ||
  (path.startsWith('/') &&
    path
      .split('/')
      .slice(1)
      .every(
        (segment, index, segments) =>
          /^[^{}*?]+$/.test(segment) ||
          /^\{\w+\}$/.test(segment) ||
          (index === segments.length - 1 && /^\{\w+\+\}$/.test(segment)),
      ));

/**
 * IAM's `*` crosses `/`, so `GET /plants/{id}` also matches every path of `GET /plants/{id}/photos`, and `GET /a/{x}`
 * the path `/a/b` of `GET /{y}/b`: routes whose patterns some request's method ARN matches both of must need the same
 * scopes, or a token allowed one would be denied the other (an explicit Deny wins). Throws naming the first such pair,
 * a path that is not a route's, or a scope that is not one.
 */
export const checkRoutes = (routes: readonly RouteScopes[]) => {
  const invalid = routes.flatMap(({ scopes }) => scopes).find((scope) => !isScopeToken(scope));
  if (invalid !== undefined) throw new Error(`${JSON.stringify(invalid)} is not an OAuth scope (RFC 6749 section 3.3)`);
  const badPath = routes.find(({ path }) => !isRoutePath(path));
  if (badPath) {
    throw new Error(
      `${badPath.method} ${badPath.path} is not a route path: each segment a literal without * or ?, {name}, or {name+} last`,
    );
  }
  const scopesOf = (route: RouteScopes) => [...route.scopes].sort().join(' ');
  for (const [index, route] of routes.entries()) {
    for (const other of routes.slice(index + 1)) {
      if (scopesOf(route) === scopesOf(other)) continue;
      if (patternsOverlap(routePattern(route), routePattern(other))) {
        throw new Error(
          `${route.method} ${route.path} (scopes: ${scopesOf(route) || 'none'}) and ` +
            `${other.method} ${other.path} (scopes: ${scopesOf(other) || 'none'}) match the same requests in an IAM ` +
            'policy: give them the same scopes',
        );
      }
    }
  }
};

export interface RoutePolicy {
  statements: Statement[];
  /** Of the scopes the routes need, those the token lacks, space-separated ('' when it reaches every route). */
  missingScopes: string;
}

const policies = new WeakMap<readonly RouteScopes[], Map<string, RoutePolicy>>();
const maxCachedPolicies = 256;

/**
 * The policy for a token with `scopes`: Allow on the routes whose scopes it has all of, Deny on the rest. Without
 * routes (the deployment checks no scopes), Allow on the whole stage.
 */
export const routePolicy = (
  methodArn: string,
  scopes: readonly string[],
  routes: readonly RouteScopes[] | undefined,
): RoutePolicy => {
  const stageArn = stageArnOf(methodArn);
  // A warm authorizer meets the same few scope sets again and again: each policy is built once (a bounded cache per
  // list of routes; the policies are never changed after).
  const cache = routes === undefined ? undefined : (policies.get(routes) ?? new Map<string, RoutePolicy>());
  // The policy depends on the stage and on the set of scopes alone; JSON keeps any two such keys apart, whatever the
  // scopes hold.
  const key = JSON.stringify([stageArn, ...[...new Set(scopes)].sort()]);
  const cached = cache?.get(key);
  if (cached) return cached;
  const policy = buildPolicy(stageArn, scopes, routes);
  if (cache && routes) {
    if (cache.size >= maxCachedPolicies) cache.clear();
    policies.set(routes, cache.set(key, policy));
  }
  return policy;
};

const buildPolicy = (
  stageArn: string,
  scopes: readonly string[],
  routes: readonly RouteScopes[] | undefined,
): RoutePolicy => {
  const statement = (effect: Statement['Effect'], patterns: string[]): Statement => ({
    Action: 'execute-api:Invoke',
    Effect: effect,
    Resource:
      patterns.length === 1 ? `${stageArn}/${patterns[0]}` : patterns.map((pattern) => `${stageArn}/${pattern}`),
  });
  if (routes === undefined) return { statements: [statement('Allow', ['*'])], missingScopes: '' };
  const reached = (route: RouteScopes) => route.scopes.every((scope) => scopes.includes(scope));
  const allowed = routes.filter(reached);
  const denied = routes.filter((route) => !reached(route));
  const missing = new Set(denied.flatMap((route) => route.scopes).filter((scope) => !scopes.includes(scope)));
  const statements = allowed.length > 0 ? [statement('Allow', allowed.map(routePattern))] : [];
  // Every route is named: one left out would be denied anyway, but an explicit Deny says so in the policy.
  if (denied.length > 0) statements.push(statement('Deny', denied.map(routePattern)));
  if (statements.length === 0) statements.push(statement('Deny', ['*']));
  return { statements, missingScopes: [...missing].join(' ') };
};

/** ROUTE_SCOPES as the stack writes it: a JSON list of routes; throws naming the variable when it is not one. */
export const parseRouteScopes = (text: string, variable: string): RouteScopes[] | undefined => {
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const isRoute = (item: unknown): item is RouteScopes => {
    const { method, path, scopes } = (item ?? {}) as Partial<Record<string, unknown>>;
    return (
      typeof method === 'string' &&
      typeof path === 'string' &&
      path.startsWith('/') &&
      Array.isArray(scopes) &&
      scopes.every((scope) => typeof scope === 'string' && scope !== '')
    );
  };
  if (!Array.isArray(value) || !value.every(isRoute)) {
    throw new Error(
      `${variable} must be a JSON list of {"method", "path", "scopes": [...]}, or empty to check no scopes`,
    );
  }
  checkRoutes(value);
  return value;
};
