// Routing as API Gateway does it for a REST API: the request's path picks one resource, the most specific that
// matches, and the method picks the resource's method (an exact one before ANY). A resource that matches but has
// neither is not routed elsewhere: the request is an unknown route (docs/gateway.md, "Routes"). The path matching and
// its order are an HTTP API's too (http/route.ts).
import type { RestRoute } from '../app/rest-api.ts';

/** A resource of the API: its path's segments, and its methods (`ANY` among them) by name. */
export interface CompiledResource {
  segments: string[];
  methods: Map<string, RestRoute>;
}

const greedy = (part: string) => /^\{(.+)\+\}$/.exec(part)?.[1];
const parameter = (part: string) => /^\{([^+]+)\}$/.exec(part)?.[1];

/** How specific a resource path's segment is: a literal over `{name}` over `{name+}`. */
const specificity = (part: string) => (greedy(part) ? 0 : parameter(part) ? 1 : 2);

/** The first segment where two resource paths differ decides: the more specific one first. */
export const moreSpecificFirst = (a: { segments: string[] }, b: { segments: string[] }) => {
  for (let index = 0; index < Math.min(a.segments.length, b.segments.length); index += 1) {
    const difference = specificity(b.segments[index] ?? '') - specificity(a.segments[index] ?? '');
    if (difference !== 0) return difference;
  }
  return b.segments.length - a.segments.length;
};

/**
 * The routes' resources, most specific first: the first one whose path matches a request is the one API Gateway
 * picks, whatever the order the template declares them in.
 */
export const compileRoutes = (routes: RestRoute[]): CompiledResource[] => {
  const resources = new Map<string, CompiledResource>();
  for (const route of routes) {
    const resource = resources.get(route.resourcePath) ?? {
      segments: route.resourcePath.split('/').filter(Boolean),
      methods: new Map(),
    };
    resource.methods.set(route.method, route);
    resources.set(route.resourcePath, resource);
  }
  return [...resources.values()].sort(moreSpecificFirst);
};

/**
 * The path parameters when `resource` matches the request's `segments`, else undefined. Their values are the
 * segments as sent, percent-encoding and all, as a REST API delivers them (`space%20value`; docs/local-runner.md).
 */
export const match = (resource: string[], segments: string[]) => {
  const parameters: Record<string, string> = {};
  for (const [index, part] of resource.entries()) {
    const greedyName = greedy(part);
    if (greedyName) {
      if (index >= segments.length) return undefined;
      parameters[greedyName] = segments.slice(index).join('/');
      return parameters;
    }
    const segment = segments[index];
    if (segment === undefined) return undefined;
    const name = parameter(part);
    if (name) parameters[name] = segment;
    else if (part !== segment) return undefined;
  }
  return resource.length === segments.length ? parameters : undefined;
};

/**
 * The methods API Gateway takes for a method or a route, which `ANY` stands for (the REST API's PutMethod `httpMethod`,
 * https://docs.aws.amazon.com/apigateway/latest/api/API_PutMethod.html; an HTTP API route key's methods), and the only
 * ones the events captured on AWS carry (@aws-lambda-powertools/parser's `APIGatewayHttpMethod`). A request with
 * another (TRACE, PROPFIND, ...) matches no method, so no function sees it; AWS does not document its answer: the
 * runner gives the unknown route's.
 */
export const routedMethods: ReadonlySet<string> = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);

/**
 * The route for a path's segments (request-path.ts) and method: the most specific resource whose path matches (`{name}`
 * matches one segment, an empty one too; `{name+}` the rest), then its method, or its ANY.
 */
export const findRoute = (resources: CompiledResource[], segments: string[], method: string) => {
  if (!routedMethods.has(method)) return undefined;
  for (const resource of resources) {
    const parameters = match(resource.segments, segments);
    if (!parameters) continue;
    const route = resource.methods.get(method) ?? resource.methods.get('ANY');
    return route && { route, parameters };
  }
  return undefined;
};
