// An HTTP API's route phase: the path under the API's stage, a path the runner refuses (request-path.ts), then route
// selection ("Working with routes for HTTP APIs").
import type { HttpRoute } from '../../app/http-api.ts';
import type { Step } from '../exchange.ts';
import { pathSegments, refusedPath } from '../request-path.ts';
import { match, moreSpecificFirst, routedMethods } from '../routes.ts';
import type { HttpExchange } from './exchange.ts';
import { ownResponse } from './respond.ts';

/** The route a request takes, its path parameters, and the segments of its path after the stage. */
export interface Found {
  route: HttpRoute;
  parameters: Record<string, string>;
  segments: string[];
}

/**
 * Route selection ("Working with routes for HTTP APIs"): among the routes whose path matches the path's segments
 * (request-path.ts; `{name}` one segment, `{name+}` the rest) and whose method is the request's or ANY, the most
 * specific path, then the exact method; with none, the `$default` route; with none of those, 404. A method outside
 * `routedMethods` matches no route, `$default` included.
 */
const selectRoute = (routes: HttpRoute[], segments: string[], method: string) => {
  if (!routedMethods.has(method)) return undefined;
  const candidates = routes
    .filter((route) => route.resourcePath !== '$default' && (route.method === method || route.method === 'ANY'))
    .map((route) => ({ route, segments: route.resourcePath.split('/').filter(Boolean) }))
    .flatMap(({ route, segments: routeSegments }) => {
      const parameters = match(routeSegments, segments);
      return parameters ? [{ route, segments: routeSegments, parameters }] : [];
    })
    .sort((a, b) => moreSpecificFirst(a, b) || (a.route.method === 'ANY' ? 1 : 0) - (b.route.method === 'ANY' ? 1 : 0));
  const [best] = candidates;
  if (best) return { route: best.route, parameters: best.parameters };
  const fallback = routes.find((route) => route.resourcePath === '$default');
  return fallback && { route: fallback, parameters: {} };
};

/**
 * Route: the route the request takes on its stage, with its path parameters and the segments after the stage; or the
 * API's own answer instead: 404 outside the stage or for no route, 400 for a path the runner refuses.
 */
export const route = ({ deployment: { api }, stage, request, url, notes }: HttpExchange): Step<Found> => {
  // A named stage is the path's first segment; `$default` has none.
  const prefix = stage.name === '$default' ? '' : `/${stage.name}`;
  if (prefix && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
    return { responded: ownResponse(404) };
  }
  // A path the runner refuses (request-path.ts): 400, as an HTTP API answers a request it cannot read.
  const refused = refusedPath(request.url ?? '/');
  if (refused) {
    notes.push(`refused: ${refused}, whose route on AWS no public source settles`);
    return { responded: ownResponse(400) };
  }
  const segments = pathSegments(url.pathname.slice(prefix.length));
  const found = selectRoute(api.routes, segments, request.method ?? 'GET');
  return found ? { next: { ...found, segments } } : { responded: ownResponse(404) };
};
