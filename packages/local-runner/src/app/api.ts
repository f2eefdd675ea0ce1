// The model every other part reads: one API served, read once per deployment from the assembly (assembly.ts) into the
// type of its kind, each with only its own fields: a REST API (rest-api.ts reads its routes, authorizers, gateway
// responses and API keys), an HTTP API (http-api.ts: its routes, authorizers and CORS) or a WebSocket API
// (websocket-api.ts: its routes, selection expression and $connect authorizer). A new kind of API (a function URL) is
// one more member of `Api`.
import type { ApiKey } from './api-keys.ts';
import type { Stage } from './cfn.ts';
import type { FunctionUrl } from './function-url.ts';
import type { FunctionDefinition } from './functions.ts';
import type { HttpAuthorizer, HttpCors, HttpRoute } from './http-api.ts';
import type { ValueContext } from './intrinsics.ts';
import type { GatewayResponse, RestAuthorizer, RestRoute } from './rest-api.ts';
import type { UrlAction } from './url-permissions.ts';
import type { UserPool } from './user-pools.ts';
import type { WebSocketAuthorizer, WebSocketRoute } from './websocket-api.ts';

export interface Table {
  id: string;
  tableName: string;
  properties: Record<string, unknown>;
}

/** What every kind of API has: its stack, its stages and the functions it reaches. */
interface ApiBase extends ValueContext {
  stackName: string;
  apiId: string;
  /** The stack's other APIs (REST, HTTP, WebSocket) and function URLs, not served by this one (each has its own). */
  otherApiIds: string[];
  /**
   * Its stages, each serving the template's routes under its name (the path's first segment; gateway/stages.ts picks
   * a request's).
   */
  stages: Stage[];
  /** What of the API applies on AWS and not locally, said at start. */
  notices: string[];
  /** The functions a route or an authorizer reaches: those served. */
  functions: Map<string, FunctionDefinition>;
  /** Of those, the ones of another stack (a cross-stack reference), by id, with the stack they are resolved in. */
  functionStacks: Map<string, ValueContext>;
  /** The template's Cognito user pools, whose tokens the development issuer signs. */
  userPools: UserPool[];
  tables: Table[];
}

/** A REST API (AWS::ApiGateway::RestApi). */
export interface RestApi extends ApiBase {
  kind: 'rest';
  /** Request media types whose bodies reach functions base64-encoded (`*` wildcards). */
  binaryMediaTypes: string[];
  routes: RestRoute[];
  authorizers: Map<string, RestAuthorizer>;
  gatewayResponses: Map<string, GatewayResponse>;
  /** The API keys its methods that require one take. */
  apiKeys: ApiKey[];
}

/** An HTTP API (AWS::ApiGatewayV2::Api, ProtocolType HTTP). */
export interface HttpApi extends ApiBase {
  kind: 'http';
  cors: HttpCors | undefined;
  routes: HttpRoute[];
  authorizers: Map<string, HttpAuthorizer>;
}

/** A function URL (AWS::Lambda::Url): `apiId` is its logical id; its one stage, `$default`. */
export interface UrlApi extends ApiBase, FunctionUrl {
  kind: 'url';
  /**
   * AuthType NONE: the actions its function's resource-based policy grants no one (url-permissions.ts); any, and the
   * URL answers every request 403, as on AWS.
   */
  ungranted: UrlAction[];
}

/** A WebSocket API (AWS::ApiGatewayV2::Api, ProtocolType WEBSOCKET): websocket-api.ts reads it. */
export interface WebSocketApi extends ApiBase {
  kind: 'websocket';
  /** Its RouteSelectionExpression `$request.body.<path>`, as the path into a message's JSON body. */
  routeSelectionPath: string[];
  routes: WebSocketRoute[];
  authorizers: Map<string, WebSocketAuthorizer>;
}

export type Api = RestApi | HttpApi | UrlApi | WebSocketApi;
