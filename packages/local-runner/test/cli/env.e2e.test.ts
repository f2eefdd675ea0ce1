// `cdk-local-runner env`, run where `start` runs: its variables alone (no endpoint in the code) point the AWS SDK for
// JavaScript v3 and boto3 at the runner's services. The SDKs read AWS_ENDPOINT_URL_<SERVICE> and AWS_ENDPOINT_URL
// ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html), AWS_REGION and the credentials'
// variables; this test fails if a release of either SDK stops reading one of them (aws-sdk-js-v3 issue 7203 was one
// such release), as it would for the runner's own functions.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { launch } from 'test-support/launched';
import { boto3Source } from 'test-support/python-tools';
import { bothHttpVersions } from '../../src/both-http-versions.ts';
import { listenOnLoopback } from '../../src/http-server.ts';
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
    env: { PATH: process.env.PATH ?? '', ...boto3Path, ...variables },
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
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SSM: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SQS: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_LAMBDA: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SNS: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_EVENTBRIDGE: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_KINESIS: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_S3: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    AWS_ENDPOINT_URL_SFN: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
  });
  const exported = spawnSync('sh', ['-c', `${exportLines}\nenv`], { encoding: 'utf8', env: {} }).stdout;
  for (const [name, value] of Object.entries(variables)) expect(exported).toContain(`${name}=${value}\n`);
});

test("the SDK for JavaScript v3 reaches the runner's table, parameter store and event buses", () => {
  const resolve = (name: string) => JSON.stringify(import.meta.resolve(name));
  const run = runWithVariablesOnly(
    process.execPath,
    'reach.mjs',
    `import { DynamoDBClient, CreateTableCommand, ListTablesCommand } from ${resolve('@aws-sdk/client-dynamodb')};
import { SSMClient, GetParameterCommand } from ${resolve('@aws-sdk/client-ssm')};
import { EventBridgeClient, ListEventBusesCommand } from ${resolve('@aws-sdk/client-eventbridge')};
const dynamodb = new DynamoDBClient({});
await dynamodb.send(new CreateTableCommand({ TableName: 'EnvProbe', BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
const { TableNames } = await dynamodb.send(new ListTablesCommand({}));
const { Parameter } = await new SSMClient({}).send(new GetParameterCommand({ Name: ${JSON.stringify(parameterNames.greeting)} }));
const { EventBuses } = await new EventBridgeClient({}).send(new ListEventBusesCommand({}));
console.log(JSON.stringify({ TableNames, greeting: Parameter.Value, buses: EventBuses.map(({ Name }) => Name) }));`,
  );
  expect(run).toEqual({ status: 0, stdout: expect.any(String), stderr: '' });
  expect(JSON.parse(run.stdout)).toEqual({
    TableNames: expect.arrayContaining(['EnvProbe']),
    greeting: 'hello from us-east-1',
    buses: ['default'],
  });
});

// Lambda's Python runtime provides boto3; here it is this machine's python3's, or the runner's user cache's.
const boto3 = boto3Source();
if (boto3 === undefined)
  console.warn("Skipping env's boto3 tests: neither python3 nor the runner's user cache has boto3.");
const boto3Path = typeof boto3 === 'object' ? { PYTHONPATH: boto3.folder } : {};

