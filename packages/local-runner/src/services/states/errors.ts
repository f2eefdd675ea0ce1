// An error as Step Functions names it: its error name (`States.TaskFailed`, `States.Timeout`, a function's errorType)
// and its cause, as Retry and Catch match it and an execution's failure shows it ("Error names", Step Functions
// Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).

export class StatesError extends Error {
  override name = 'StatesError';
  readonly error: string;
  override readonly cause: string;
  constructor(error: string, cause: string) {
    super(`${error}: ${cause}`);
    this.error = error;
    this.cause = cause;
  }
}

/** A failure no Retry or Catch takes, which fails the execution: `States.Runtime` ("States.ALL ... can't catch"). */
export const runtimeError = (cause: string) => new StatesError('States.Runtime', cause);

/** The execution was stopped (StopExecution) or timed out: every state of it stops. */
export class ExecutionStopped extends Error {
  override name = 'ExecutionStopped';
}
