// A function URL's respond phase: the function's result as HTTP, by payload format 2.0's rules as an HTTP API applies
// them ("Response payload format": the same schema; http/respond.ts), and the URL's own answers: 403
// {"Message":"Forbidden"} (AccessDeniedException) to a request AWS_IAM refuses, 413 to a request over the 6 MB payload
// quota, 502 "Internal Server Error" when the function fails or answers malformed.
import type { UrlApi } from '../../app/api.ts';
import { failureOf, type InvocationReport } from '../../lambda/pool.ts';
import { StreamedError } from '../../lambda/runtime-api.ts';
import { resultToResponse } from '../http/respond.ts';
import type { HttpResponse } from '../responses.ts';
import { streamedResponse } from '../streamed-response.ts';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** The function URL's own answer of `status`. */
export const ownResponse = (status: 403 | 413 | 502): HttpResponse =>
  status === 403
    ? {
        status,
        headers: [
          ['Content-Type', 'application/json'],
          ['x-amzn-ErrorType', 'AccessDeniedException'],
        ],
        body: json({ Message: 'Forbidden' }),
      }
    : status === 413
      ? {
          status,
          headers: [['Content-Type', 'application/json']],
          body: json({ Message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation' }),
        }
      : { status, headers: [['Content-Type', 'text/plain']], body: Buffer.from('Internal Server Error') };

/**
 * The function's result as the URL's response: 502 when it failed or answered malformed, Lambda's 413 when Lambda
 * refused to invoke it (its event over the 6 MB request payload); `notes` say.
 */
const buffered = (api: UrlApi, { invocation }: InvocationReport, notes: string[]) => {
  if (invocation.outcome !== 'result') {
    notes.push(`${api.functionId} ${invocation.outcome}: ${failureOf(invocation)}`);
    return ownResponse(invocation.outcome === 'refused' ? 413 : 502);
  }
  const response = resultToResponse(invocation.result);
  if (!('malformed' in response)) return response;
  notes.push(`${api.functionId} malformed result: ${response.malformed}`);
  return ownResponse(502);
};

/**
 * The function's answer as the URL's response: a result by the payload 2.0 rules (also a non-streaming handler's
 * behind InvokeMode RESPONSE_STREAM: what AWS does then is not documented); a stream (RESPONSE_STREAM) with its
 * prelude's status and headers, its body as it comes; 502 when the function failed before its first byte or wrote a
 * malformed prelude (`notes` say).
 */
export const respond = async (api: UrlApi, report: InvocationReport, notes: string[]) => {
  const { invocation } = report;
  if (invocation.outcome !== 'stream') return buffered(api, report, notes);
  const streamed = await streamedResponse(invocation.contentType, invocation.body);
  if ('response' in streamed) return streamed.response;
  if ('malformed' in streamed) notes.push(`${api.functionId} malformed prelude: ${streamed.malformed}`);
  else {
    const { error } = streamed;
    notes.push(
      `${api.functionId} error: ${error instanceof StreamedError ? `${error.errorType}: ` : ''}${error.message}`,
    );
  }
  return ownResponse(502);
};
