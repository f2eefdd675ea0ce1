// `npm run invoke -- <function id> <event.json>`: one invocation of one function of the synthesized app, as
// `sam local invoke` does it, with the same local database and issuer as `npm start`. Prints the result as JSON.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ensureSynthesized } from '../app/cloud-assembly.ts';
import { readLocalApp } from '../app/template.ts';
import { startFunctions } from '../local-api.ts';
import { dataDirOf, envVarsOf, parse, sharedOptions } from './options.ts';

const usage = `npm run invoke -- <function id> <event.json> [options]
  --data-dir DIR    database and issuer key (default .plant-store/)
  --in-memory       keep nothing on disk
  --env-vars FILE   {"<function id>": {"NAME": "value"}} replacing template values
  --stack NAME      the stack, when the app has several`;

const { values, positionals } = parse(sharedOptions, usage, true);
const [functionId, eventFile] = positionals;
const log = (line: string) => console.error(line);
try {
  if (!functionId || !eventFile || positionals.length > 2)
    throw new Error(`expected <function id> <event.json>\n\n${usage}`);
  const app = readLocalApp(ensureSynthesized(log), values.stack);
  if (!app.functions.has(functionId)) {
    throw new Error(`no function ${functionId}; the template has ${[...app.functions.keys()].join(', ')}`);
  }
  const event: unknown = JSON.parse(readFileSync(eventFile, 'utf8'));
  const functions = await startFunctions(app, {
    dataDir: dataDirOf(values),
    maxWorkers: 1,
    log,
    ...(values['env-vars'] && { envVars: envVarsOf(values['env-vars']) }),
  });
  const report = await functions.pools.get(functionId)?.invoke(event, randomUUID());
  await functions.close();
  const invocation = report?.invocation;
  log(
    `${functionId}: ${report?.durationMs} ms${report?.initMs === undefined ? '' : `, init ${Math.round(report.initMs)} ms`}`,
  );
  if (invocation?.outcome === 'result') console.log(JSON.stringify(invocation.result, null, 2));
  else {
    console.log(
      JSON.stringify(
        invocation?.outcome === 'error'
          ? { errorType: invocation.errorType, errorMessage: invocation.message }
          : { errorType: 'Runtime.Failure', errorMessage: invocation?.reason },
        null,
        2,
      ),
    );
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`npm run invoke failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
