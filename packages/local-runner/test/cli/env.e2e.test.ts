// `cdk-local-runner env`, run where `start` runs: its variables alone (no endpoint in the code) point the AWS SDK for
// JavaScript v3 and boto3 at the runner's services. The SDKs read AWS_ENDPOINT_URL_<SERVICE> and AWS_ENDPOINT_URL
// ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html), AWS_REGION and the credentials'
// variables; this test fails if a release of either SDK stops reading one of them (aws-sdk-js-v3 issue 7203 was one
// such release), as it would for the runner's own functions.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { parameterNames, synthesizeParametersApp } from '../fixtures/parameters-app.ts';
import { runnerBin, startApp, stopStarted } from '../helpers/runner-process.ts';

const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-ssm/package.json'))),
  '../..',
);

let project = '';
let other = '';
let variables: Record<string, string> = {};
let exportLines = '';
beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'env-e2e-'));
  other = mkdtempSync(join(tmpdir(), 'env-e2e-other-'));
  const assembly = await synthesizeParametersApp();
  await startApp(assembly, { cwd: project, args: ['--runtime-sdk', installedPackages] });
  const env = (args: string[]) =>
    spawnSync(process.execPath, [runnerBin, 'env', ...args], { cwd: project, encoding: 'utf8' });
  variables = JSON.parse(env(['--json']).stdout) as Record<string, string>;
  exportLines = env([]).stdout;
}, 120_000);
afterAll(async () => {
  await stopStarted();
  for (const folder of [project, other]) if (folder) rmSync(folder, { recursive: true, force: true });
}, 60_000);

/** Runs `program` with `command` and nothing in its environment but PATH and the variables `env` printed. */
const runWithVariablesOnly = (command: string, file: string, program: string) => {
  const path = join(project, file);
  writeFileSync(path, program);
  const run = spawnSync(command, [path], {
    cwd: project,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...variables },
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
};

test('env prints the region, the local credentials and every endpoint, as JSON and as export lines', () => {
  expect(variables).toEqual({
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_DYNAMODB: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SSM: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SQS: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
  });
  const exported = spawnSync('sh', ['-c', `${exportLines}\nenv`], { encoding: 'utf8', env: {} }).stdout;
  for (const [name, value] of Object.entries(variables)) expect(exported).toContain(`${name}=${value}\n`);
});

test("the SDK for JavaScript v3 reaches the runner's table and parameter store", () => {
  const resolve = (name: string) => JSON.stringify(import.meta.resolve(name));
  const run = runWithVariablesOnly(
    process.execPath,
    'reach.mjs',
    `import { DynamoDBClient, CreateTableCommand, ListTablesCommand } from ${resolve('@aws-sdk/client-dynamodb')};
import { SSMClient, GetParameterCommand } from ${resolve('@aws-sdk/client-ssm')};
const dynamodb = new DynamoDBClient({});
await dynamodb.send(new CreateTableCommand({ TableName: 'EnvProbe', BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
const { TableNames } = await dynamodb.send(new ListTablesCommand({}));
const { Parameter } = await new SSMClient({}).send(new GetParameterCommand({ Name: ${JSON.stringify(parameterNames.greeting)} }));
console.log(JSON.stringify({ TableNames, greeting: Parameter.Value }));`,
  );
  expect(run).toEqual({ status: 0, stdout: expect.any(String), stderr: '' });
  expect(JSON.parse(run.stdout)).toEqual({
    TableNames: expect.arrayContaining(['EnvProbe']),
    greeting: 'hello from us-east-1',
  });
});

test('boto3 reads the same variables, where this machine has it; an unserved service answers that it is not', () => {
  if (spawnSync('python3', ['-c', 'import boto3'], { stdio: 'ignore' }).status !== 0) return;
  const run = runWithVariablesOnly(
    'python3',
    'reach.py',
    `import json, boto3
tables = boto3.client("dynamodb").list_tables()["TableNames"]
greeting = boto3.client("ssm").get_parameter(Name=${JSON.stringify(parameterNames.greeting)})["Parameter"]["Value"]
try:
    boto3.client("s3").list_buckets()
    unserved = "answered"
except Exception as error:
    unserved = getattr(error, "response", {}).get("Error", {}).get("Code", str(error))
print(json.dumps({"tables": tables, "greeting": greeting, "unserved": unserved}))`,
  );
  expect(run.status).toBe(0);
  // A list at all means the local database answered: the real one would need a network and credentials.
  expect(JSON.parse(run.stdout)).toEqual({
    tables: expect.any(Array),
    greeting: 'hello from us-east-1',
    unserved: 'NotServedLocally',
  });
});

test('env where no runner serves says so and how to start one', () => {
  const run = spawnSync(process.execPath, [runnerBin, 'env'], { cwd: other, encoding: 'utf8' });
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/no runner serves this folder .*run `cdk-local-runner start` here first/);
  expect(run.stdout).toBe('');
});
