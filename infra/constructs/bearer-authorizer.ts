import { Duration, Stack } from 'aws-cdk-lib';
import { IdentitySource, TokenAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Algorithm } from '../../functions/bearer-authorizer/algorithms.ts';
import { bearerHeaderPattern } from '../../functions/bearer-authorizer/bearer.ts';
import { authorizerFailedMessage } from '../../functions/bearer-authorizer/log-messages.ts';
import { checkRoutes, type RouteScopes } from '../../functions/bearer-authorizer/route-policy.ts';
import { authorizerVariableNames as names } from '../../functions/bearer-authorizer/variable-names.ts';
import { type TokenIssuerVariables, tokenIssuerMetadataKey } from '../local-runner-metadata.ts';
import { PlantStoreFunction } from './plant-store-function.ts';

/** Which tokens the authorizer trusts. */
export interface TokenTrust {
  issuer: string;
  /** `aud`, or the Cognito app client id. */
  audience: string;
  /** Omitted: where the issuer's OpenID Connect discovery document says (one more request at cold start). */
  jwksUri?: string;
}

/** An operation of an app's contract and the scopes its security requirement lists (its generated operation-scopes.ts). */
export interface OperationScopes {
  operationId: string;
  method: string;
  path: string;
  scopes: readonly string[];
}

/**
 * How the deployment's issuer names the contract's scopes: as openapi.yaml does (`contract`), with other names (each
 * contract scope to the issuer's, e.g. `{"plants/write": "Plants.Write"}`), or `none`: no scope is checked, every
 * valid token reaches every route.
 */
export type ScopeNames = 'contract' | 'none' | Readonly<Record<string, string>>;

/** The routes the authorizer allows by scope, in the issuer's names; undefined for `none`. Throws naming a gap. */
export const routeScopesOf = (operations: readonly OperationScopes[], names: ScopeNames): RouteScopes[] | undefined => {
  if (names === 'none') return undefined;
  const contractScopes = new Set(operations.flatMap(({ scopes }) => scopes));
  const rename = (scope: string, { method, path }: OperationScopes) => {
    if (names === 'contract') return scope;
    const name = names[scope];
    if (name === undefined) throw new Error(`Context scopes names no issuer scope for ${scope} (${method} ${path})`);
    return name;
  };
  if (names !== 'contract') {
    const unknown = Object.keys(names).filter((scope) => !contractScopes.has(scope));
    if (unknown.length > 0) throw new Error(`Context scopes renames ${unknown.join(', ')}: no operation needs it`);
  }
  const routes = operations.map((operation) => ({
    method: operation.method,
    path: operation.path,
    scopes: operation.scopes.map((scope) => rename(scope, operation)),
  }));
  checkRoutes(routes);
  return routes;
};

/**
 * The scope a 403's challenge can name (RFC 6750 section 3): a gateway response's header is one for the whole API, so
 * only when every route needs the same scopes; '' otherwise, or when none is checked.
 */
export const challengeScopeOf = (routes: readonly RouteScopes[] | undefined) => {
  const distinct = new Set(routes?.map(({ scopes }) => scopes.join(' ')));
  return distinct.size === 1 ? [...distinct].join('') : '';
};

export interface BearerAuthorizerProps {
  trust: TokenTrust;
  /** The routes and the scopes each needs (routeScopesOf); undefined: every valid token reaches every route. */
  routes: readonly RouteScopes[] | undefined;
  /** The signature algorithms accepted; unset: the function's default (algorithms.ts). */
  algorithms?: Algorithm[];
  /** How long API Gateway caches a token's result (0 turns caching off). */
  cacheTtl: Duration;
  reservedConcurrency?: number;
  logRetention: RetentionDays;
}

/** The TOKEN authorizer: the bearer-authorizer function behind API Gateway's token check and result cache. */
export class BearerAuthorizer extends Construct {
  readonly authorizer: TokenAuthorizer;
  /** The authorizer's function, with its log group and timeout. */
  readonly function: PlantStoreFunction;

  constructor(
    scope: Construct,
    id: string,
    { trust, routes, algorithms, cacheTtl, reservedConcurrency, logRetention }: BearerAuthorizerProps,
  ) {
    super(scope, id);
    this.function = new PlantStoreFunction(this, 'Function', {
      entry: 'functions/bearer-authorizer/handler.ts',
      description: 'Plant Store: verifies bearer JWTs for API Gateway',
      logicalId: 'BearerAuthorizerFunction',
      timeout: Duration.seconds(5),
      logRetention,
      ...(reservedConcurrency !== undefined && { reservedConcurrency }),
      variables: {
        [names.issuer]: trust.issuer,
        [names.audience]: trust.audience,
        // Lambda's environment holds 4 KB in all: about 50 routes (each ~70 bytes of JSON).
        ...(routes !== undefined && { [names.routeScopes]: JSON.stringify(routes) }),
        ...(trust.jwksUri === undefined ? {} : { [names.jwksUri]: trust.jwksUri }),
        ...(algorithms === undefined ? {} : { [names.algorithms]: algorithms.join(',') }),
      },
      // Every refused token is a Lambda error (the handler throws "Unauthorized"), so its failures are counted from
      // its log instead. It logs "Authorizer failed" at ERROR for everything but a refused token: API Gateway answers
      // 500. Only that line counts. The Lambda runtime logs every rejection itself at ERROR too (its "Invoke Error";
      // in JSON log format a line whose message is the error object: LogPatch.js of
      // aws-lambda-nodejs-runtime-interface-client), a refused token's `Unauthorized` included, so
      // `$.level = "ERROR"` alone would count every 401.
      failures: (scope, logGroup) => ({
        metric: new MetricFilter(scope, 'FailureFilter', {
          logGroup,
          filterPattern: FilterPattern.all(
            FilterPattern.stringValue('$.level', '=', 'ERROR'),
            FilterPattern.stringValue('$.message', '=', authorizerFailedMessage),
          ),
          metricNamespace: Stack.of(scope).stackName,
          metricName: 'AuthorizerFailures',
          metricValue: '1',
          defaultValue: 0,
        }).metric({ period: Duration.minutes(1), statistic: 'Sum' }),
        description: 'The authorizer failed (API Gateway answered 500), e.g. the issuer keys could not be had',
      }),
    });
    // What a local runner needs to point this function at its own token issuer: which variables take the issuer,
    // the audience and the JWKS address, and which holds the routes' scopes, its tokens' scopes (docs/local-runner.md).
    (this.function.function.node.defaultChild as CfnFunction).addMetadata(tokenIssuerMetadataKey, {
      issuer: names.issuer,
      audience: names.audience,
      jwksUri: names.jwksUri,
      routeScopes: names.routeScopes,
    } satisfies TokenIssuerVariables);
    this.authorizer = new TokenAuthorizer(this, 'Authorizer', {
      handler: this.function.alias,
      identitySource: IdentitySource.header('Authorization'),
      // API Gateway answers 401 itself for anything else, without invoking the function.
      validationRegex: bearerHeaderPattern,
      resultsCacheTtl: cacheTtl,
    });
  }
}
