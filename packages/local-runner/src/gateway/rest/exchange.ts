// One request through a REST API's pipeline (pipeline.ts): what each phase reads, its log line's notes, and how a phase
// ends it with a gateway response.
import type { IncomingMessage } from 'node:http';
import type { Scalar, Stage } from '../../app/cfn.ts';
import type { RestDeployment } from '../deployment.ts';
import { type HttpResponse, renderGatewayResponse } from '../responses.ts';

export interface Exchange {
  request: IncomingMessage;
  deployment: RestDeployment;
  /** The stage the path names (stages.ts). */
  stage: Stage;
  requestId: string;
  started: Date;
  /** The request's URL without the stage (route.ts, withoutStage). */
  url: URL;
  /** The segments of the path after the stage, as routes match them and the method ARN names them (request-path.ts). */
  segments: string[];
  method: string;
  /** What the request's log line tells besides method, path, status and time: cold starts and failures. */
  notes: string[];
}

/** A phase's result: the gateway has responded (the exchange ends there), or what the next phase needs. */
export type Step<T> = { responded: HttpResponse } | { next: T };

/** The gateway's own response of `type` (from the template's gateway responses, or AWS's defaults). */
export const gatewayResponse = (
  exchange: Exchange,
  type: string,
  message: string,
  authorizer?: Record<string, Scalar>,
) => ({
  responded: renderGatewayResponse(
    exchange.deployment.api.gatewayResponses,
    type,
    message,
    exchange.requestId,
    authorizer,
  ),
});
