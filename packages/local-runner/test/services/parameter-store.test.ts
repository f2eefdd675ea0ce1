// SSM Parameter Store as the AWS SDK's own client calls it (@aws-sdk/client-ssm, the JSON protocol), against the
// local service on a real socket: each operation and its errors, as the AWS Systems Manager API Reference states them:
// "GetParameter" https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameter.html,
// "GetParameters" https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameters.html,
// "GetParametersByPath" https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParametersByPath.html,
// "PutParameter" https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_PutParameter.html,
// "DeleteParameter" https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_DeleteParameter.html.
import {
  DeleteParameterCommand,
  GetParameterCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { signedJsonHeaders } from '../helpers/json-service-call.ts';

let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let ssm: SSMClient;
beforeAll(async () => {
  services = await startLocalServices({
    dataDir: undefined,
    seeds: { parameters: [], secrets: [], notices: [] },
    log: () => undefined,
  });
  ssm = new SSMClient({ endpoint: services.urls.ssm, region: localAws.region, credentials: localAws.credentials });
});
afterAll(async () => {
  ssm?.destroy();
  await services?.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

test('PutParameter creates version 1; GetParameter reads it back, with its ARN', async () => {
  expect(await ssm.send(new PutParameterCommand({ Name: '/app/color', Value: 'green', Type: 'String' }))).toMatchObject(
    {
      Version: 1,
      Tier: 'Standard',
    },
  );
  const { Parameter } = await ssm.send(new GetParameterCommand({ Name: '/app/color' }));
  expect(Parameter).toMatchObject({
    Name: '/app/color',
    Type: 'String',
    Value: 'green',
    Version: 1,
    ARN: 'arn:aws:ssm:us-east-1:000000000000:parameter/app/color',
    DataType: 'text',
  });
  expect(Parameter?.LastModifiedDate).toBeInstanceOf(Date);
  // "GetParameter": the name, or the parameter's ARN.
  const byArn = await ssm.send(new GetParameterCommand({ Name: Parameter?.ARN }));
  expect(byArn.Parameter).toMatchObject({ Name: '/app/color', Value: 'green' });
});

test('PutParameter on an existing name: ParameterAlreadyExists, unless Overwrite, which makes the next version', async () => {
  await ssm.send(new PutParameterCommand({ Name: '/app/size', Value: 'small', Type: 'String' }));
  expect(await failure(ssm.send(new PutParameterCommand({ Name: '/app/size', Value: 'large' })))).toMatchObject({
    name: 'ParameterAlreadyExists',
    $metadata: { httpStatusCode: 400 },
  });
  expect(await ssm.send(new PutParameterCommand({ Name: '/app/size', Value: 'large', Overwrite: true }))).toMatchObject(
    {
      Version: 2,
    },
  );
  expect((await ssm.send(new GetParameterCommand({ Name: '/app/size' }))).Parameter).toMatchObject({
    Value: 'large',
    Version: 2,
    Type: 'String',
  });
  // A selector names an earlier version ("GetParameter": "name:version").
  expect((await ssm.send(new GetParameterCommand({ Name: '/app/size:1' }))).Parameter).toMatchObject({
    Value: 'small',
    Version: 1,
    Selector: ':1',
  });
  expect(await failure(ssm.send(new GetParameterCommand({ Name: '/app/size:9' })))).toMatchObject({
    name: 'ParameterVersionNotFound',
  });
});

test('a SecureString is its ciphertext unless WithDecryption', async () => {
  await ssm.send(new PutParameterCommand({ Name: '/app/password', Value: 'hunter2', Type: 'SecureString' }));
  const hidden = (await ssm.send(new GetParameterCommand({ Name: '/app/password' }))).Parameter;
  expect(hidden?.Type).toBe('SecureString');
  expect(hidden?.Value).not.toContain('hunter2');
  const shown = (await ssm.send(new GetParameterCommand({ Name: '/app/password', WithDecryption: true }))).Parameter;
  expect(shown?.Value).toBe('hunter2');
});

test('GetParameter of a missing name, or by a name that is not one: ParameterNotFound, ValidationException', async () => {
  expect(await failure(ssm.send(new GetParameterCommand({ Name: '/app/none' })))).toMatchObject({
    name: 'ParameterNotFound',
    $metadata: { httpStatusCode: 400, attempts: 1 },
  });
  // "PutParameter": a name formed as a path must be fully qualified; none may begin with aws or ssm.
  for (const Name of ['app/relative', '/aws/mine', 'bad name'])
    expect(await failure(ssm.send(new PutParameterCommand({ Name, Value: 'x', Type: 'String' })))).toMatchObject({
      name: 'ValidationException',
    });
  // A new parameter needs a type.
  expect(await failure(ssm.send(new PutParameterCommand({ Name: '/app/untyped', Value: 'x' })))).toMatchObject({
    name: 'ValidationException',
  });
});

test('GetParameters answers the ones found, and names the others InvalidParameters', async () => {
  await ssm.send(new PutParameterCommand({ Name: '/many/a', Value: '1', Type: 'String' }));
  await ssm.send(new PutParameterCommand({ Name: '/many/b', Value: 'x,y', Type: 'StringList' }));
  const answer = await ssm.send(new GetParametersCommand({ Names: ['/many/a', '/many/b', '/many/c'] }));
  expect(answer.Parameters?.map(({ Name, Value, Type }) => ({ Name, Value, Type }))).toEqual([
    { Name: '/many/a', Value: '1', Type: 'String' },
    { Name: '/many/b', Value: 'x,y', Type: 'StringList' },
  ]);
  expect(answer.InvalidParameters).toEqual(['/many/c']);
});

test('GetParametersByPath: one level, or every level with Recursive, a page of MaxResults at a time', async () => {
  for (const Name of ['/tree/a', '/tree/b', '/tree/c', '/tree/deep/d', '/tree/deep/er/e', '/treetop'])
    await ssm.send(new PutParameterCommand({ Name, Value: Name, Type: 'String' }));
  const names = async (Recursive: boolean, MaxResults?: number) => {
    const pages: string[][] = [];
    let NextToken: string | undefined;
    do {
      const page = await ssm.send(new GetParametersByPathCommand({ Path: '/tree', Recursive, MaxResults, NextToken }));
      pages.push((page.Parameters ?? []).map(({ Name }) => Name ?? ''));
      NextToken = page.NextToken;
    } while (NextToken);
    return pages;
  };
  expect(await names(false)).toEqual([['/tree/a', '/tree/b', '/tree/c']]);
  expect(await names(true, 2)).toEqual([['/tree/a', '/tree/b'], ['/tree/c', '/tree/deep/d'], ['/tree/deep/er/e']]);
  expect(
    await failure(ssm.send(new GetParametersByPathCommand({ Path: '/tree', NextToken: 'not-a-token' }))),
  ).toMatchObject({ name: 'InvalidNextToken' });
  // "GetParametersByPath": hierarchies start with a forward slash.
  expect(await failure(ssm.send(new GetParametersByPathCommand({ Path: 'tree' })))).toMatchObject({
    name: 'ValidationException',
  });
  expect(await failure(ssm.send(new GetParametersByPathCommand({ Path: '/tree', MaxResults: 11 })))).toMatchObject({
    name: 'ValidationException',
  });
});

test('DeleteParameter removes it; deleting it again is ParameterNotFound', async () => {
  await ssm.send(new PutParameterCommand({ Name: '/gone/soon', Value: 'x', Type: 'String' }));
  await ssm.send(new DeleteParameterCommand({ Name: '/gone/soon' }));
  expect(await failure(ssm.send(new GetParameterCommand({ Name: '/gone/soon' })))).toMatchObject({
    name: 'ParameterNotFound',
  });
  expect(await failure(ssm.send(new DeleteParameterCommand({ Name: '/gone/soon' })))).toMatchObject({
    name: 'ParameterNotFound',
  });
});

test('an operation the runner does not serve is NotServedLocally, naming what it serves', async () => {
  const endpoint = services?.urls.ssm ?? '';
  const call = { target: 'AmazonSSM.DescribeParameters', body: '{}' };
  const headers = await signedJsonHeaders(endpoint, call);
  const response = await fetch(endpoint, { method: 'POST', headers, body: call.body });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { __type: string; message: string };
  expect(body.__type).toBe('NotServedLocally');
  expect(body.message).toContain('AmazonSSM.DescribeParameters');
  expect(body.message).toContain('GetParametersByPath');
});
