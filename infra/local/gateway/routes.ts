// Routing as API Gateway does it for a REST API's resources and methods.
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

/** The route for a path and method: an exact method before ANY; `{name}` matches one segment, `{name+}` the rest. */
export const findRoute = (routes: CompiledRoute[], path: string, method: string) => {
  const segments = path.split('/').filter(Boolean);
  const matches = (route: CompiledRoute) => {
    const parameters: Record<string, string> = {};
    for (const [index, part] of route.segments.entries()) {
      const greedy = /^\{(.+)\+\}$/.exec(part);
      if (greedy?.[1]) {
        if (index >= segments.length) return undefined;
        parameters[greedy[1]] = segments.slice(index).map(decodeSegment).join('/');
        return parameters;
      }
      const segment = segments[index];
      if (segment === undefined) return undefined;
      const parameter = /^\{(.+)\}$/.exec(part);
      if (parameter?.[1]) parameters[parameter[1]] = decodeSegment(segment);
      else if (part !== segment) return undefined;
    }
    return route.segments.length === segments.length ? parameters : undefined;
  };
  for (const wanted of [method, 'ANY']) {
    for (const route of routes.filter((candidate) => candidate.method === wanted)) {
      const parameters = matches(route);
      if (parameters) return { route, parameters };
    }
  }
  return undefined;
};
