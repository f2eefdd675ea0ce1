// `cdk-local-runner generate-event <service> <kind>`: prints a sample event of a source that feeds functions (a queue's
// message, a topic's notification, a bus's event, a schedule, an object created, a table's stream record, a stream's
// record), as `sam local generate-event` does, to give `invoke` or a test. The shapes are AWS's, the values the
// runner's own (events/sample-events.ts). Without a kind (or a service), it lists them.
import { RunnerError } from '../errors.ts';
import { sampleEvents } from '../events/sample-events.ts';
import { commandFailed, parseCommandLine } from './options.ts';

const { values, positionals } = parseCommandLine(
  'cdk-local-runner generate-event <service> <kind> [options]',
  ['body', 'name', 'key'],
  { positionals: true },
);

const listing = () =>
  Object.entries(sampleEvents)
    .map(([service, kinds]) => `  ${service.padEnd(12)}${Object.keys(kinds).join(', ')}`)
    .join('\n');

try {
  const [service, kind, ...extra] = positionals;
  if (service === undefined || kind === undefined) {
    console.log(`cdk-local-runner generate-event <service> <kind>; the services and their kinds:\n${listing()}`);
  } else {
    const kinds = sampleEvents[service];
    if (kinds === undefined)
      throw new RunnerError(`no samples of ${service}; the services and their kinds:\n${listing()}`);
    const sample = kinds[kind];
    if (sample === undefined)
      throw new RunnerError(`no sample ${kind} of ${service}: ${Object.keys(kinds).join(', ')}`);
    if (extra.length > 0) throw new RunnerError(`one service and one kind, not also ${extra.join(' ')}`);
    console.log(JSON.stringify(sample({ body: values.body, name: values.name, key: values.key }), null, 2));
  }
} catch (error) {
  commandFailed('cdk-local-runner generate-event', error);
}
