// POST /2018-06-01/runtime/invocation/{id}/error: an invocation's error, in the standard body or by its header alone.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Environment, json, postedBody, reportedError } from './environment.ts';

export const invocationError = async (
  environment: Environment,
  request: IncomingMessage,
  response: ServerResponse,
  id: string,
) => {
  const body = await postedBody(request);
  if (body === undefined) return;
  environment.answer(id);
  json(response, 202, { status: 'OK' });
  const { errorType, message } = reportedError(request, body);
  environment.reports.error(id, errorType, message);
};
