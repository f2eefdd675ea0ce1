// One request through a REST API's pipeline (pipeline.ts): the exchange every kind has (../exchange.ts) with what a
// REST API's phases read besides, and how a phase ends it with a gateway response.
import type { Scalar, Stage } from '../../app/cfn.ts';
import type { RestDeployment } from '../deployment.ts';
import type { Exchange as Shared } from '../exchange.ts';
import { renderGatewayResponse } from '../responses.ts';

export type { Step } from '../exchange.ts';

/** A REST API's exchange: its `url` is the request's without the stage (route.ts, withoutStage). */
export interface Exchange extends Shared<RestDeployment> {
  /** The stage the path names (stages.ts). */
  stage: Stage;
  /** The segments of the path after the stage, as routes match them and the method ARN names them (request-path.ts). */
  segments: string[];
  method: string;
}

/**
 * The gateway's own response of `type` (from the template's gateway responses, or AWS's defaults); `errorType`, its
 * `x-amzn-ErrorType` where AWS names the error otherwise than by its type.
 */
export const gatewayResponse = (
  exchange: Exchange,
  type: string,
  message: string,
  authorizer?: Record<string, Scalar>,
  errorType?: string,
) => ({
  responded: renderGatewayResponse(
    exchange.deployment.api.gatewayResponses,
    type,
    message,
    exchange.requestId,
    authorizer,
    errorType,
  ),
});
