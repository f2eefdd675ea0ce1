// A REST API's pipeline ("Amazon API Gateway REST API" request flow; Lambda proxy and mock integrations): limits, route,
// authorize (the authorizer, then the API key), validate, integrate, respond, each phase in the file of its name; a
// phase that responds ends the request. Each behaviour, with the AWS page it comes from, is in docs/gateway.md.
import { randomUUID } from 'node:crypto';
import type { Pipeline, RestDeployment } from '../deployment.ts';
import { headersAsSent, proxyEvent } from '../proxy-event.ts';
import { pathSegments } from '../request-path.ts';
import type { HttpResponse } from '../responses.ts';
import { authorize, checkApiKey } from './authorize.ts';
import type { Exchange } from './exchange.ts';
import { invoke, mockResponse } from './integrate.ts';
import { withinLimits } from './limits.ts';
import { respond } from './respond.ts';
import { route, withoutStage } from './route.ts';
import { validate } from './validate.ts';

export const restPipeline: Pipeline<RestDeployment> = async (request, url, deployment, stage) => {
  const exchange: Exchange = {
    request,
    deployment,
    stage,
    requestId: randomUUID(),
    started: new Date(),
    url: withoutStage(url, deployment.api, stage),
    segments: [],
    method: request.method ?? 'GET',
    notes: [],
  };
  exchange.segments = pathSegments(exchange.url.pathname);
  const { notes } = exchange;
  const ended = (response: HttpResponse) => ({ response, notes });

  const body = await withinLimits(exchange);
  if ('responded' in body) return ended(body.responded);
  const found = route(exchange);
  if ('responded' in found) return ended(found.responded);
  const { route: chosen, parameters } = found.next;
  const headers = headersAsSent(request);
  // The request as API Gateway passes it on, made once: the REQUEST authorizer and the function see the same one (its
  // trace header, its extendedRequestId), the function's with what the authorizer allowed.
  let made: ReturnType<typeof proxyEvent> | undefined;
  const requestEvent = () => {
    made ??= proxyEvent({
      api: deployment.api,
      stage,
      request,
      url: exchange.url,
      route: chosen,
      parameters,
      headers,
      body: body.next,
      requestId: exchange.requestId,
      started: exchange.started,
      authorizer: undefined,
    });
    return made;
  };
  const authorizer = await authorize(exchange, chosen, headers, requestEvent);
  if ('responded' in authorizer) return ended(authorizer.responded);
  const apiKey = checkApiKey(exchange, chosen);
  if ('responded' in apiKey) return ended(apiKey.responded);
  const invalid = validate(exchange, chosen, headers, parameters, body.next);
  if (invalid) return ended(invalid.responded);
  if (chosen.integration === 'mock') return ended(mockResponse(exchange, chosen));
  // The request's event, with what the authorizer allowed and the API key the method took ($context.identity.apiKey
  // and apiKeyId: "for API methods that require an API key").
  const passedOn = requestEvent();
  const { requestContext } = passedOn;
  const event = {
    ...passedOn,
    requestContext: {
      ...requestContext,
      ...(apiKey.next && {
        identity: { ...requestContext.identity, apiKey: apiKey.next.value, apiKeyId: apiKey.next.id },
      }),
      ...(authorizer.next && { authorizer: authorizer.next }),
    },
  };
  const report = await invoke(exchange, chosen, event);
  if ('responded' in report) return ended(report.responded);
  return ended(respond(exchange, chosen, report.next));
};
