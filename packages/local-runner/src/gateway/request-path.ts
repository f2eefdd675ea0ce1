// The request's path, read once for the route and for the method ARN (or route ARN) an authorizer's policy is judged
// against, so that both describe the same request: a path-specific Deny cannot be escaped by a spelling the router
// reads one way and the policy another. Each rule and its source: packages/local-runner/docs/gateway.md, "Routes".
import { localAws } from '../app/local-aws.ts';

/** RFC 3986 section 2.3: the characters a URI never needs to percent-encode. */
const unreserved = /^[A-Za-z0-9\-._~]$/;

/** A segment that is `.` or `..`, written plainly or percent-encoded (as URL parsers read `%2e`). */
const dotSegment = /^(?:\.|%2e){1,2}$/i;

/** The path of a request target, as sent: before `?`, and in absolute form after the authority. */
const pathOf = (target: string) =>
  (target.startsWith('/') ? target : target.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '')).split(/[?#]/, 1)[0] ?? '';

/**
 * Why the gateway refuses the request target's path, or undefined when it does not: a spelling of a path whose
 * resource API Gateway's documentation and the public record leave open, and that URL parsers rewrite (dot segments,
 * a backslash), or that RFC 3986 section 6.2.2 calls equivalent to another (a percent-encoded unreserved character),
 * or an empty last segment besides the one trailing `/` API Gateway ignores.
 */
export const refusedPath = (target: string): string | undefined => {
  const path = pathOf(target);
  if (path.includes('\\')) return 'a backslash in the path';
  const segments = path.split('/');
  if (segments.some((segment) => dotSegment.test(segment))) return 'a `.` or `..` segment in the path';
  for (const [, hex = ''] of path.matchAll(/%([0-9a-f]{2})/gi)) {
    if (unreserved.test(String.fromCharCode(Number.parseInt(hex, 16))))
      return 'a percent-encoded unreserved character in the path';
  }
  if (path.endsWith('//')) return 'more than one trailing `/` in the path';
  return undefined;
};

/**
 * The segments a path (after the stage) names, which routes match: empty segments at its start dropped (API Gateway
 * answers `/prod//orders` as `/prod/orders`), one trailing `/` dropped (the same resource), and every other empty
 * segment kept, a segment that `{name}` matches as empty.
 */
export const pathSegments = (path: string): string[] => {
  const segments = path.split('/');
  while (segments[0] === '') segments.shift();
  if (segments.at(-1) === '') segments.pop();
  return segments;
};

/** The path the segments name, as the method ARN carries it after `<METHOD>`: `/t/secret` for `//t/secret/`. */
export const canonicalPath = (segments: string[]) => `/${segments.join('/')}`;

/**
 * The ARN of the method (REST API) or route (HTTP API, WebSocket API) a request calls, as an authorizer receives it
 * (`methodArn`, `routeArn`): `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>` ("Control access to
 * an API with IAM permissions", its execute-api resource format), in the local region and account; a WebSocket route's
 * `<api>/<stage>/<route key>` (`$connect`: "Control access to WebSocket APIs with AWS Lambda REQUEST authorizers"),
 * `method` its route key and no `segments`.
 */
export const executeApiArn = (apiId: string, stageName: string, method: string, segments?: string[]) =>
  `arn:${localAws.partition}:execute-api:${localAws.region}:${localAws.accountId}:${apiId}/${stageName}/${method}${segments === undefined ? '' : canonicalPath(segments)}`;
