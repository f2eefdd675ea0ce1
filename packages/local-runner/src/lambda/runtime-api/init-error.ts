// POST /2018-06-01/runtime/init/error: the runtime's initialization failed, which ends the environment.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Environment, forbidden, json, postedBody, reportedError } from './environment.ts';

export const initError = async (environment: Environment, request: IncomingMessage, response: ServerResponse) => {
  // Once it has asked for an invocation, its initialization is over.
  if (environment.initialized) throw forbidden('the runtime is initialized: no initialization error now');
  const body = await postedBody(request);
  if (body === undefined) return;
  const { errorType, message } = reportedError(request, body);
  json(response, 202, { status: 'OK' });
  environment.reports.initError(errorType, message);
};
