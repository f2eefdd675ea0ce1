// The task tokens of `.waitForTaskToken` tasks ("Wait for a Callback with Task Token", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token): the task waits
// until SendTaskSuccess (its output), SendTaskFailure (its error and cause) or, with HeartbeatSeconds, no
// SendTaskHeartbeat for that long (States.HeartbeatTimeout); a token no task waits for is TaskDoesNotExist.
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../json-protocol.ts';
import { ExecutionStopped, StatesError } from './errors.ts';

interface Waiting {
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
  heartbeatMs?: number;
  timer?: NodeJS.Timeout;
}

export class TaskTokens {
  readonly #waiting = new Map<string, Waiting>();

  /** A new token: opaque text, as long as AWS's. */
  create() {
    return randomBytes(96).toString('base64url');
  }

  /** Waits for `token`'s outcome (registered at once, before the task's call is made). */
  wait(token: string, heartbeatMs: number | undefined, signal: AbortSignal) {
    return new Promise<unknown>((resolve, reject) => {
      const stop = () => this.#settle(token, () => reject(new ExecutionStopped()));
      const waiting: Waiting = {
        resolve: (output) => {
          signal.removeEventListener('abort', stop);
          resolve(output);
        },
        reject: (error) => {
          signal.removeEventListener('abort', stop);
          reject(error);
        },
        ...(heartbeatMs !== undefined && { heartbeatMs }),
      };
      this.#waiting.set(token, waiting);
      signal.addEventListener('abort', stop, { once: true });
      this.#beat(token, waiting);
    });
  }

  #beat(token: string, waiting: Waiting) {
    clearTimeout(waiting.timer);
    if (waiting.heartbeatMs === undefined) return;
    waiting.timer = setTimeout(
      () => this.#settle(token, (w) => w.reject(new StatesError('States.HeartbeatTimeout', 'no heartbeat in time'))),
      waiting.heartbeatMs,
    );
  }

  /** Settles `token`'s task; false when no task waits for it. */
  #settle(token: string, settle: (waiting: Waiting) => void) {
    const waiting = this.#waiting.get(token);
    if (!waiting) return false;
    clearTimeout(waiting.timer);
    this.#waiting.delete(token);
    settle(waiting);
    return true;
  }

  #settled(token: string, settle: (waiting: Waiting) => void) {
    if (!this.#settle(token, settle)) throw new ServiceError('TaskDoesNotExist', 'Task does not exist anymore');
  }

  succeed(token: string, output: unknown) {
    this.#settled(token, (waiting) => waiting.resolve(output));
  }

  fail(token: string, error: string, cause: string) {
    this.#settled(token, (waiting) => waiting.reject(new StatesError(error, cause)));
  }

  /** The task no longer waits (its call failed): its token is no longer taken. */
  discard(token: string) {
    this.#settle(token, (waiting) => waiting.reject(new ExecutionStopped()));
  }

  heartbeat(token: string) {
    const waiting = this.#waiting.get(token);
    if (!waiting) throw new ServiceError('TaskDoesNotExist', 'Task does not exist anymore');
    this.#beat(token, waiting);
  }

  /** Every waiting task stopped (the runner stops). */
  close() {
    for (const token of [...this.#waiting.keys()])
      this.#settle(token, (waiting) => waiting.reject(new ExecutionStopped()));
  }
}
