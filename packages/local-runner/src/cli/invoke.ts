// `cdk-local-runner invoke <function id> <event.json>`: one invocation of one function of the synthesized app, as
// `sam local invoke` does it, with the same local database and issuer as `cdk-local-runner start`. Prints the result as JSON.
import { readFileSync } from 'node:fs';
import { readLocalApis, stackApp } from '../app/template.ts';
import { RunnerError } from '../errors.ts';
import { startServices } from '../local-api.ts';
import { readConfig } from './config.ts';
import {
  cloudAssemblyOf,
  commandFailed,
  dataDirOf,
  envVarsOf,
  inspectOf,
  layerDirsOf,
  parseCommandLine,
  runtimeSdkOf,
} from './options.ts';

const { values, positionals, usage } = parseCommandLine(
  'cdk-local-runner invoke <function id> <event.json> [options]',
  [
    'data-dir',
    'in-memory',
    'env-vars',
    'app',
    'context',
    'stack',
    'api',
    'layer',
    'runtime-sdk',
    'inspect',
    'inspect-port',
  ],
  { positionals: true },
);
const [functionId, eventFile] = positionals;
const log = (line: string) => console.error(line);
try {
  if (!functionId || !eventFile || positionals.length > 2)
    throw new RunnerError(`expected <function id> <event.json>\n\n${usage}`);
  const app = stackApp(
    readLocalApis(cloudAssemblyOf(values, log), {
      stackName: values.stack,
      apiName: values.api,
      layerDirs: layerDirsOf(values),
    }),
  );
  if (app.unreachedFunctions.includes(functionId))
    throw new RunnerError(`${functionId} is not served: no route or authorizer of the API reaches it`);
  if (!app.functions.has(functionId)) {
    throw new RunnerError(`no function ${functionId}; the API's are ${[...app.functions.keys()].join(', ')}`);
  }
  const event: unknown = JSON.parse(readFileSync(eventFile, 'utf8'));
  const config = readConfig(process.cwd());
  // Debugged, the function's runtime waits for a debugger to attach before it loads the code.
  const inspect = inspectOf(values) && { ...inspectOf(values), functionId, wait: true };
  if (values.inspect && values.inspect !== functionId)
    throw new RunnerError(
      `--inspect=${values.inspect}: the invoke command debugs the function it invokes, ${functionId}`,
    );
  const services = await startServices(app, {
    dataDir: dataDirOf(values, config),
    maxWorkers: 1,
    tokenIssuer: config.tokenIssuer,
    runtimeSdk: runtimeSdkOf(values),
    log,
    ...(values['env-vars'] && { envVars: envVarsOf(values['env-vars']) }),
    ...(inspect && { inspect }),
  });
  for (const [id, port] of services.inspectPorts)
    log(
      `Debugger: ${id} on 127.0.0.1:${port || "a free port (its 'Debugger listening' line)"}, waiting for a debugger to attach (no timeout cuts a pause off)`,
    );
  const report = await services.pools.get(functionId)?.invoke(event);
  await services.close();
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
  commandFailed('cdk-local-runner invoke', error);
}
