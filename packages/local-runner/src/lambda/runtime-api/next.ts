// GET /2018-06-01/runtime/invocation/next: the runtime's long poll for its next invocation. Its first call ends its
// initialization.
import type { ServerResponse } from 'node:http';
import { type Environment, forbidden } from './environment.ts';

export const nextInvocation = (environment: Environment, response: ServerResponse) => {
  // A second poll while one waits is not the runtime's (it asks once at a time): refused, never swapped in.
  if (environment.waiting) throw forbidden('a call to invocation/next is already waiting');
  if (!environment.initialized) {
    environment.initialized = true;
    environment.reports.ready();
  }
  if (environment.queued) {
    const invocation = environment.queued;
    environment.queued = undefined;
    environment.hand(response, invocation);
    return;
  }
  environment.waiting = response;
  // The poll's connection gone (its runtime ended), the next invocation waits for the next poll.
  response.once('close', () => {
    if (environment.waiting === response) environment.waiting = undefined;
  });
};
