#!/usr/bin/env node
// `cdk-local-runner <command> [options]`: the runner's commands, each in a module of its own (`--help` on each),
// imported once the Node.js is known to run them.
import { readFileSync } from 'node:fs';
import { nodeRefusal } from './node-version.ts';

const commands: Record<string, string> = {
  start: './start.ts',
  token: './token.ts',
  invoke: './invoke.ts',
  env: './env.ts',
  fire: './fire.ts',
  'generate-event': './generate-event.ts',
};
const usage = `cdk-local-runner <command> [options]

  start    serve the CDK app in this folder (or --app DIR) at http://127.0.0.1:PORT
  token    print a bearer token from the development issuer
  invoke   invoke one function once with an event file
  env      print the variables that point the AWS SDKs and CLI at the runner serving this folder
  fire     fire a schedule (EventBridge Scheduler's, or a rule's ScheduleExpression) now, in the runner serving this folder
  generate-event  print a sample event (sqs, sns, eventbridge, s3, dynamodb, kinesis) to invoke a function with

cdk-local-runner --version prints its version.

cdk-local-runner <command> --help says more.`;

// The package's own manifest, two folders up from src/cli/ as from dist/cli/.
const { version, engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  engines: { node: string };
};
const refusal = nodeRefusal(process.versions.node, engines.node);
if (refusal !== undefined) {
  console.error(refusal);
  process.exit(1);
}

if (process.argv[2] === '--version') {
  console.log(version);
  process.exit(0);
}

// The command is taken out of argv, so that each command reads its own options from process.argv.slice(2).
const [command] = process.argv.splice(2, 1);
const module = command === undefined ? undefined : commands[command];
if (module === undefined) {
  console.error(
    command === undefined || command === '--help' || command === '-h'
      ? usage
      : `unknown command ${command}\n\n${usage}`,
  );
  process.exit(command === '--help' || command === '-h' ? 0 : 2);
}
await import(module);
