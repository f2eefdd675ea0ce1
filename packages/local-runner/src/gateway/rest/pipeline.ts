// A REST API's pipeline ("Amazon API Gateway REST API" request flow; Lambda proxy, mock and non-proxy integrations): limits, route,
// authorize (AWS_IAM's signature, the authorizer, then the API key), validate, integrate, respond, each phase in the file of its name; a
// phase that responds ends the request. Each behaviour, with the AWS page it comes from, is in docs/gateway.md.
import { randomUUID } from 'node:crypto';
import type { Pipeline, RestDeployment } from '../deployment.ts';
import { headersAsSent } from '../proxy-event.ts';
import { pathSegments } from '../request-path.ts';
import type { HttpResponse } from '../responses.ts';
import { authorize, authorizeIam, checkApiKey } from './authorize.ts';
import type { Exchange } from './exchange.ts';
import { invoke, proxyEvents } from './integrate.ts';
import { integrate, mappingInput } from './integrated.ts';
import { withinLimits } from './limits.ts';
import { mockResponse } from './mock.ts';
import { respond } from './respond.ts';
import { route, withoutStage } from './route.ts';
import { validate } from './validate.ts';

export const restPipeline: Pipeline<RestDeployment> = async (request, url, deployment, stage) => {
  const underStage = withoutStage(url, deployment.api, stage);
  const exchange: Exchange = {
    request,
    deployment,
    stage,
    requestId: randomUUID(),
    started: new Date(),
    url: underStage,
    segments: pathSegments(underStage.pathname),
    method: request.method ?? 'GET',
    notes: [],
  };
  const { notes } = exchange;
  const ended = (response: HttpResponse) => ({ response, notes });

  const body = await withinLimits(exchange);
  if ('responded' in body) return ended(body.responded);
  const found = route(exchange);
  if ('responded' in found) return ended(found.responded);
  const { route: chosen, parameters } = found.next;
  const headers = headersAsSent(request);
  const events = proxyEvents(exchange, { route: chosen, parameters, headers, body: body.next });
  const caller = await authorizeIam(exchange, chosen, url, body.next);
  if ('responded' in caller) return ended(caller.responded);
  const authorizer = await authorize(exchange, chosen, headers, events.request);
  if ('responded' in authorizer) return ended(authorizer.responded);
  const apiKey = checkApiKey(exchange, chosen);
  if ('responded' in apiKey) return ended(apiKey.responded);
  const invalid = validate(exchange, chosen, headers, parameters, body.next);
  if ('responded' in invalid) return ended(invalid.responded);
  if (chosen.integration !== 'proxy') {
    const event = events.delivered(authorizer.next, apiKey.next, caller.next);
    const input = mappingInput(exchange, event, body.next);
    if (chosen.integration === 'mock') return ended(mockResponse(exchange, chosen, input));
    return ended(await integrate(exchange, chosen, input));
  }
  const report = await invoke(exchange, chosen, events.delivered(authorizer.next, apiKey.next, caller.next));
  if ('responded' in report) return ended(report.responded);
  return ended(await respond(exchange, chosen, report.next));
};