(boto3 ? test : test.skip)('boto3 reads the same variables; an unserved service answers that it is not', () => {
  const run = runWithVariablesOnly(
    'python3',
    'reach.py',
    `import json, boto3
tables = boto3.client("dynamodb").list_tables()["TableNames"]
greeting = boto3.client("ssm").get_parameter(Name=${JSON.stringify(parameterNames.greeting)})["Parameter"]["Value"]
try:
    boto3.client("kms").list_keys()
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

test("env in a folder below the one start runs in finds that runner (a script run in the project's test/)", () => {
  const below = join(project, 'test', 'scripts');
  mkdirSync(below, { recursive: true });
  const run = spawnSync(process.execPath, [runnerBin, 'env', '--json'], { cwd: below, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual(variables);
});

test('env where no runner serves says so and how to start one', () => {
  const run = spawnSync(process.execPath, [runnerBin, 'env'], { cwd: other, encoding: 'utf8' });
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(
    /no runner serves this folder .* or one above it: run `cdk-local-runner start` in the project first/,
  );
  expect(run.stdout).toBe('');
});

// Each endpoint variable on its own: every AWS_ENDPOINT_URL_<SERVICE> env prints (and AWS_ENDPOINT_URL, the catch-all)
// is pointed at a loopback server of its own that records the calls it gets, and a client of each SDK, made with no
// endpoint, calls its service: the call must reach that variable's server, signed for that service. The SDKs read
// AWS_ENDPOINT_URL_<SERVICE> by the service's id, upper case, spaces made underscores ("Service-specific endpoints",
// AWS SDKs and Tools Reference Guide, https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html;
// "Identifiers for service-specific endpoints", https://docs.aws.amazon.com/sdkref/latest/guide/ss-endpoints-table.html).
// A variable env prints with no client below fails the first test: add its client.

/** For each variable, an SDK v3 client's call and boto3's, and the service each signs for. */
const calls: Record<string, { js: [string, string, string, object, string]; py: [string, string, string] }> = {
  AWS_ENDPOINT_URL: {
    js: [
      '@aws-sdk/client-apigatewaymanagementapi',
      'ApiGatewayManagementApiClient',
      'GetConnectionCommand',
      { ConnectionId: 'probe' },
      'execute-api',
    ],
    py: ['kms', 'list_keys()', 'kms'],
  },
  AWS_ENDPOINT_URL_DYNAMODB: {
    js: ['@aws-sdk/client-dynamodb', 'DynamoDBClient', 'ListTablesCommand', {}, 'dynamodb'],
    py: ['dynamodb', 'list_tables()', 'dynamodb'],
  },
  // DynamoDB Streams signs for `dynamodb`, as DynamoDB does.
  AWS_ENDPOINT_URL_DYNAMODB_STREAMS: {
    js: ['@aws-sdk/client-dynamodb-streams', 'DynamoDBStreamsClient', 'ListStreamsCommand', {}, 'dynamodb'],
    py: ['dynamodbstreams', 'list_streams()', 'dynamodb'],
  },
  AWS_ENDPOINT_URL_SSM: {
    js: ['@aws-sdk/client-ssm', 'SSMClient', 'GetParameterCommand', { Name: '/probe' }, 'ssm'],
    py: ['ssm', 'get_parameter(Name="/probe")', 'ssm'],
  },
  AWS_ENDPOINT_URL_SECRETS_MANAGER: {
    js: [
      '@aws-sdk/client-secrets-manager',
      'SecretsManagerClient',
      'GetSecretValueCommand',
      { SecretId: 'probe' },
      'secretsmanager',
    ],
    py: ['secretsmanager', 'get_secret_value(SecretId="probe")', 'secretsmanager'],
  },
  AWS_ENDPOINT_URL_SQS: {
    js: ['@aws-sdk/client-sqs', 'SQSClient', 'ListQueuesCommand', {}, 'sqs'],
    py: ['sqs', 'list_queues()', 'sqs'],
  },
  AWS_ENDPOINT_URL_SNS: {
    js: ['@aws-sdk/client-sns', 'SNSClient', 'ListTopicsCommand', {}, 'sns'],
    py: ['sns', 'list_topics()', 'sns'],
  },
  AWS_ENDPOINT_URL_LAMBDA: {
    js: ['@aws-sdk/client-lambda', 'LambdaClient', 'ListFunctionsCommand', {}, 'lambda'],
    py: ['lambda', 'list_functions()', 'lambda'],
  },
  AWS_ENDPOINT_URL_EVENTBRIDGE: {
    js: ['@aws-sdk/client-eventbridge', 'EventBridgeClient', 'ListRulesCommand', {}, 'events'],
    py: ['events', 'list_rules()', 'events'],
  },
  AWS_ENDPOINT_URL_KINESIS: {
    js: ['@aws-sdk/client-kinesis', 'KinesisClient', 'ListStreamsCommand', {}, 'kinesis'],
    py: ['kinesis', 'list_streams()', 'kinesis'],
  },
  AWS_ENDPOINT_URL_S3: {
    js: ['@aws-sdk/client-s3', 'S3Client', 'ListBucketsCommand', {}, 's3'],
    py: ['s3', 'list_buckets()', 's3'],
  },
  AWS_ENDPOINT_URL_SFN: {
    js: ['@aws-sdk/client-sfn', 'SFNClient', 'ListStateMachinesCommand', {}, 'states'],
    py: ['stepfunctions', 'list_state_machines()', 'states'],
  },
  AWS_ENDPOINT_URL_SCHEDULER: {
    js: ['@aws-sdk/client-scheduler', 'SchedulerClient', 'ListSchedulesCommand', {}, 'scheduler'],
    py: ['scheduler', 'list_schedules()', 'scheduler'],
  },
};

describe('each endpoint variable is read by each SDK, whichever else is set', () => {
  const recorders = new Map<
    string,
    { server: ReturnType<typeof bothHttpVersions>; url: string; signedFor: string[] }
  >();
  let endpointNames: string[] = [];
  beforeAll(async () => {
    endpointNames = Object.keys(variables).filter((name) => name.startsWith('AWS_ENDPOINT_URL'));
    for (const name of endpointNames) {
      const signedFor: string[] = [];
      // Answers every call with an error the SDKs read as the service's: what matters is where the call went.
      const record = (
        request: IncomingMessage | Http2ServerRequest,
        response: ServerResponse | Http2ServerResponse,
      ) => {
        const scope = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(request.headers.authorization ?? '');
        signedFor.push(scope?.[1] ?? 'unsigned');
        request.resume().on('end', () =>
          // Both responses take writeHead(status, headers).end(body); TypeScript cannot call the union's.
          (response as ServerResponse)
            .writeHead(400, { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-ErrorType': 'Recorded' })
            .end('{"__type":"Recorded","message":"recorded"}'),
        );
      };
      // HTTP/1.1 and HTTP/2 on one port: the SDK's Kinesis client speaks HTTP/2 by default.
      const server = bothHttpVersions(createServer(record), createHttp2Server(record));
      const url = await listenOnLoopback(server.front);
      recorders.set(name, { server, url, signedFor });
    }
  });
  afterAll(async () => {
    for (const { server } of recorders.values()) await server.close();
  });

  /** Runs `program` with env's variables, each endpoint one at its recorder; what each recorder was called for. */
  const recorded = async (command: string, file: string, program: string) => {
    for (const recorder of recorders.values()) recorder.signedFor.length = 0;
    const path = join(project, file);
    writeFileSync(path, program);
    const pointed = Object.fromEntries([...recorders].map(([name, { url }]) => [name, url]));
    const run = launch([command, path], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', ...boto3Path, ...variables, ...pointed },
    });
    const status = await run.exited;
    await run.closed;
    return {
      status,
      output: run.output(),
      calls: Object.fromEntries([...recorders].map(([name, { signedFor }]) => [name, [...new Set(signedFor)]])),
    };
  };

  test("the SDK for JavaScript v3: a client with no endpoint calls its variable's address", async () => {
    expect(endpointNames.filter((name) => calls[name] === undefined)).toEqual([]);
    const chosen = endpointNames.map((name) => (calls[name] as (typeof calls)[string]).js);
    const missing = chosen.filter(([pkg]) => {
      try {
        import.meta.resolve(pkg);
        return false;
      } catch {
        return true;
      }
    });
    // Install each missing client as a devDependency of the runner's package.
    expect(missing.map(([pkg]) => pkg)).toEqual([]);
    const program = chosen
      .map(
        ([pkg, client, command, input], index) =>
          `import { ${client} as C${index}, ${command} as M${index} } from ${JSON.stringify(import.meta.resolve(pkg))};
await new C${index}({ maxAttempts: 1 }).send(new M${index}(${JSON.stringify(input)})).catch(() => undefined);`,
      )
      .join('\n');
    const run = await recorded(process.execPath, 'each-variable.mjs', program);
    expect({ status: run.status, output: run.output }).toEqual({ status: 0, output: '' });
    expect(run.calls).toEqual(
      Object.fromEntries(endpointNames.map((name) => [name, [(calls[name] as (typeof calls)[string]).js[4]]])),
    );
  });

  (boto3 ? test : test.skip)("boto3: a client with no endpoint_url calls its variable's address", async () => {
    const program = [
      'import boto3, botocore.config',
      'config = botocore.config.Config(retries={"max_attempts": 1})',
      ...endpointNames.map((name) => {
        const [service, call] = (calls[name] as (typeof calls)[string]).py;
        return `try:\n    boto3.client(${JSON.stringify(service)}, config=config).${call}\nexcept Exception:\n    pass`;
      }),
    ].join('\n');
    const run = await recorded('python3', 'each-variable.py', program);
    expect({ status: run.status, output: run.output }).toEqual({ status: 0, output: '' });
    expect(run.calls).toEqual(
      Object.fromEntries(endpointNames.map((name) => [name, [(calls[name] as (typeof calls)[string]).py[2]]])),
    );
  });
});
