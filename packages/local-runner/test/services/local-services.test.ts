// The local services on a data folder: seeded from the template's resources (and the --service-values file), kept
// across restarts, encrypted at rest with the data folder's key, and reached only with the runner's credentials.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { RunnerError } from '../../src/errors.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { serviceValuesOf } from '../../src/services/service-values.ts';
import { callJsonService, type JsonCall } from '../helpers/json-service-call.ts';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'local-services-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const seeds = (value: string, generateLength = 20): ServiceSeeds => ({
  parameters: [
    { source: 'App/Plain', name: '/app/plain', type: 'String', value },
    { source: 'App/Hidden', name: '/app/hidden', type: 'SecureString', value: 'parameter-secret-text' },
  ],
  secrets: [
    { source: 'App/Given', name: 'app/given', secretString: 'secret-string-text' },
    {
      source: 'App/Made',
      name: 'app/made',
      generate: {
        passwordLength: generateLength,
        secretStringTemplate: '{"user":"admin"}',
        generateStringKey: 'password',
      },
    },
  ],
  notices: ['App/Other: its Value {"Ref":"Elsewhere"} has no local value: not seeded (put it with --service-values)'],
});

/** Runs `use` with services started on the data folder with `given` seeds, and the log they wrote. */
const withServices = async <T>(
  given: ServiceSeeds,
  use: (clients: { ssm: SSMClient; secrets: SecretsManagerClient; log: string[] }) => Promise<T>,
  values?: Parameters<typeof startLocalServices>[0]['values'],
) => {
  const log: string[] = [];
  const services = await startLocalServices({ dataDir, seeds: given, values, log: (line) => log.push(line) });
  const options = { region: localAws.region, credentials: localAws.credentials };
  const ssm = new SSMClient({ ...options, endpoint: services.urls.ssm });
  const secrets = new SecretsManagerClient({ ...options, endpoint: services.urls.secretsmanager });
  try {
    return await use({ ssm, secrets, log });
  } finally {
    ssm.destroy();
    secrets.destroy();
    await services.close();
  }
};

/** Starts services on `folder` with the seeds, and closes them: the folder then holds their files. */
const withServicesIn = async (folder: string) =>
  (await startLocalServices({ dataDir: folder, seeds: seeds('x'), log: () => undefined })).close();

const parameter = async (ssm: SSMClient, Name: string) =>
  (await ssm.send(new GetParameterCommand({ Name, WithDecryption: true }))).Parameter?.Value;
const secret = async (client: SecretsManagerClient, SecretId: string) =>
  (await client.send(new GetSecretValueCommand({ SecretId }))).SecretString;

let generated: string | undefined;

test('the template seeds them; a value it cannot know is said', async () => {
  await withServices(seeds('one'), async ({ ssm, secrets, log }) => {
    expect(await parameter(ssm, '/app/plain')).toBe('one');
    expect(await parameter(ssm, '/app/hidden')).toBe('parameter-secret-text');
    expect(await secret(secrets, 'app/given')).toBe('secret-string-text');
    generated = await secret(secrets, 'app/made');
    expect(log).toEqual([expect.stringMatching(/^App\/Other: .* not seeded/)]);
  });
  // "AWS::SecretsManager::Secret GenerateSecretString": the template's object, the password at GenerateStringKey.
  expect(JSON.parse(generated ?? '')).toEqual({ user: 'admin', password: expect.stringMatching(/^.{20}$/) });
});

test('a value the user put stays at the next start while the template keeps its value; a changed template puts its own', async () => {
  await withServices(seeds('one'), async ({ ssm, secrets }) => {
    await ssm.send(new PutParameterCommand({ Name: '/app/plain', Value: 'mine', Overwrite: true }));
    await secrets.send(new PutSecretValueCommand({ SecretId: 'app/given', SecretString: 'my-secret' }));
  });
  await withServices(seeds('one'), async ({ ssm, secrets }) => {
    expect(await parameter(ssm, '/app/plain')).toBe('mine');
    expect(await secret(secrets, 'app/given')).toBe('my-secret');
    // The same generator again: the value generated at the first start, not another.
    expect(await secret(secrets, 'app/made')).toBe(generated);
  });
  await withServices(seeds('two', 24), async ({ ssm, secrets, log }) => {
    expect(await parameter(ssm, '/app/plain')).toBe('two');
    expect((await ssm.send(new GetParameterCommand({ Name: '/app/plain' }))).Parameter?.Version).toBe(3);
    expect(JSON.parse((await secret(secrets, 'app/made')) ?? '').password).toHaveLength(24);
    expect(await secret(secrets, 'app/given')).toBe('my-secret');
    expect(log).toContain('SSM parameter /app/plain: App/Plain changed, over the value put since');
  });
});

