// The runner on its own, as someone with another CDK app takes it: the package's files (package.json's `files`) copied
// into a temporary folder with only its declared dependencies beside it, a small app written and synthesized there
// (outside this repository, nothing of the project around the package installed), then served and called. A module
// the runner needs but does not declare, or a file it needs but does not ship, fails here.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { type Launched, launch, launchedUntil, stopStarted } from '../helpers/runner-process.ts';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  name: string;
  files: string[];
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
/** Where a package resolves from here (the repository's node_modules, hoisted). */
const installed = (name: string) => dirname(fileURLToPath(import.meta.resolve(`${name}/package.json`)));

const appSource = `
import { App, Stack } from 'aws-cdk-lib';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function, Runtime } from 'aws-cdk-lib/aws-lambda';

const app = new App({ outdir: 'cdk.out', context: { 'aws:cdk:enable-asset-metadata': true } });
const stack = new Stack(app, 'Notes');
const table = new Table(stack, 'Notes', { partitionKey: { name: 'id', type: AttributeType.STRING } });
const hello = new Function(stack, 'Hello', {
  code: Code.fromAsset('hello'),
  handler: 'index.handler',
  runtime: Runtime.NODEJS_24_X,
  environment: { TABLE: table.tableName },
});
new RestApi(stack, 'Api').root.addResource('hello').addMethod('GET', new LambdaIntegration(hello));
app.synth();
`;

const handlerSource = `export const handler = async (event) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ path: event.path, table: process.env.TABLE }),
});
`;

let root: string;
let served: Launched;
let url: string;
let databaseEndpoint: string;

/** The package's shipped files in `folder`, with its dependencies beside it (all of them, or all but `without`). */
const copyPackage = (folder: string, without?: string) => {
  for (const file of ['package.json', ...manifest.files])
    cpSync(join(packageDir, file), join(folder, file), { recursive: true });
  for (const name of Object.keys(manifest.dependencies).filter((name) => name !== without)) {
    mkdirSync(dirname(join(folder, 'node_modules', name)), { recursive: true });
    symlinkSync(installed(name), join(folder, 'node_modules', name));
  }
  return join(folder, manifest.bin[manifest.name] ?? '');
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-runner-standalone-'));
  const runner = join(root, 'local-runner');
  copyPackage(runner);
  // The app: its CDK library, and the runner as `npm install ../local-runner` links it.
  const app = join(root, 'app');
  mkdirSync(join(app, 'hello'), { recursive: true });
  mkdirSync(join(app, 'node_modules'));
  writeFileSync(join(app, 'package.json'), '{"name": "notes", "type": "module", "private": true}');
  writeFileSync(join(app, 'app.mjs'), appSource);
  writeFileSync(join(app, 'hello/index.mjs'), handlerSource);
  symlinkSync(installed('aws-cdk-lib'), join(app, 'node_modules/aws-cdk-lib'));
  symlinkSync(installed('constructs'), join(app, 'node_modules/constructs'));
  symlinkSync(runner, join(app, 'node_modules', manifest.name));
  execFileSync(process.execPath, ['app.mjs'], { cwd: app });

  const bin = join(app, 'node_modules', manifest.name, manifest.bin[manifest.name] ?? '');
  served = launch(undefined, { cwd: app, bin, args: ['--app', 'cdk.out'] });
  const banner = await launchedUntil(served, /^Database: .*$/m);
  url = /is serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
  databaseEndpoint = /^Database: (http:\/\/127\.0\.0\.1:\d+)/m.exec(banner)?.[1] ?? '';
}, 120_000);

afterAll(() => {
  stopStarted();
  rmSync(root, { recursive: true, force: true });
});

test('the copied package serves the app synthesized beside it: its route answers through its function', async () => {
  const response = await fetch(`${url}/hello`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { path: string; table: string };
  expect(body.path).toBe('/hello');
  // The table's Ref resolved to its local name, and the table created in the runner's database.
  const { TableNames } = await new DynamoDBClient({ endpoint: databaseEndpoint }).send(new ListTablesCommand({}));
  expect(TableNames).toContain(body.table);
});

test('a copy missing one of its dependencies fails by its name: the copy resolves from nothing else', () => {
  const bin = copyPackage(join(root, 'without-yaml'), 'yaml');
  const run = () => execFileSync(process.execPath, [bin, 'start', '--help'], { cwd: root, stdio: 'pipe' });
  expect(run).toThrow(/Cannot find package 'yaml'/);
  // The same copy with it answers.
  symlinkSync(installed('yaml'), join(root, 'without-yaml/node_modules/yaml'));
  expect(run().toString()).toContain('cdk-local-runner start [options]');
});
