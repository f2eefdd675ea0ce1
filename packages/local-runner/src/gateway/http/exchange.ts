// One request through an HTTP API's pipeline (pipeline.ts): the exchange every kind has (../exchange.ts), with the
// stage its path names.
import type { Stage } from '../../app/cfn.ts';
import type { HttpDeployment } from '../deployment.ts';
import type { Exchange } from '../exchange.ts';

export interface HttpExchange extends Exchange<HttpDeployment> {
  /** The stage the path names (stages.ts). */
  stage: Stage;
}
