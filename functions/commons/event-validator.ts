// @middy/validator around an event validator compiled ahead of time (functions/commons/contract/), whose refusals are
// made without a stack trace.
import type { MiddlewareObj } from '@middy/core';
import validator from '@middy/validator';
import type { Ajv } from 'ajv';

export const eventValidator = <Event>(validate: (event: unknown) => boolean): MiddlewareObj<Event> => {
  // middy's types name an Ajv instance, but it takes (and calls) a compiled validate function such as this one.
  const { before } = validator({ eventSchema: validate as unknown as Ajv });
  return {
    // A refusal answers a client's invalid request: a stack trace says nothing about it, and capturing one (through
    // the chain's async frames) is a large part of the 400 path's time (`npm run bench`). The validator's `before` is
    // synchronous, so the limit is lowered for the validation alone.
    before: (request) => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        return before?.(request);
      } finally {
        Error.stackTraceLimit = limit;
      }
    },
  };
};
