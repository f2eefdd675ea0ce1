// One request through a kind of API's pipeline (rest/, http/, url/, websocket/: pipeline.ts), as each of its phases
// takes it: the fields every kind has, each kind adding its own (rest/exchange.ts, http/exchange.ts,
// websocket/exchange.ts); and the one result every phase gives, `Step`: the gateway has answered, or the next phase
// goes on with what this one found.
import type { IncomingMessage } from 'node:http';
import type { Deployment } from './deployment.ts';
import type { HttpResponse } from './responses.ts';

export interface Exchange<Kind extends Deployment = Deployment> {
  request: IncomingMessage;
  /** The request's URL (listener.ts, requestUrl); a REST API's without its stage (rest/route.ts, withoutStage). */
  url: URL;
  /** The deployment serving the request (deployment.ts), the one of the moment it arrived. */
  deployment: Kind;
  requestId: string;
  started: Date;
  /** What the request's log line tells besides method, path, status and time: cold starts and failures. */
  notes: string[];
}

/**
 * A phase's result: the gateway has answered (`responded`: the exchange ends there), or what the next phase needs.
 * `Answer`: how the kind answers, an HTTP response but for a WebSocket message (its reply to the client).
 */
export type Step<T, Answer = HttpResponse> = { responded: Answer } | { next: T };
