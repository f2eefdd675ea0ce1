// Every function answers before Lambda cuts it off: middy aborts the handler's signal (which stops the DynamoDB calls)
// this long before the invocation's deadline and answers 503 with Retry-After in the time left. Without it, Lambda
// ends the invocation at its timeout and API Gateway answers 502, which a client cannot tell from a bug.
import { UnavailableError } from './errors.ts';

/** middy's options: `middy<Event, Result>(deadline)`. */
export const deadline = {
  /** The function's remaining time less this margin is its deadline; the 503 is answered within the margin. */
  timeoutEarlyInMillis: 500,
  timeoutEarlyResponse: () => {
    throw new UnavailableError('The request ran out of time, please retry');
  },
};
