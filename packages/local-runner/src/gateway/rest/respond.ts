// A REST API's respond phase: the function's proxy result as HTTP (responses.ts), a streamed response as it comes
// (ResponseTransferMode STREAM: streamed-response.ts), or API Gateway's 502.
import type { ProxyRoute } from '../../app/rest-api.ts';
import { failureOf, type InvocationReport } from '../../lambda/pool.ts';
import { isBinaryMediaType } from '../content-handling.ts';
import { type HttpResponse, proxyResultToResponse } from '../responses.ts';
import { streamedResponse } from '../streamed-response.ts';
import { type Exchange, gatewayResponse } from './exchange.ts';

/** Respond: the function's proxy result as HTTP, or 502 when it failed or answered malformed. */
export const respond = async (
  exchange: Exchange,
  { functionId }: ProxyRoute,
  { invocation }: InvocationReport,
): Promise<HttpResponse> => {
  if (invocation.outcome === 'stream') {
    const streamed = await streamedResponse(invocation.contentType, invocation.body);
    if ('response' in streamed) {
      streamed.response.headers.push(['x-amzn-RequestId', exchange.requestId]);
      return streamed.response;
    }
    exchange.notes.push(
      `${functionId} ${'error' in streamed ? `stream failed: ${streamed.error.message}` : 'malformed prelude'}`,
    );
    return gatewayResponse(exchange, 'DEFAULT_5XX', 'Internal server error').responded;
  }
  if (invocation.outcome !== 'result') {
    exchange.notes.push(`${functionId} ${invocation.outcome}: ${failureOf(invocation)}`);
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
