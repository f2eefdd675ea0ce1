// The authorizer's policy per route, judged by how API Gateway evaluates a cached policy: against each later
// request's method ARN `arn:<partition>:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`, with IAM's
// wildcards, where `*` matches any run of characters, `/` included ("Control access for invoking an API", the
// execute-api resource format: https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-control-access-using-iam-policies-to-invoke-api.html).
import { describe, expect, test } from '@jest/globals';
import {
  checkRoutes,
  parseRouteScopes,
  type RouteScopes,
  routePolicy,
} from '../../../functions/bearer-authorizer/route-policy.ts';

const stage = 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/v1';
const methodArn = `${stage}/GET/plants/42`;
const routes: RouteScopes[] = [
  { method: 'POST', path: '/plants', scopes: ['plants/write'] },
  { method: 'GET', path: '/plants', scopes: ['plants/read'] },
  { method: 'GET', path: '/plants/{id}', scopes: ['plants/read'] },
  { method: 'GET', path: '/files/{proxy+}', scopes: ['files/read', 'plants/read'] },
];

/** What IAM decides for a request's method ARN under the statements: an explicit Deny wins, then an Allow. */
const decide = (statements: ReturnType<typeof routePolicy>['statements'], arn: string) => {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(arn);
  const applying = statements.filter(({ Resource }) => [Resource].flat().some(matches));
  if (applying.some(({ Effect }) => Effect === 'Deny')) return 'Deny';
  return applying.some(({ Effect }) => Effect === 'Allow') ? 'Allow' : 'implicit deny';
};

