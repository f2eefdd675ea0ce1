// Secrets Manager as the AWS SDK's own client calls it (@aws-sdk/client-secrets-manager, the JSON protocol), against
// the local service on a real socket: each operation and its errors, as the AWS Secrets Manager API Reference states
// them: "CreateSecret" https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html,
// "GetSecretValue" https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html,
// "PutSecretValue" https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_PutSecretValue.html.
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { startLocalServices } from '../../src/services/local-services.ts';

let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let secrets: SecretsManagerClient;
beforeAll(async () => {
  services = await startLocalServices({
    dataDir: undefined,
    seeds: { parameters: [], secrets: [], notices: [] },
    log: () => undefined,
  });
  secrets = new SecretsManagerClient({
    endpoint: services.urls.secretsmanager,
    region: localAws.region,
    credentials: localAws.credentials,
  });
});
afterAll(async () => {
  secrets?.destroy();
  await services?.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

test('CreateSecret, then GetSecretValue by name and by ARN: the AWSCURRENT version', async () => {
  const created = await secrets.send(new CreateSecretCommand({ Name: 'app/db', SecretString: '{"password":"p1"}' }));
  expect(created.ARN).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:app\/db-[A-Za-z0-9]{6}$/);
  expect(created).toMatchObject({ Name: 'app/db', VersionId: expect.any(String) });
  for (const SecretId of ['app/db', created.ARN as string]) {
    const value = await secrets.send(new GetSecretValueCommand({ SecretId }));
    expect(value).toMatchObject({
      ARN: created.ARN,
      Name: 'app/db',
      VersionId: created.VersionId,
      SecretString: '{"password":"p1"}',
      VersionStages: ['AWSCURRENT'],
    });
    expect(value.CreatedDate).toBeInstanceOf(Date);
  }
  // "GetSecretValue": a partial ARN (without the six random characters) names it too.
  const partial = (created.ARN as string).slice(0, -7);
  expect((await secrets.send(new GetSecretValueCommand({ SecretId: partial }))).Name).toBe('app/db');
});

test('CreateSecret of a name taken: ResourceExistsException', async () => {
  await secrets.send(new CreateSecretCommand({ Name: 'app/taken', SecretString: 'x' }));
  expect(await failure(secrets.send(new CreateSecretCommand({ Name: 'app/taken', SecretString: 'y' })))).toMatchObject({
    name: 'ResourceExistsException',
    $metadata: { httpStatusCode: 400, attempts: 1 },
  });
});

test('PutSecretValue makes the new version AWSCURRENT and the last one AWSPREVIOUS', async () => {
  const first = await secrets.send(new CreateSecretCommand({ Name: 'app/rotated', SecretString: 'one' }));
  const second = await secrets.send(new PutSecretValueCommand({ SecretId: 'app/rotated', SecretString: 'two' }));
  expect(second).toMatchObject({ Name: 'app/rotated', ARN: first.ARN, VersionStages: ['AWSCURRENT'] });
  expect(await secrets.send(new GetSecretValueCommand({ SecretId: 'app/rotated' }))).toMatchObject({
    SecretString: 'two',
    VersionId: second.VersionId,
  });
  expect(
    await secrets.send(new GetSecretValueCommand({ SecretId: 'app/rotated', VersionStage: 'AWSPREVIOUS' })),
  ).toMatchObject({ SecretString: 'one', VersionId: first.VersionId, VersionStages: ['AWSPREVIOUS'] });
  expect(
    await secrets.send(new GetSecretValueCommand({ SecretId: 'app/rotated', VersionId: first.VersionId })),
  ).toMatchObject({ SecretString: 'one' });
});

test('PutSecretValue with a ClientRequestToken: the same value again does nothing, another is refused', async () => {
  await secrets.send(new CreateSecretCommand({ Name: 'app/idempotent' }));
  const token = '00000000-0000-4000-8000-000000000001';
  const put = () =>
    secrets.send(
      new PutSecretValueCommand({ SecretId: 'app/idempotent', SecretString: 'v', ClientRequestToken: token }),
    );
  expect((await put()).VersionId).toBe(token);
  expect((await put()).VersionId).toBe(token);
  expect(
    await failure(
      secrets.send(
        new PutSecretValueCommand({ SecretId: 'app/idempotent', SecretString: 'other', ClientRequestToken: token }),
      ),
    ),
  ).toMatchObject({ name: 'ResourceExistsException' });
});

test('a binary secret comes back as the bytes it was given', async () => {
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  await secrets.send(new CreateSecretCommand({ Name: 'app/binary', SecretBinary: bytes }));
  const value = await secrets.send(new GetSecretValueCommand({ SecretId: 'app/binary' }));
  expect(value.SecretString).toBeUndefined();
  expect([...(value.SecretBinary ?? [])]).toEqual([...bytes]);
});

test('GetSecretValue of a missing secret, stage or version, or of a secret with no value: ResourceNotFoundException', async () => {
  await secrets.send(new CreateSecretCommand({ Name: 'app/empty' }));
  for (const input of [
    { SecretId: 'app/none' },
    { SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:app/none-abcdef' },
    { SecretId: 'app/empty' },
    { SecretId: 'app/db', VersionStage: 'AWSPENDING' },
    { SecretId: 'app/db', VersionId: '00000000-0000-4000-8000-00000000ffff' },
  ])
    expect(await failure(secrets.send(new GetSecretValueCommand(input)))).toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 400 },
    });
  expect(
    await failure(secrets.send(new PutSecretValueCommand({ SecretId: 'app/none', SecretString: 'x' }))),
  ).toMatchObject({
    name: 'ResourceNotFoundException',
  });
});

test('both SecretString and SecretBinary, or neither to PutSecretValue: InvalidParameterException', async () => {
  expect(
    await failure(
      secrets.send(new CreateSecretCommand({ Name: 'app/both', SecretString: 'x', SecretBinary: new Uint8Array([1]) })),
    ),
  ).toMatchObject({ name: 'InvalidParameterException' });
  expect(await failure(secrets.send(new PutSecretValueCommand({ SecretId: 'app/db' })))).toMatchObject({
    name: 'InvalidParameterException',
  });
});
