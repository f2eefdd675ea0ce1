// Route selection as API Gateway does it for a REST API: the most specific resource whose path matches (a literal
// segment over `{name}` over `{name+}`, decided at the first segment where two paths differ), then the method on that
// resource, an exact method over ANY ("Set up a proxy integration with a proxy resource",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-set-up-simple-proxy.html; the order is
// spelled out for HTTP APIs in "Routing API requests",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-routes.html). The routes below are
// declared in the worst order: the greedy and the parameter before the literals they overlap.
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { ProxyRoute } from '../../src/app/rest-api.ts';
import { pathSegments } from '../../src/gateway/request-path.ts';
import { compileRoutes, findRoute } from '../../src/gateway/routes.ts';

const route = (method: string, resourcePath: string): ProxyRoute => ({
  integration: 'proxy',
  resourcePath,
  method,
  streamed: false,
  functionId: `${method} ${resourcePath}`,
  authorizerId: undefined,
  validation: undefined,
  authorizationScopes: [],
  apiKeyRequired: false,
  iam: false,
  integrationTimeoutMs: 29_000,
});

const worstOrder = [
  route('ANY', '/{proxy+}'),
  route('ANY', '/things/{proxy+}'),
  route('GET', '/things/static'),
  route('GET', '/pairs/{a}/{b}'),
  route('GET', '/pairs/x/{b}'),
  route('GET', '/{p}'),
  route('ANY', '/anything'),
  route('ANY', '/both'),
  route('GET', '/both'),
  route('GET', '/'),
];

/** Which route answers, and with which path parameters. */
const routed = (path: string, method = 'GET', routes = worstOrder) => {
  const found = findRoute(compileRoutes(routes), pathSegments(path), method);
  return (
    found && { to: found.route.integration === 'proxy' ? found.route.functionId : '', parameters: found.parameters }
  );
};

describe('the most specific resource wins, whatever the order of the template', () => {
  test('a literal sibling over the greedy {proxy+} declared before it', () => {
    expect(routed('/things/static')).toEqual({ to: 'GET /things/static', parameters: {} });
    expect(routed('/things/other/deep')).toEqual({ to: 'ANY /things/{proxy+}', parameters: { proxy: 'other/deep' } });
  });

  test('a literal segment over a parameter, at the first segment where the paths differ', () => {
    expect(routed('/pairs/x/1')).toEqual({ to: 'GET /pairs/x/{b}', parameters: { b: '1' } });
    expect(routed('/pairs/y/1')).toEqual({ to: 'GET /pairs/{a}/{b}', parameters: { a: 'y', b: '1' } });
  });

  test('a parameter over a greedy path, and the greedy path for what nothing else matches', () => {
    expect(routed('/else')).toEqual({ to: 'GET /{p}', parameters: { p: 'else' } });
    expect(routed('/else/where')).toEqual({ to: 'ANY /{proxy+}', parameters: { proxy: 'else/where' } });
  });

  test('the resource first, then its method: ANY on the literal resource over GET on a parameter', () => {
    expect(routed('/anything')).toEqual({ to: 'ANY /anything', parameters: {} });
  });

  test('on one resource, an exact method over ANY (declared before it), and ANY for the others', () => {
    expect(routed('/both')?.to).toBe('GET /both');
    expect(routed('/both', 'DELETE')?.to).toBe('ANY /both');
  });

  test('the root resource matches / alone; a greedy path needs at least one segment', () => {
    expect(routed('/')?.to).toBe('GET /');
    expect(routed('/', 'POST', [route('ANY', '/{proxy+}')])).toBeUndefined();
  });

  // PutMethod's httpMethod: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT
  // (https://docs.aws.amazon.com/apigateway/latest/api/API_PutMethod.html); captured events carry no other.
  test('a method API Gateway does not take (TRACE, PROPFIND, a lower-case get) matches no ANY: an unknown route', () => {
    for (const method of ['TRACE', 'PROPFIND', 'get', 'CONNECT']) {
      expect(routed('/anything', method)).toBeUndefined();
      expect(routed('/else/where', method)).toBeUndefined();
    }
    expect(routed('/anything', 'PATCH')?.to).toBe('ANY /anything');
  });

  test('a resource that matches without the method (nor ANY) is an unknown route, not passed to a less specific one', () => {
    expect(routed('/things/static', 'POST')).toBeUndefined();
    expect(routed('/pairs/x/1', 'POST')).toBeUndefined();
  });

  // A trailing `/` is the same resource (localstack/localstack, tests/aws/services/apigateway/
  // test_apigateway_lambda.snapshot.json, recorded on AWS: `/test-path/` reaches `/{proxy+}` as "test-path"); `//` after
  // the stage is dropped (localstack/localstack issue 11253); `//` in the middle is an empty segment, which `{name}`
  // matches (martzcodes/blog-ts-request-validation, README.md: `/prod/unvalidated//basic` reached `{hello}`).
  test('a trailing / and empty segments at the start do not count; an empty segment in the middle is a segment', () => {
    expect(routed('/things/static/')?.to).toBe('GET /things/static');
    expect(routed('//things/static')?.to).toBe('GET /things/static');
    expect(routed('/things/a/b/')).toEqual({ to: 'ANY /things/{proxy+}', parameters: { proxy: 'a/b' } });
    expect(routed('/things//static')).toEqual({ to: 'ANY /things/{proxy+}', parameters: { proxy: '/static' } });
    expect(routed('/pairs//1')).toEqual({ to: 'GET /pairs/{a}/{b}', parameters: { a: '', b: '1' } });
  });

  test('any order of the same routes routes every request the same way', () => {
    const requests: [string, string][] = [
      ['/things/static', 'GET'],
      ['/things/a/b', 'PUT'],
      ['/pairs/x/1', 'GET'],
      ['/pairs/y/1', 'GET'],
      ['/anything', 'GET'],
      ['/else', 'GET'],
      ['/both', 'GET'],
      ['/both', 'PATCH'],
      ['/', 'GET'],
      ['/a/b/c', 'GET'],
    ];
    const expected = requests.map(([path, method]) => routed(path, method));
    fc.assert(
      fc.property(fc.shuffledSubarray(worstOrder, { minLength: worstOrder.length }), (order) => {
        expect(requests.map(([path, method]) => routed(path, method, order))).toEqual(expected);
      }),
    );
  });
});
