// Routing as API Gateway does it for a REST API: the request's path picks one resource, the most specific that
// matches, and the method picks the resource's method (an exact one before ANY). A resource that matches but has
// neither is not routed elsewhere: the request is an unknown route (docs/local-runner.md, "Routes").
import type { LocalRoute } from '../app/template.ts';

export interface CompiledRoute extends LocalRoute {
  segments: string[];
}

/** A path segment decoded, or as sent when its percent-encoding is malformed. */
const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const greedy = (part: string) => /^\{(.+)\+\}$/.exec(part)?.[1];
const parameter = (part: string) => /^\{([^+]+)\}$/.exec(part)?.[1];

/** How specific a resource path's segment is: a literal over `{name}` over `{name+}`. */
const specificity = (part: string) => (greedy(part) ? 0 : parameter(part) ? 1 : 2);

/** The first segment where two resource paths differ decides: the more specific one wins. */
const moreSpecificFirst = (a: string[], b: string[]) => {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const difference = specificity(b[index] ?? '') - specificity(a[index] ?? '');
    if (difference !== 0) return difference;
  }
  return b.length - a.length;
};

/** The path parameters when `resource` matches the request's `segments`, else undefined. */
const match = (resource: string[], segments: string[]) => {
  const parameters: Record<string, string> = {};
  for (const [index, part] of resource.entries()) {
    const greedyName = greedy(part);
    if (greedyName) {
      if (index >= segments.length) return undefined;
      parameters[greedyName] = segments.slice(index).map(decodeSegment).join('/');
      return parameters;
    }
    const segment = segments[index];
    if (segment === undefined) return undefined;
    const name = parameter(part);
    if (name) parameters[name] = decodeSegment(segment);
    else if (part !== segment) return undefined;
  }
  return resource.length === segments.length ? parameters : undefined;
};

/**
 * The route for a path and method: the most specific resource whose path matches (`{name}` matches one segment,
 * `{name+}` the rest), then its method, or its ANY. Whatever the order the template declares them in.
 */
export const findRoute = (routes: CompiledRoute[], path: string, method: string) => {
  const segments = path.split('/').filter(Boolean);
  const resources = new Map(routes.map((route) => [route.resourcePath, route.segments]));
  const matching = [...resources].flatMap(([resourcePath, resource]) => {
    const parameters = match(resource, segments);
    return parameters ? [{ resourcePath, resource, parameters }] : [];
  });
  const [chosen] = matching.sort((a, b) => moreSpecificFirst(a.resource, b.resource));
  if (!chosen) return undefined;
  const onResource = routes.filter((route) => route.resourcePath === chosen.resourcePath);
  const route = onResource.find((each) => each.method === method) ?? onResource.find((each) => each.method === 'ANY');
  return route && { route, parameters: chosen.parameters };
};
