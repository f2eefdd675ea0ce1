// `cdk-local-runner invoke <function> [event.json | -]`: one invocation of one function of the synthesized app, as
// `sam local invoke` does it, with the same local database and issuer as `cdk-local-runner start`: beside a running
// start of the same data folder, its database is shared (the folder's lock admits one process). Prints the result as
// JSON.
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readAssembly } from '../app/assembly.ts';
import { namedFunction } from '../app/served-functions.ts';
import { RunnerError } from '../errors.ts';
import { streamedResponse } from '../gateway/streamed-response.ts';
import { failureOf, type InvocationReport } from '../lambda/pool.ts';
import { StreamedError } from '../lambda/runtime-api.ts';
import { startServices } from '../runner.ts';
import { serviceValuesOf } from '../services/service-values.ts';
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
  'cdk-local-runner invoke <function> [event.json | -] [options]',
  [
    'event',
    'data-dir',
    'in-memory',
    'env-vars',
    'service-values',
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
const [functionId, eventArgument] = positionals;
const log = (line: string) => console.error(line);

/** The event: a JSON file, or standard input for `-` (as `sam local invoke --event`); none is `{}`, as there. */
const readEvent = (file: string | undefined): unknown => {
  if (file === undefined) return {};
  const where = file === '-' ? 'the event on standard input' : `event file ${file}`;
  let text: string;
  try {
    if (file === '-' && process.stdin.isTTY) log('reading the event from standard input (end it with Ctrl-D)');
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new RunnerError(
      `${where}: ${code === 'ENOENT' ? 'no such file (an event written inline goes on standard input, with -)' : message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RunnerError(`${where} is not JSON: ${(error as Error).message}`);
  }
};

/** An error a stream ended with: the function's own (runtime-api.ts), else the stream cut. */
const errorOf = (error: Error) => ({
  errorType: error instanceof StreamedError ? error.errorType : 'Runtime.StreamCut',
  errorMessage: error.message,
});

/**
 * A streaming handler's response on stdout: its status, its headers, a blank line, then its body as it comes (the
 * prelude HttpResponseStream wrote, read as a function URL reads it). False when the function failed.
 */
const printStream = async (contentType: string, body: Readable) => {
  const streamed = await streamedResponse(contentType, body);
  if ('malformed' in streamed) {
    log(`${functionId}: its stream's prelude is not one (HttpResponseStream.from's JSON, then 8 NUL bytes)`);
    return false;
  }
  if ('error' in streamed) {
    console.log(JSON.stringify(errorOf(streamed.error), null, 2));
    return false;
  }
  const { status, headers, body: rest } = streamed.response;
  const head = [
    `${status} ${STATUS_CODES[status] ?? ''}`.trim(),
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ];
  process.stdout.write(`${head.join('\n')}\n\n`);
  try {
    await pipeline(Buffer.isBuffer(rest) ? Readable.from([rest]) : rest, process.stdout, { end: false });
    return true;
  } catch (error) {
    const { errorType, errorMessage } = errorOf(error as Error);
    log(`\n${functionId}: its stream ended with ${errorType}: ${errorMessage}`);
    return false;
  }
};

/** What the invocation answered, on stdout: a result as JSON, a stream as it came, an error as Lambda reports it. */
const printInvocation = async (invocation: InvocationReport['invocation'] | undefined) => {
  if (invocation?.outcome === 'result') console.log(JSON.stringify(invocation.result, null, 2));
  else if (invocation?.outcome === 'stream') return printStream(invocation.contentType, invocation.body);
  else
    console.log(
      JSON.stringify(
        invocation?.outcome === 'error'
          ? { errorType: invocation.errorType, errorMessage: invocation.message }
          : { errorType: 'Runtime.Failure', errorMessage: invocation && failureOf(invocation) },
        null,
        2,
      ),
    );
  return invocation?.outcome === 'result';
};

try {
  if (!functionId || positionals.length > 2) throw new RunnerError(`expected <function> [event.json | -]\n\n${usage}`);
  if (eventArgument !== undefined && values.event !== undefined)
    throw new RunnerError(`the event is given twice: ${eventArgument} and --event ${values.event}`);
  const eventFile = values.event ?? eventArgument;
  const event = readEvent(eventFile);
  const inputs = [eventFile, values['env-vars'], values['service-values']].filter(
    (file): file is string => file !== undefined && file !== '-',
  );
  const assembly = readAssembly(cloudAssemblyOf(values, log, inputs), {
    stackName: values.stack,
    apiName: values.api,
    layerDirs: layerDirsOf(values),
  });
  // By logical id, Stack/id, construct path or construct id (function-names.ts).
  const named = namedFunction(assembly, functionId);
  const config = readConfig(process.cwd());
  // Debugged, the function's runtime waits for a debugger to attach before it loads the code.
  const inspect = inspectOf(values) && { ...inspectOf(values), functionId: named.name, wait: true };
  if (values.inspect && namedFunction(assembly, values.inspect, `--inspect=${values.inspect}`).name !== named.name)
    throw new RunnerError(
      `--inspect=${values.inspect}: the invoke command debugs the function it invokes, ${functionId}`,
    );
  const services = await startServices(assembly, {
    dataDir: dataDirOf(values, config),
    joinRunningDatabase: true,
    maxWorkers: 1,
    only: named.name,
    tokenIssuer: config.tokenIssuer,
    runtimeSdk: runtimeSdkOf(values),
    log,
    ...(values['env-vars'] && { envVars: envVarsOf(values['env-vars']) }),
    ...(values['service-values'] && { serviceValues: serviceValuesOf(values['service-values']) }),
    ...(inspect && { inspect }),
  });
  for (const [id, port] of services.inspectPorts)
    log(`Debugger: ${id} on 127.0.0.1:${port}, waiting for a debugger to attach (no timeout cuts a pause off)`);
  // Streamed: a streaming handler's response as it comes (its outcome `stream`), any other's as its result.
  const report = await services.pools.get(named.name)?.invoke(event, { streamed: true });
  const printed = await printInvocation(report?.invocation);
  await services.close();
  log(
    `${functionId}: ${report?.durationMs} ms${report?.invocation.outcome === 'stream' ? ' to its first byte' : ''}${report?.initMs === undefined ? '' : `, init ${Math.round(report.initMs)} ms`}`,
  );
  if (!printed) process.exitCode = 1;
} catch (error) {
  commandFailed('cdk-local-runner invoke', error);
}
