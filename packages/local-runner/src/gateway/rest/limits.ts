// A REST API's limits, before anything else reads the request: its request line and header values, then its body.
import type { IncomingMessage } from 'node:http';
import { readBody } from '../../request-body.ts';
import { errorResponse } from '../responses.ts';
import { type Exchange, gatewayResponse, type Step } from './exchange.ts';

/** API Gateway's payload limit. */
const maxPayloadBytes = 10 * 1024 * 1024;

/**
 * API Gateway's quota "Total combined size of request line and header values" for REST APIs: 10,240 bytes
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-execution-service-limits-table.html).
 */
const maxRequestLineAndHeaderValuesBytes = 10_240;

/** The bytes API Gateway's header quota counts: the request line and every header value. */
const requestLineAndHeaderValuesBytes = (request: IncomingMessage) => {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let index = 1; index < request.rawHeaders.length; index += 2) {
    bytes += Buffer.byteLength(request.rawHeaders[index] ?? '');
  }
  return bytes;
};

/** Limits: the request line and header values (431), then the body, read whole (413 past the payload limit). */
export const withinLimits = async (exchange: Exchange): Promise<Step<Buffer>> => {
  if (requestLineAndHeaderValuesBytes(exchange.request) > maxRequestLineAndHeaderValuesBytes) {
    exchange.notes.push(`request line and header values over ${maxRequestLineAndHeaderValuesBytes} bytes`);
    return { responded: errorResponse(431, exchange.requestId) };
  }
  const body = await readBody(exchange.request, maxPayloadBytes);
  return body === undefined ? gatewayResponse(exchange, 'REQUEST_TOO_LARGE', 'Request Too Long') : { next: body };
};
