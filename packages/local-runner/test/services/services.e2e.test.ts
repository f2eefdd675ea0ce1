// The local services as an app's functions reach them: a function reading its configuration with Powertools'
// parameters utility, unchanged ("Parameters", Powertools for AWS Lambda (TypeScript),
// https://docs.powertools.aws.dev/lambda/typescript/latest/features/parameters/), through the gateway. It finds
// AWS_ENDPOINT_URL_SSM and AWS_ENDPOINT_URL_SECRETS_MANAGER, the service-specific endpoint variables the SDK reads
// ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html); the template's parameter and secret are
// seeded ("AWS::SSM::Parameter", "AWS::SecretsManager::Secret GenerateSecretString", CloudFormation Template
// Reference), and a SecureString the --service-values file gives is nowhere readable in the data folder. boto3 (where
// this machine's python3 has it) reads them the same way.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { boto3Source } from 'test-support/python-tools';
import { localAws } from '../../src/app/local-aws.ts';
import { generatedParameterName } from '../../src/app/return-values.ts';
import { type Runner, startRunner } from '../../src/runner.ts';
import { parameterNames, synthesizeParametersApp } from '../fixtures/parameters-app.ts';
import { restProxyEvent } from '../helpers/rest-event.ts';
import { runnerBin } from '../helpers/runner-process.ts';

/** The node_modules folder this package's dependencies are installed in: the SDK's clients stand for the runtime's. */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-ssm/package.json'))),
  '../..',
);
const secureText = 'e2e-secure-string-text';

let dataDir: string | undefined;
let assembly = '';
let runner: Runner | undefined;
const log: string[] = [];
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'services-e2e-'));
  assembly = await synthesizeParametersApp();
  runner = await startRunner({
    cloudAssemblyDir: assembly,
    port: 0,
    dataDir,
    maxWorkers: 1,
    runtimeSdk: installedPackages,
    serviceValues: {
      parameters: [{ name: parameterNames.password, value: secureText, type: 'SecureString' }],
      secrets: [],
    },
    log: (line) => log.push(line),
    functionLog: (id, line) => log.push(`${id}: ${line}`),
  });
}, 120_000);
afterAll(async () => {
  await runner?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

test("Powertools' getParameter and getSecret read the template's parameter, a SecureString and a generated secret", async () => {
  const response = await fetch(`${runner?.url}/prod/`);
  const body = await response.text();
  // The log says why when it is not 200 (the function's error).
  expect({ status: response.status, log: response.status === 200 ? [] : log }).toEqual({ status: 200, log: [] });
  const answer = JSON.parse(body) as Record<string, unknown>;
  expect(answer).toEqual({
    greeting: 'hello from us-east-1',
    password: secureText,
    credentials: { username: 'admin', password: expect.stringMatching(/^[A-Za-z0-9]{16}$/) },
    endpoints: { ssm: runner?.serviceUrls.ssm, secretsManager: runner?.serviceUrls.secretsmanager },
  });
});

// Lambda's Python runtime provides boto3; locally it is this machine's python3's (lambda/python-runtime.e2e).
const machineBoto3 = boto3Source() === 'machine';
if (!machineBoto3) console.warn("Skipping the boto3 reader: this machine's python3 has no boto3.");

(machineBoto3 ? test : test.skip)('boto3 reads them too (the runtime provides it on Lambda)', async () => {
  const url = runner?.apis.find(({ app }) => app.apiId === 'PythonReaderUrl')?.url;
  const response = await fetch(`${url}/`);
  const body = await response.text();
  expect({ status: response.status, log: response.status === 200 ? [] : log }).toEqual({ status: 200, log: [] });
  expect(JSON.parse(body)).toEqual({
    greeting: 'hello from us-east-1',
    password: secureText,
    credentials: { username: 'admin', password: expect.stringMatching(/^[A-Za-z0-9]{16}$/) },
    missing: 'ParameterNotFound',
  });
});

test('a parameter with no Name gets a name as CloudFormation generates one: CFN-<logical id>-<12 characters>', async () => {
  const ssm = new SSMClient({
    endpoint: runner?.serviceUrls.ssm,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  try {
    const name = generatedParameterName('Parameters', 'Unnamed');
    expect(name).toMatch(/^CFN-Unnamed-[A-Za-z0-9]{12}$/);
    expect((await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value).toBe('anonymous');
  } finally {
    ssm.destroy();
  }
});

test("the SecureString's text is in none of the data folder's files", () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  const all = files(dataDir ?? '');
  expect(all.length).toBeGreaterThan(3);
  for (const file of all) expect(readFileSync(file).includes(secureText)).toBe(false);
});

test("invoke --service-values FILE: the function reads the file's values", () => {
  const folder = mkdtempSync(join(tmpdir(), 'services-invoke-'));
  try {
    const values = join(folder, 'values.json');
    writeFileSync(
      values,
      JSON.stringify({ Parameters: { [parameterNames.password]: { Value: 'from-the-file', Type: 'SecureString' } } }),
    );
    const event = join(folder, 'event.json');
    writeFileSync(event, JSON.stringify(restProxyEvent('/')));
    const args = ['invoke', 'Reader', event, '--app', assembly, '--in-memory', '--runtime-sdk', installedPackages];
    const run = spawnSync(process.execPath, [runnerBin, ...args, '--service-values', values], {
      cwd: folder,
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(JSON.parse(run.stdout).body)).toMatchObject({ password: 'from-the-file' });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('a reload (start --watch) seeds the changed template: the new execution environments read its value at init', async () => {
  expect(await runner?.reload(await synthesizeParametersApp('hello again from '))).toBe(true);
  const response = await fetch(`${runner?.url}/prod/`);
  expect(response.status).toBe(200);
  expect(JSON.parse(await response.text())).toMatchObject({ greeting: 'hello again from us-east-1' });
});
