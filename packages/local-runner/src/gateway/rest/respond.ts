// A REST API's respond phase: the function's proxy result as HTTP (responses.ts), a streamed response as it comes
// (ResponseTransferMode STREAM: streamed-response.ts), or API Gateway's 502.
import type { ProxyRoute } from '../../app/rest-api.ts';
import { failureOf, type InvocationReport } from '../../lambda/pool.ts';
import { isBinaryMediaType } from '../content-handling.ts';
import { type HttpResponse, proxyResultToResponse } from '../responses.ts';
import { streamedResponse } from '../streamed-response.ts';
import { type Exchange, gatewayResponse } from './exchange.ts';

/**
 * Respond: the function's proxy result as HTTP, or 502 when it failed or answered malformed; 500 when Lambda refused
 * to invoke it (its event over the 6 MB request payload: "Handling Lambda errors with an API Gateway API").
 */
export const respond = async (
  exchange: Exchange,
  { functionId }: ProxyRoute,
  { invocation }: InvocationReport,
): Promise<HttpResponse> => {
  const failed = (note: string) => {
    exchange.notes.push(`${functionId} ${note}`);
    return gatewayResponse(exchange, 'DEFAULT_5XX', 'Internal server error').responded;
  };
  if (invocation.outcome === 'refused') {
    exchange.notes.push(`${functionId} not invoked: ${failureOf(invocation)}`);
    return gatewayResponse(exchange, 'INTEGRATION_FAILURE', 'Internal server error').responded;
  }
  if (invocation.outcome === 'stream') {
    const streamed = await streamedResponse(invocation.contentType, invocation.body);
    if ('response' in streamed) {
      streamed.response.headers.push(['x-amzn-RequestId', exchange.requestId]);
      return streamed.response;
    }
    return failed(
      'error' in streamed ? `stream failed: ${streamed.error.message}` : `malformed prelude: ${streamed.malformed}`,
    );
  }
  if (invocation.outcome !== 'result') return failed(`${invocation.outcome}: ${failureOf(invocation)}`);
  const { binaryMediaTypes } = exchange.deployment.api;
  const result = proxyResultToResponse(
    invocation.result,
    isBinaryMediaType(exchange.request.headers.accept, binaryMediaTypes),
  );
  if ('malformed' in result) return failed(`malformed proxy result: ${result.malformed}`);
  result.headers.push(['x-amzn-RequestId', exchange.requestId]);
  return result;
};
