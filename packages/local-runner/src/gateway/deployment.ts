// What a gateway serves, replaced whole by a reload (a deployment, as `start --watch` swaps it): an API, its
// functions' pools and its authorizers; and the shape every kind of API's pipeline has (listener.ts picks one).
import type { IncomingMessage } from 'node:http';
import type { LocalApp } from '../app/template.ts';
import type { FunctionPool } from '../lambda/pool.ts';
import type { Authorizer } from './authorizers/authorizer.ts';
import type { HttpResponse } from './responses.ts';

export interface Deployment {
  app: LocalApp;
  /** The pools of the API's functions, by logical id. */
  pools: Map<string, FunctionPool>;
  /** The API's authorizers, by logical id (authorizers/for-api.ts). */
  authorizers: Map<string, Authorizer>;
}

/** A request's response, and what its log line tells besides method, path, status and time. */
export interface Served {
  response: HttpResponse;
  notes: string[];
}

/** One kind of API's pipeline: a request (`url`: its URL, requestUrl) through the API's phases to its response. */
export type Pipeline = (request: IncomingMessage, url: URL, deployment: Deployment) => Promise<Served>;
