// A REST API's respond phase: the function's proxy result as HTTP (responses.ts), or API Gateway's 502.
import type { ProxyRoute } from '../../app/rest-api.ts';
import type { InvocationReport } from '../../lambda/pool.ts';
import { isBinaryMediaType } from '../content-handling.ts';
import { type HttpResponse, proxyResultToResponse } from '../responses.ts';
import { type Exchange, gatewayResponse } from './exchange.ts';

/** Respond: the function's proxy result as HTTP, or 502 when it failed or answered malformed. */
export const respond = (
  exchange: Exchange,
  { functionId }: ProxyRoute,
  { invocation }: InvocationReport,
): HttpResponse => {
  if (invocation.outcome !== 'result') {
    const reason =
      invocation.outcome === 'error' ? `${invocation.errorType}: ${invocation.message}` : invocation.reason;
    exchange.notes.push(`${functionId} ${invocation.outcome}: ${reason}`);
    return gatewayResponse(exchange, 'DEFAULT_5XX', 'Internal server error').responded;
  }
  const { binaryMediaTypes } = exchange.deployment.api;
  const result = proxyResultToResponse(
    invocation.result,
    isBinaryMediaType(exchange.request.headers.accept, binaryMediaTypes),
  );
  if (!result) {
    exchange.notes.push(`${functionId}: malformed proxy result`);
    return gatewayResponse(exchange, 'DEFAULT_5XX', 'Internal server error').responded;
  }
  result.headers.push(['x-amzn-RequestId', exchange.requestId]);
  return result;
};
