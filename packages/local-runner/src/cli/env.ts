// `cdk-local-runner env`: the variables a shell, a script or a test needs to reach the runner serving this folder with
// the AWS SDKs and CLI unchanged: the region, the local credentials, and the endpoint variables its functions have
// (each served service's own, and AWS_ENDPOINT_URL for the rest, which answers that they are not served). It asks the
// runner (runner-socket.ts), run in the folder `start` was run in or below it; `--json` prints them as one JSON object.
// `eval "$(cdk-local-runner env)"` sets them in a POSIX shell.
import { localAws } from '../app/local-aws.ts';
import { RunnerError } from '../errors.ts';
import { runnersServing } from '../runner-socket.ts';
import { commandFailed, parseCommandLine } from './options.ts';

const { values } = parseCommandLine('cdk-local-runner env [--json]', ['json']);

/** A value quoted for a POSIX shell: in single quotes, each single quote closed, escaped and reopened. */
const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

try {
  const runners = await runnersServing();
  if (runners.length === 0)
    throw new RunnerError(
      `no runner serves this folder (${process.cwd()}) or one above it: run \`cdk-local-runner start\` in the project first, then \`env\` there or below`,
    );
  if (runners.length > 1)
    throw new RunnerError(
      `${runners.length} runners serve this folder (${runners.map(({ url }) => url).join(', ')}), each on endpoints of its own: stop all but one`,
    );
  const [runner] = runners as [(typeof runners)[number]];
  const variables = {
    AWS_REGION: localAws.region,
    AWS_DEFAULT_REGION: localAws.region,
    AWS_ACCESS_KEY_ID: localAws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localAws.credentials.secretAccessKey,
    ...runner.variables,
  };
  console.log(
    values.json
      ? JSON.stringify(variables, null, 2)
      : Object.entries(variables)
          .map(([name, value]) => `export ${name}=${quoted(value)}`)
          .join('\n'),
  );
} catch (error) {
  commandFailed('cdk-local-runner env', error);
}