test("the --service-values file's values go over the template's and beside them", async () => {
  // The user's file, outside the data folder.
  const folder = mkdtempSync(join(tmpdir(), 'service-values-'));
  const file = join(folder, 'values.json');
  try {
    writeFileSync(
      file,
      JSON.stringify({
        Parameters: { '/app/plain': 'from-file', '/outside/key': { Value: 'k', Type: 'SecureString' } },
        Secrets: { 'outside/secret': 's' },
      }),
    );
    await withServices(
      seeds('two', 24),
      async ({ ssm, secrets }) => {
        expect(await parameter(ssm, '/app/plain')).toBe('from-file');
        expect((await ssm.send(new GetParameterCommand({ Name: '/outside/key' }))).Parameter?.Type).toBe(
          'SecureString',
        );
        expect(await parameter(ssm, '/outside/key')).toBe('k');
        expect(await secret(secrets, 'outside/secret')).toBe('s');
      },
      serviceValuesOf(file),
    );
    writeFileSync(file, JSON.stringify({ Parameters: { '/x': { Value: 1 } } }));
    expect(() => serviceValuesOf(file)).toThrow(RunnerError);
    expect(() => serviceValuesOf(file)).toThrow(`${file}: Parameters /x: expected {`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("no secret's text is in any file of the data folder; its key is the owner's alone", () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  const everything = files(dataDir).map((file) => readFileSync(file, 'utf8'));
  expect(files(dataDir).map((file) => file.slice(dataDir.length))).toEqual(
    expect.arrayContaining(['/data-key', '/services/ssm.json', '/services/secretsmanager.json']),
  );
  for (const text of ['parameter-secret-text', 'secret-string-text', 'my-secret', JSON.parse(generated ?? '').password])
    for (const content of everything) expect(content).not.toContain(text);
  expect(statSync(join(dataDir, 'data-key')).mode & 0o777).toBe(0o600);
});

test('a data key that is not one is refused, naming the file and what to do', async () => {
  const other = mkdtempSync(join(tmpdir(), 'local-services-key-'));
  try {
    writeFileSync(join(other, 'data-key'), 'short');
    await expect(startLocalServices({ dataDir: other, seeds: seeds('x'), log: () => undefined })).rejects.toThrow(
      `${join(other, 'data-key')} is not the data folder's key`,
    );
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

// The services check each call's SigV4 signature as AWS does, with the check function URLs and IAM routes share
// (gateway/sigv4.ts), for their signing names. The errors of the AWS JSON protocol's services for an unsigned call, an
// "Each service is on a loopback port of its own" (issue 52), as each has an endpoint of its own on AWS ("Service
// endpoints", AWS General Reference): a call to another service's address is not served there.
test('each service listens on its own address, which serves it alone', async () => {
  const services = await startLocalServices({ dataDir, seeds: seeds('two', 24), log: () => undefined });
  try {
    const { ssm, secretsmanager, sqs, sns, events, kinesis, s3, states } = services.urls;
    expect(new Set([ssm, secretsmanager, sqs, sns, events, kinesis, s3, states]).size).toBe(8);
    expect(services.endpoints).toEqual({
      AWS_ENDPOINT_URL_SSM: ssm,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsmanager,
      AWS_ENDPOINT_URL_SQS: sqs,
      AWS_ENDPOINT_URL_SNS: sns,
      AWS_ENDPOINT_URL_EVENTBRIDGE: events,
      AWS_ENDPOINT_URL_KINESIS: kinesis,
      AWS_ENDPOINT_URL_S3: s3,
      AWS_ENDPOINT_URL_SFN: states,
    });
    const getParameter = { target: 'AmazonSSM.GetParameter', body: '{"Name":"/app/plain"}' };
    expect(await callJsonService(ssm, getParameter)).toEqual([200, undefined]);
    expect(await callJsonService(sqs, getParameter)).toEqual([400, 'NotServedLocally']);
    expect(await callJsonService(secretsmanager, getParameter)).toEqual([400, 'NotServedLocally']);
    expect(await callJsonService(events, getParameter)).toEqual([400, 'NotServedLocally']);
    expect(await callJsonService(kinesis, getParameter)).toEqual([400, 'NotServedLocally']);
    expect(await callJsonService(states, getParameter)).toEqual([400, 'NotServedLocally']);
  } finally {
    await services.close();
  }
});

// unknown key and a wrong signature: "Common Errors" of the AWS Systems Manager API Reference
// (https://docs.aws.amazon.com/systems-manager/latest/APIReference/CommonErrors.html: MissingAuthenticationToken,
// InvalidClientTokenId, IncompleteSignature), sent by the JSON services with the names the SDKs read
// (MissingAuthenticationTokenException, UnrecognizedClientException, InvalidSignatureException).
test("a call not signed with the runner's credentials, for the service and region, is refused as AWS refuses it", async () => {
  const services = await startLocalServices({ dataDir, seeds: seeds('two', 24), log: () => undefined });
  try {
    const target = 'AmazonSSM.GetParameter';
    const body = '{"Name":"/app/plain"}';
    const call = (changes: Partial<JsonCall> = {}) => callJsonService(services.urls.ssm, { target, body, ...changes });
    const unsigned = await fetch(services.urls.ssm, { method: 'POST', headers: { 'X-Amz-Target': target }, body });
    expect(unsigned.status).toBe(400);
    expect(((await unsigned.json()) as { __type: string }).__type).toBe('MissingAuthenticationTokenException');
    const realKey = { accessKeyId: 'AKIAREAL', secretAccessKey: 'local' };
    expect(await call({ credentials: realKey })).toEqual([400, 'UnrecognizedClientException']);
    expect(await call({ region: 'eu-west-1' })).toEqual([400, 'InvalidSignatureException']);
    expect(await call({ service: 'secretsmanager' })).toEqual([400, 'InvalidSignatureException']);
    // The runner's access key, another secret: the signature is not the one the runner's credentials make.
    const otherSecret = { ...localAws.credentials, secretAccessKey: 'not-local' };
    expect(await call({ credentials: otherSecret })).toEqual([400, 'InvalidSignatureException']);
    // The scope right, the signature not (the header accepted on today's code, which read the scope alone).
    const forged = (headers: Record<string, string>) => ({
      ...headers,
      authorization: String(headers.authorization).replace(/Signature=\w+/, `Signature=${'0'.repeat(64)}`),
    });
    expect(await call({ tamper: forged })).toEqual([400, 'InvalidSignatureException']);
    expect(await call()).toEqual([200, undefined]);
    const secret = await callJsonService(services.urls.secretsmanager, {
      target: 'secretsmanager.GetSecretValue',
      body: '{"SecretId":"app/given"}',
      service: 'secretsmanager',
    });
    expect(secret).toEqual([200, undefined]);
  } finally {
    await services.close();
  }
});

test('a services file that is not what the runner writes is refused at start, naming it and what to do', async () => {
  const other = mkdtempSync(join(tmpdir(), 'local-services-damaged-'));
  try {
    await withServicesIn(other);
    writeFileSync(join(other, 'services', 'ssm.json'), '{"parameters": [');
    await expect(startLocalServices({ dataDir: other, seeds: seeds('x'), log: () => undefined })).rejects.toThrow(
      `${join(other, 'services', 'ssm.json')} is not what the runner writes`,
    );
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test('a body that is not a JSON object is a SerializationException', async () => {
  const services = await startLocalServices({ dataDir: undefined, seeds: seeds('x'), log: () => undefined });
  try {
    const call = (body: string) => callJsonService(services.urls.ssm, { target: 'AmazonSSM.GetParameter', body });
    expect(await call('{"Name":')).toEqual([400, 'SerializationException']);
    expect(await call('["/app/plain"]')).toEqual([400, 'SerializationException']);
  } finally {
    await services.close();
  }
});

test("a value the data folder's key does not open (the key replaced) fails that call, the log saying why", async () => {
  const other = mkdtempSync(join(tmpdir(), 'local-services-rekeyed-'));
  const log: string[] = [];
  const start = () => startLocalServices({ dataDir: other, seeds: seeds('x'), log: (line) => log.push(line) });
  const client = (url: string) =>
    new SSMClient({ endpoint: url, region: localAws.region, credentials: localAws.credentials });
  try {
    const first = await start();
    const putting = client(first.urls.ssm);
    await putting.send(new PutParameterCommand({ Name: '/mine', Value: 'v', Type: 'String' }));
    putting.destroy();
    await first.close();
    // The template's seeds are put again under a new key (their fingerprints are the key's); a value put is not.
    writeFileSync(join(other, 'data-key'), Buffer.alloc(32, 7).toString('base64'));
    const services = await start();
    const ssm = client(services.urls.ssm);
    try {
      const failure = await ssm.send(new GetParameterCommand({ Name: '/mine' })).catch((error: unknown) => error);
      expect(failure).toMatchObject({ $metadata: { httpStatusCode: 500 } });
      expect(log).toContainEqual(
        expect.stringMatching(
          /^a local service failed: SSM parameter \/mine cannot be decrypted with the data folder's key/,
        ),
      );
      expect(log.join('\n')).not.toContain('    at ');
      expect(await parameter(ssm, '/app/plain')).toBe('x');
    } finally {
      ssm.destroy();
      await services.close();
    }
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
