/**
 * A problem the user can fix: a template the runner cannot serve, a damaged data folder, a wrong option, a port in
 * use. Its message says what is wrong and what to do; the commands print it alone (src/cli/options.ts).
 * Any other error is a bug in the runner, printed with its stack.
 */
export class RunnerError extends Error {
  override name = 'RunnerError';
}
