// What a gateway serves, replaced whole by a reload (a deployment, as `start --watch` swaps it): an API, its
// functions' pools, its authorizers, and what its kind of pipeline makes once (a REST API's compiled routes); and the
// shape every kind of API's pipeline has (listener.ts picks one).
import type { IncomingMessage } from 'node:http';
import type { Api, HttpApi, RestApi, UrlApi, WebSocketApi } from '../app/api.ts';
import type { Stage } from '../app/cfn.ts';
import type { IntegratedService } from '../app/rest-integrations.ts';
import type { FunctionPool } from '../lambda/pool.ts';
import type { Authorizer } from './authorizers/authorizer.ts';
import type { HttpResponse } from './responses.ts';
import { type CompiledResource, compileRoutes } from './routes.ts';

interface DeploymentOf<Kind> {
  api: Kind;
  /** The pools of the API's functions, by logical id. */
  pools: Map<string, FunctionPool>;
  /** The API's authorizers, by logical id (authorizers/for-api.ts). */
  authorizers: Map<string, Authorizer>;
  /** The served services' endpoints an AWS integration calls, by the integration URI's service name. */
  services?: ServiceEndpoints;
}

/** The local endpoint of each service an AWS integration reaches (rest-integrations.ts), by service name. */
export type ServiceEndpoints = Partial<Record<IntegratedService, string>>;

export interface RestDeployment extends DeploymentOf<RestApi> {
  kind: 'rest';
  /** The API's routes, compiled once (routes.ts). */
  resources: CompiledResource[];
}

export interface HttpDeployment extends DeploymentOf<HttpApi> {
  kind: 'http';
}

export interface UrlDeployment extends DeploymentOf<UrlApi> {
  kind: 'url';
}

export interface WebSocketDeployment extends DeploymentOf<WebSocketApi> {
  kind: 'websocket';
}

export type Deployment = RestDeployment | HttpDeployment | UrlDeployment | WebSocketDeployment;

/** `api` as its gateway serves it, with its functions' pools and its authorizers. */
export const deploymentOf = (
  api: Api,
  pools: Map<string, FunctionPool>,
  authorizers: Map<string, Authorizer>,
  services: ServiceEndpoints = {},
): Deployment => {
  switch (api.kind) {
    case 'rest':
      return { kind: 'rest', api, pools, authorizers, services, resources: compileRoutes(api.routes) };
    case 'http':
      return { kind: 'http', api, pools, authorizers, services };
    case 'url':
      return { kind: 'url', api, pools, authorizers };
    case 'websocket':
      return { kind: 'websocket', api, pools, authorizers };
  }
};

/** A request's response, and what its log line tells besides method, path, status and time. */
interface Served {
  response: HttpResponse;
  notes: string[];
}

/**
 * One kind of API's pipeline: a request (`url`: its URL, listener.ts requestUrl) through the API's phases to its
 * response, on the stage its path names (stages.ts).
 */
export type Pipeline<Kind extends Deployment> = (
  request: IncomingMessage,
  url: URL,
  deployment: Kind,
  stage: Stage,
) => Promise<Served>;