describe('a policy that names every route', () => {
  test('a read-only token reaches the reads, is denied the write, and the context names what it lacks', () => {
    const { statements, missingScopes } = routePolicy(methodArn, ['plants/read'], routes);
    expect(decide(statements, `${stage}/GET/plants`)).toBe('Allow');
    expect(decide(statements, `${stage}/GET/plants/9223372036854775807`)).toBe('Allow');
    expect(decide(statements, `${stage}/POST/plants`)).toBe('Deny');
    // A route needing two scopes is reached only with both.
    expect(decide(statements, `${stage}/GET/files/a/b.txt`)).toBe('Deny');
    expect(missingScopes).toBe('plants/write files/read');
  });

  test('whichever route it was asked about: the policy is the same, as a cached one must be', () => {
    const asked = ['POST/plants', 'GET/plants', 'GET/files/x'].map((route) =>
      routePolicy(`${stage}/${route}`, ['plants/read'], routes),
    );
    expect(asked[1]).toEqual(asked[0]);
    expect(asked[2]).toEqual(asked[0]);
    // Built once per stage and scope set: another stage, or other scopes, get their own.
    const otherStage = routePolicy(methodArn.replace('/v1/', '/v2/'), ['plants/read'], routes);
    expect(JSON.stringify(otherStage.statements)).toContain('abc123defg/v2/GET/plants');
    expect(JSON.stringify(otherStage.statements)).not.toContain('/v1/');
    expect(routePolicy(methodArn, ['plants/write'], routes).missingScopes).toBe('plants/read files/read');
  });

  test('a token with every scope is allowed everything, and lacks nothing', () => {
    const { statements, missingScopes } = routePolicy(methodArn, ['plants/read', 'plants/write', 'files/read'], routes);
    expect(statements.map(({ Effect }) => Effect)).toEqual(['Allow']);
    for (const arn of ['POST/plants', 'GET/plants', 'GET/plants/1', 'GET/files/a/b']) {
      expect(decide(statements, `${stage}/${arn}`)).toBe('Allow');
    }
    expect(missingScopes).toBe('');
  });

  test('a token without scopes is denied every route by name, not allowed any', () => {
    const { statements } = routePolicy(methodArn, [], routes);
    expect(statements).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Deny',
        Resource: [`${stage}/POST/plants`, `${stage}/GET/plants`, `${stage}/GET/plants/*`, `${stage}/GET/files/*`],
      },
    ]);
  });

  test('a path holding `:` names neither the API nor the stage', () => {
    // The ARN's resource is everything after its fifth `:`: the stage is still v1, the policy the same.
    const asked = routePolicy(`${stage}/GET/files/a:x/y/GET/plants`, ['plants/read'], routes);
    expect(asked).toEqual(routePolicy(methodArn, ['plants/read'], routes));
    expect(decide(asked.statements, `${stage}/GET/files/a:x/y/GET/plants`)).toBe('Deny');
  });

  test('a method ARN that is not one of a stage stops the authorizer (500), naming it', () => {
    for (const arn of [
      'abc123defg/v1/GET/plants',
      'arn:aws:s3:::bucket/v1/GET/plants',
      `${stage.split('/')[0]}//GET`,
    ]) {
      expect(() => routePolicy(arn, [], routes)).toThrow(`${arn} is not the ARN of a method of an API's stage`);
    }
  });

  test('another stage or API of the account is not reached', () => {
    const { statements } = routePolicy(methodArn, ['plants/read', 'plants/write', 'files/read'], routes);
    expect(decide(statements, 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/v2/GET/plants')).toBe(
      'implicit deny',
    );
    expect(decide(statements, 'arn:aws:execute-api:eu-west-1:123456789012:otherapi99/v1/GET/plants')).toBe(
      'implicit deny',
    );
  });

  test('without routes (no scope is checked) the whole stage is allowed', () => {
    const { statements } = routePolicy(methodArn, [], undefined);
    expect(statements).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${stage}/*` }]);
  });
});

describe('routes that cannot be told apart in an IAM policy', () => {
  test('a parameter route overlapping a deeper route with other scopes is refused, naming both', () => {
    expect(() =>
      checkRoutes([
        { method: 'GET', path: '/plants/{id}', scopes: ['plants/read'] },
        { method: 'GET', path: '/plants/{id}/photos', scopes: ['photos/read'] },
      ]),
    ).toThrow(
      'GET /plants/{id} (scopes: plants/read) and GET /plants/{id}/photos (scopes: photos/read) match the same requests',
    );
  });

  test('two parameter routes that one path reaches both of, through different segments, are refused', () => {
    // `/a/b` is a path of each: IAM's `GET/a/*` and `GET/*/b` both match it.
    expect(() =>
      checkRoutes([
        { method: 'GET', path: '/a/{x}', scopes: ['a/read'] },
        { method: 'GET', path: '/{y}/b', scopes: ['b/read'] },
      ]),
    ).toThrow('GET /a/{x} (scopes: a/read) and GET /{y}/b (scopes: b/read) match the same requests');
  });

  test.each(['/plants/*', '/plants?', '/plants/{id}x', '/files/{proxy+}/more', 'plants'])(
    'a route path %s, whose IAM pattern would be wider than the route, is refused',
    (path) => {
      expect(() => checkRoutes([{ method: 'GET', path, scopes: ['plants/read'] }])).toThrow('is not a route path');
    },
  );

  test('the same overlap with the same scopes, or another method, is fine', () => {
    expect(() =>
      checkRoutes([
        { method: 'GET', path: '/plants/{id}', scopes: ['plants/read'] },
        { method: 'GET', path: '/plants/{id}/photos', scopes: ['plants/read'] },
        { method: 'DELETE', path: '/plants/{id}/photos', scopes: ['plants/admin'] },
      ]),
    ).not.toThrow();
  });

  test('a scope that is not an OAuth scope token (RFC 6749 section 3.3) is refused', () => {
    expect(() => checkRoutes([{ method: 'GET', path: '/plants', scopes: ['plants read'] }])).toThrow(
      '"plants read" is not an OAuth scope',
    );
  });
});

describe('ROUTE_SCOPES as the stack writes it', () => {
  test('a JSON list of routes is read; empty means no scope is checked', () => {
    expect(parseRouteScopes(JSON.stringify(routes), 'ROUTE_SCOPES')).toEqual(routes);
    expect(parseRouteScopes('', 'ROUTE_SCOPES')).toBeUndefined();
  });

  test.each(['plants/write', '{}', '[{"method":"GET","path":"plants","scopes":[]}]', '[{"method":"GET","path":"/p"}]'])(
    '%s stops the cold start, naming the variable',
    (text) => {
      expect(() => parseRouteScopes(text, 'ROUTE_SCOPES')).toThrow(/^ROUTE_SCOPES must be a JSON list/);
    },
  );
});
