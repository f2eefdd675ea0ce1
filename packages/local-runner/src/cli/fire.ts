// `cdk-local-runner fire <schedule-or-rule>`: fires a schedule now, whatever its timing: an EventBridge Scheduler
// schedule (by its Name, `Stack/LogicalId`, logical id or ARN) or an EventBridge rule's ScheduleExpression, as the
// runner serving this folder times them. It asks that runner through its socket (runner-socket.ts), as `env` and
// `token` do; the runner delivers to the target as the schedule's own time would, and logs it. The schedule's next
// firing is left as it was.
import { RunnerError } from '../errors.ts';
import { askToFire, runnersServing } from '../runner-socket.ts';
import { commandFailed, parseCommandLine } from './options.ts';

const { positionals } = parseCommandLine('cdk-local-runner fire <schedule-or-rule>', [], { positionals: true });

try {
  const [name, ...extra] = positionals;
  if (name === undefined || extra.length > 0)
    throw new RunnerError('name one schedule or scheduled rule: cdk-local-runner fire <schedule-or-rule>');
  const runners = await runnersServing();
  if (runners.length === 0)
    throw new RunnerError(
      `no runner serves this folder (${process.cwd()}) or one above it: run \`cdk-local-runner start\` in the project first, then \`fire\` there or below`,
    );
  if (runners.length > 1)
    throw new RunnerError(
      `${runners.length} runners serve this folder (${runners.map(({ url }) => url).join(', ')}): stop all but one`,
    );
  const [runner] = runners as [(typeof runners)[number]];
  const { status, body } = await askToFire(runner.socket, name);
  if (status !== 200) throw new RunnerError(body.message ?? `the runner answered ${status}`);
  console.log(`fired ${body.fired}`);
} catch (error) {
  commandFailed('cdk-local-runner fire', error);
}
