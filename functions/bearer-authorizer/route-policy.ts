// Which routes a token reaches: each route of the API needs the scopes its operation lists in openapi.yaml (the stack
// hands them over: infra/constructs/bearer-authorizer.ts), and the policy names every route, allowed or denied.
//
// API Gateway caches a TOKEN authorizer's result per token and evaluates the cached policy against each later
// request's method ARN, so the policy must cover every route, not only the `methodArn` it was asked about ("Control
// access to REST APIs with Lambda authorizers", the result cache:
// https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-lambda-authorizer-output.html).

/** A route of the API (`{name}`, `{name+}` path parameters, as openapi.yaml writes them) and the scopes it needs. */
export interface RouteScopes {
  method: string;
  path: string;
  scopes: readonly string[];
}

type Statement = { Action: 'execute-api:Invoke'; Effect: 'Allow' | 'Deny'; Resource: string | string[] };

/** The execute-api ARN of the stage `methodArn` is in: `arn:<partition>:execute-api:<region>:<account>:<api>/<stage>`. */
const stageArnOf = (methodArn: string) => {
  const [apiId, stage] = methodArn.split(':').at(-1)?.split('/') ?? [];
  return `${methodArn.split(':').slice(0, -1).join(':')}:${apiId}/${stage}`;
};

/** A route's method ARN pattern: a path parameter matches any value, IAM's `*`. */
const routePattern = ({ method, path }: RouteScopes) => `${method}${path.replace(/\{[^}]+\}/g, '*')}`;

/** IAM's `*` matches any run of characters, `/` included. */
const patternMatches = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(value);

/**
 * IAM's `*` crosses `/`, so `GET /plants/{id}` also matches every path of `GET /plants/{id}/photos`: routes that overlap
 * so must need the same scopes, or a token allowed one would be denied the other (an explicit Deny wins). Throws
 * naming the first such pair, or a scope that is not one.
 */
export const checkRoutes = (routes: readonly RouteScopes[]) => {
  // RFC 6749 section 3.3: a scope is printable ASCII without space, `"` or `\` (so it reads safely in a 403's JSON).
  const invalid = routes.flatMap(({ scopes }) => scopes).find((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope));
  if (invalid !== undefined) throw new Error(`${JSON.stringify(invalid)} is not an OAuth scope (RFC 6749 section 3.3)`);
  const scopesOf = (route: RouteScopes) => [...route.scopes].sort().join(' ');
  for (const route of routes) {
    for (const other of routes) {
      if (route === other || scopesOf(route) === scopesOf(other)) continue;
      if (patternMatches(routePattern(route), other.method + other.path)) {
        throw new Error(
          `${route.method} ${route.path} (scopes: ${scopesOf(route) || 'none'}) also matches ` +
            `${other.method} ${other.path} (scopes: ${scopesOf(other) || 'none'}) in an IAM policy: ` +
            'give them the same scopes',
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
  const key = `${stageArn} ${scopes.join(' ')}`;
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
