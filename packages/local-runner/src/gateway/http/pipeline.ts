// An HTTP API's pipeline ("Working with HTTP APIs"): its CORS preflight (cors.ts), then limits, route, authorize
// (AWS_IAM's signature, or the route's authorizer), integrate (payload format 2.0 or 1.0, or an AWS service's
// first-class integration: service.ts) and respond, each phase in
// the file of its name; a phase that answers ends the request, and every response but the preflight's carries the API's request id and CORS headers.
import { randomUUID } from 'node:crypto';
import type { HttpDeployment, Pipeline } from '../deployment.ts';
import type { HttpResponse } from '../responses.ts';
import { authorize, authorizeIam } from './authorize.ts';
import { isPreflight, preflightAnswer, withCors } from './cors.ts';
import { eventV2 } from './events.ts';
import type { HttpExchange } from './exchange.ts';
import { integrate } from './integrate.ts';
import { withinLimits } from './limits.ts';
import { respond } from './respond.ts';
import { route } from './route.ts';
import { proxiedResponse, serviceResponse } from './service.ts';

export const httpPipeline: Pipeline<HttpDeployment> = async (request, url, deployment, stage) => {
  const { cors } = deployment.api;
  if (cors && isPreflight(request)) return preflightAnswer(cors, request, 'API Gateway');
  const exchange: HttpExchange = {
    request,
    url,
    deployment,
    stage,
    requestId: randomUUID(),
    started: new Date(),
    notes: [],
  };
  const { notes, requestId } = exchange;
  const ended = (response: HttpResponse) => ({
    response: withCors(cors, request, { ...response, headers: [...response.headers, ['apigw-requestid', requestId]] }),
    notes,
  });

  const body = await withinLimits(exchange);
  if ('responded' in body) return ended(body.responded);
  const found = route(exchange);
  if ('responded' in found) return ended(found.responded);
  const { route: chosen, parameters } = found.next;
  const made = eventV2(deployment.api, stage, request, url, chosen, parameters, body.next);
  const caller = await authorizeIam(exchange, found.next, body.next);
  if ('responded' in caller) return ended(caller.responded);
  const authorized = await authorize(exchange, found.next, made);
  if ('responded' in authorized) return ended(authorized.responded);
  if (chosen.service) return ended(await serviceResponse(exchange, chosen, made, body.next));
  if (chosen.httpProxy) return ended(await proxiedResponse(exchange, chosen, made, body.next));
  const report = await integrate(exchange, { ...found.next, route: chosen }, made, caller.next ?? authorized.next);
  if ('responded' in report) return ended(report.responded);
  return ended(respond(chosen, report.next, notes));
};
