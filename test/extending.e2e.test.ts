// docs/extending.md's recipe, followed: a fixture app (test/fixtures/extended-app, not the product) with the product's
// pattern and three operations (a body, a GET with an int64 path parameter, a greedy route), synthesized by the CDK
// CLI with cdk-nag and served by the local runner.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { devIssuerScope, type Runner, signDevToken, startRunner } from 'cdk-local-runner';
import { createExactClient } from '../examples/typed-client/src/client.ts';
import { exactNumbers } from '../functions/commons/exact-json.ts';
import { projectRoot } from '../infra/project-root.ts';
import { int64Fields } from './fixtures/extended-app/typed-client/int64-fields.ts';
import type { paths } from './fixtures/extended-app/typed-client/plant-store-api.d.ts';
import { contractOperations } from './helpers/contract-operations.ts';
import { contractChecker } from './helpers/independent-contract.ts';
import { functionsAloneMessage, lintImports, otherFunctionMessage } from './helpers/lint.ts';

const fixture = 'test/fixtures/extended-app';
const operations = contractOperations(join(projectRoot, fixture, 'openapi.yaml'));
const allScopes = new Set(operations.flatMap(({ scopes }) => scopes));
const functionIds = [
  'CreateThingFunction',
  'GetThingFunction',
  'GetFileFunction',
  'CreatePlantFunction',
  'GetPlantFunction',
  'ListPlantsFunction',
];
let cloudAssemblyDir: string;
let synthErrors = '';
let api: Runner;
let token: string;

beforeAll(async () => {
  cloudAssemblyDir = mkdtempSync(join(tmpdir(), 'plant-store-extended-'));
  // As a user synthesizes an app: the CDK CLI, offline, bundling every function, cdk-nag failing the synth on a finding.
  const { stderr } = await promisify(execFile)(
    join(projectRoot, 'node_modules/.bin/cdk'),
    ['synth', '--app', `node ${fixture}/infra/app.ts`, '--quiet', '--output', cloudAssemblyDir],
    {
      cwd: projectRoot,
      env: { ...process.env, CDK_HOME: join(cloudAssemblyDir, '.cdk-home'), HTTPS_PROXY: 'http://127.0.0.1:9' },
    },
  );
  synthErrors = stderr;
  api = await startRunner({
    cloudAssemblyDir,
    port: 0,
    dataDir: undefined,
    maxWorkers: 1,
    log: () => undefined,
    functionLog: () => undefined,
  });
  // A token with every scope the fixture's operations list (its openapi.yaml), as the runner's own tokens carry.
  token = await signDevToken(api.signingKey, { sub: 'extender', scope: [...allScopes].join(' '), expiresIn: '1h' });
}, 120_000);

afterAll(async () => {
  await api?.close();
  rmSync(cloudAssemblyDir, { recursive: true, force: true });
});

const template = () =>
  JSON.parse(readFileSync(join(cloudAssemblyDir, 'ExtendedFixture.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };

test.each([
  ['GetPlantFunction', ['dynamodb:GetItem', 'dynamodb:Scan']],
  ['ListPlantsFunction', ['dynamodb:GetItem', 'dynamodb:Scan']],
  ['CreatePlantFunction', ['dynamodb:GetItem', 'dynamodb:PutItem']],
])('%s may call on the plants table only %j', (functionId, actions) => {
  // What IAM lets the function's role do: GetItem reads one item, Scan reads pages, PutItem writes ("Actions,
  // resources, and condition keys for Amazon DynamoDB",
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html).
  const resources = template().Resources;
  const { Role } = (resources[functionId]?.Properties ?? {}) as { Role?: { 'Fn::GetAtt': [string, string] } };
  const role = Role?.['Fn::GetAtt'][0];
  expect(role).toBeDefined();
  const table = Object.keys(resources).find((id) => resources[id]?.Type === 'AWS::DynamoDB::Table');
  const statements = Object.values(resources)
    .filter(
      ({ Type, Properties }) =>
        Type === 'AWS::IAM::Policy' && JSON.stringify(Properties.Roles).includes(`{"Ref":"${role}"}`),
    )
    .flatMap(({ Properties }) => (Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
    .filter(({ Action }) => [Action].flat().some((action) => String(action).startsWith('dynamodb:')));
  expect(statements).toHaveLength(1);
  expect([statements[0]?.Action].flat().sort()).toEqual(actions);
  expect(JSON.stringify(statements[0]?.Resource)).toContain(`"${table}"`);
});

test('it synthesizes clean of cdk-nag findings', () => {
  const report = JSON.parse(readFileSync(join(cloudAssemblyDir, 'validation-report.json'), 'utf8'));
  // A finding fails the synth and fills this report; a clean synth leaves it empty.
  expect(report.pluginReports).toEqual([]);
  expect(synthErrors).not.toMatch(/AwsSolutions-/);
});

test.each(functionIds)('%s has its alarms and a canary that rolls back on them and on the API 5XX rate', (id) => {
  const resources = Object.entries(template().Resources);
  const alarms = resources.filter(
    ([, { Type, Properties }]) =>
      Type === 'AWS::CloudWatch::Alarm' && JSON.stringify(Properties.Dimensions ?? []).includes(`"Ref":"${id}"`),
  );
  expect(alarms.map(([, { Properties }]) => Properties.MetricName).sort()).toEqual(['Duration', 'Errors', 'Throttles']);
  const [errors] = alarms.find(([, { Properties }]) => Properties.MetricName === 'Errors') ?? [];
  const [api5xx] =
    resources.find(
      ([, { Type, Properties }]) => Type === 'AWS::CloudWatch::Alarm' && Properties.MetricName === '5XXError',
    ) ?? [];
  const [[, group] = []] = resources.filter(
    ([groupId, { Type }]) =>
      Type === 'AWS::CodeDeploy::DeploymentGroup' && groupId.startsWith(id.replace(/Function$/, '')),
  );
  expect(group?.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
  const configuration = group?.Properties.AlarmConfiguration as { Alarms: { Name: { Ref: string } }[] } | undefined;
  const watched = configuration?.Alarms.map(({ Name }) => Name.Ref) ?? [];
  expect(watched.sort()).toEqual([errors, api5xx].sort());
});

describe('the runner serves it, and each operation is validated from its contract', () => {
  // Every answer is checked against the fixture's own contract, numbers read exactly (an int64 id included).
  let contract: Awaited<ReturnType<typeof contractChecker>>;
  beforeAll(async () => {
    contract = await contractChecker(join(projectRoot, fixture, 'openapi.yaml'));
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      // A string is sent as it is (an int64 past 2^53 has no exact JavaScript number).
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const request = { method, path: new URL(path, api.url).pathname };
    expect(await contract.responseViolations(response, request)).toEqual([]);
    return response;
  };
  // Numbers read exactly: an int64 past 2^53 is a bigint.
  const answer = async (response: Response) => [response.status, JSON.parse(await response.text(), exactNumbers)];

  test('POST /things: the body against NewThing', async () => {
    expect(await answer(await call('POST', '/things', { id: 1, name: 'lamp' }))).toEqual([200, { name: 'lamp' }]);
    expect(await answer(await call('POST', '/things', { id: 'one', name: 'lamp' }))).toEqual([
      400,
      { error: 400, message: 'id: must be an integer in the int64 range' },
    ]);
  });

  test('GET /things/{id}: the int64 path parameter and the fields enum', async () => {
    expect(await answer(await call('GET', '/things/9223372036854775807?fields=name'))).toEqual([
      200,
      { id: 9223372036854775807n, fields: 'name' },
    ]);
    expect(await answer(await call('GET', '/things/-9223372036854775808'))).toEqual([
      200,
      { id: -9223372036854775808n, fields: 'all' },
    ]);
    expect(await answer(await call('GET', '/things/9223372036854775808'))).toEqual([
      400,
      { error: 400, message: 'path parameter id: must be an integer in the int64 range' },
    ]);
    expect(await answer(await call('GET', '/things/1?fields=everything'))).toEqual([
      400,
      { error: 400, message: 'query parameter fields: must be equal to one of the allowed values' },
    ]);
  });

  test('GET /files/{proxy+}: the greedy path, and the required int32 version', async () => {
    expect(await answer(await call('GET', '/files/docs/a%20b.txt?version=3'))).toEqual([
      200,
      { path: 'docs/a b.txt', version: 3 },
    ]);
    expect(await answer(await call('GET', '/files/docs/a.txt'))).toEqual([
      400,
      { error: 400, message: 'query parameter version: is required' },
    ]);
    // The gateway passes the path as sent; the function decodes it, and refuses what does not decode.
    expect(await answer(await call('GET', '/files/docs/100%.txt?version=3'))).toEqual([
      400,
      { error: 400, message: 'Invalid path parameter encoding' },
    ]);
  });

  describe("the plants table: the product's createPlant, and the reads the recipe added", () => {
    // Both ends of int64, and one past 2^53: each read back exactly.
    const ids = [9223372036854775807n, -9223372036854775808n, 9007199254740993n];
    const plantBody = (id: bigint, name: string) => `{"id":${id},"name":${JSON.stringify(name)}}`;

    test('POST /plants stores; GET /plants/{id} answers each id exactly; an absent id is 404', async () => {
      for (const id of ids) {
        expect(await answer(await call('POST', '/plants', plantBody(id, `Plant ${id}`)))).toEqual([
          200,
          { name: `Plant ${id}` },
        ]);
        expect(await answer(await call('GET', `/plants/${id}`))).toEqual([200, { id, name: `Plant ${id}` }]);
      }
      expect(await answer(await call('GET', '/plants/42'))).toEqual([
        404,
        { error: 404, message: 'No plant has the id 42' },
      ]);
    });

    test('the typed client (examples/typed-client, generated from this contract) reads each id back exactly', async () => {
      // Its types say int64 is bigint; its answers' int64 fields (int64-fields.ts) are read so, not as doubles.
      const client = createExactClient<paths>({ baseUrl: api.url, token }, int64Fields);
      for (const id of ids) {
        const { data } = await client.GET('/plants/{id}', { params: { path: { id } } });
        expect(data).toEqual({ id, name: `Plant ${id}` });
      }
      const { data: page } = await client.GET('/plants', { params: { query: { limit: 100 } } });
      expect(page?.plants.map(({ id }) => id).sort((a, b) => (a < b ? -1 : 1))).toEqual(
        [...ids].sort((a, b) => (a < b ? -1 : 1)),
      );
      const { data: created } = await client.POST('/plants', { body: { id: ids[0] ?? 0n, name: `Plant ${ids[0]}` } });
      expect(created).toEqual({ name: `Plant ${ids[0]}` });
    });

    test('GET /plants pages through every plant once, its limit 1 to 100 and 20 by default', async () => {
      const seen: bigint[] = [];
      let next = '/plants?limit=2';
      for (let pages = 1; ; pages += 1) {
        const [status, page] = await answer(await call('GET', next));
        expect(status).toBe(200);
        expect(page.plants.length).toBeLessThanOrEqual(2);
        seen.push(...page.plants.map(({ id }: { id: bigint }) => id));
        if (page.cursor === undefined) break;
        expect(pages).toBeLessThan(ids.length + 1);
        next = `/plants?limit=2&cursor=${encodeURIComponent(page.cursor)}`;
      }
      expect(seen.sort((a, b) => (a < b ? -1 : 1))).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
      const [, firstPage] = await answer(await call('GET', '/plants'));
      expect(firstPage.plants).toHaveLength(ids.length); // the default limit, 20, holds them all
      expect(await answer(await call('GET', '/plants?limit=101'))).toEqual([
        400,
        { error: 400, message: 'query parameter limit: must be from 1 to 100' },
      ]);
      expect(await answer(await call('GET', '/plants?cursor=bm9wZQ'))).toEqual([
        400,
        { error: 400, message: 'query parameter cursor: is not a cursor this API gave' },
      ]);
    });
  });

  test('one token: the authorizer ran once, and its cached policy, naming every route, served them all', async () => {
    // Every request above carried the same token: API Gateway caches the authorizer's policy per token, and the
    // policy names every route the token's scopes reach, so the other routes are served from the cache.
    expect(api.invocations('BearerAuthorizerFunction')).toBe(1);
    for (const id of functionIds) expect(api.invocations(id)).toBeGreaterThan(0);
  });
});

describe('a scope per operation (openapi.yaml), through the cached policy', () => {
  const readOnly = 'plants/read';
  // What the 403 names: of the scopes the operations list, those the token lacks (a gateway response cannot pick
  // the route's own: docs/extending.md, "The scopes").
  const lacking = [...allScopes].filter((scope) => scope !== readOnly).join(' ');
  const call = (method: string, path: string, readToken: string) =>
    fetch(`${api.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${readToken}`, 'Content-Type': 'application/json' },
      ...(method === 'POST' && { body: '{"id": 7, "name": "Fern"}' }),
    });
  const expectRefusedWrite = async (response: Response) => {
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: 403,
      message: `The token lacks a scope this operation needs; of this API's scopes it lacks: ${lacking}`,
    });
    // The operations need different scopes, so the API-wide challenge names none (RFC 6750 section 3: optional).
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="Extended fixture", error="insufficient_scope"',
    );
  };

  test("the runner's development tokens carry every operation's scope", () => {
    expect(new Set(devIssuerScope(api.app)?.split(' '))).toEqual(allScopes);
  });

  test.each([
    ['a read first, then the write', ['read', 'write']],
    ['the write first, then a read', ['write', 'read']],
  ])('a read-only token: %s, one authorizer run', async (order, steps) => {
    const readToken = await signDevToken(api.signingKey, { sub: `reader ${order}`, scope: readOnly, expiresIn: '1h' });
    const before = api.invocations('BearerAuthorizerFunction');
    for (const step of steps) {
      if (step === 'read') {
        expect((await call('GET', '/plants', readToken)).status).toBe(200);
        // Stored by an earlier test or not: either way the route was reached, not refused.
        expect([200, 404]).toContain((await call('GET', '/plants/9223372036854775807', readToken)).status);
      } else {
        await expectRefusedWrite(await call('POST', '/plants', readToken));
      }
    }
    expect((await call('POST', '/things', readToken)).status).toBe(403);
    expect(api.invocations('BearerAuthorizerFunction')).toBe(before + 1);
  });
  // A path may hold `:` and `*` (RFC 3986 section 3.3); the policy's stage is read from the method ARN's grammar, so
  // the path names neither the stage nor the routes the cached policy allows.
  test.each([
    ['GET /files/a:x/y/GET/plants', '/files/a:x/y/GET/plants', '/files/a:x/y/GET/plants'],
    ['GET /files/a:*/*/GET/plants', '/files/a:*/*/GET/plants', '/files/a:Q/R/GET/plants'],
  ])(
    'a read-only token whose first request is %s: 403 there and from the cache, the reads still served',
    async (_name, first, later) => {
      const readToken = await signDevToken(api.signingKey, {
        sub: `reader of ${first}`,
        scope: readOnly,
        expiresIn: '1h',
      });
      const before = api.invocations('BearerAuthorizerFunction');
      expect((await call('GET', `${first}?version=1`, readToken)).status).toBe(403);
      expect((await call('GET', `${later}?version=1`, readToken)).status).toBe(403);
      expect((await call('GET', '/plants', readToken)).status).toBe(200);
      expect(api.invocations('BearerAuthorizerFunction')).toBe(before + 1);
    },
  );
});

test("every code block of docs/extending.md is the fixture's code, line for line", () => {
  const doc = readFileSync(join(projectRoot, 'docs/extending.md'), 'utf8');
  const lines = (text: string) => text.split('\n').map((line) => line.trim());
  const files = ['functions/get-plant/handler.ts', 'infra/extended-stack.ts'].map((file) =>
    lines(readFileSync(join(projectRoot, fixture, file), 'utf8')).join('\n'),
  );
  const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, block = '']) => lines(block.trimEnd()).join('\n'));
  expect(blocks).toHaveLength(2);
  // Named by the block when it fails.
  for (const block of blocks)
    expect({ block, inTheFixture: files.some((file) => file.includes(block)) }).toEqual({
      block,
      inTheFixture: true,
    });
});

test('the lint boundary holds for its function folders', () => {
  expect(
    lintImports({
      [`${fixture}/functions/get-thing/into-create-thing.ts`]: '../create-thing/create-thing.ts',
      [`${fixture}/functions/get-file/into-infra.ts`]: '../../infra/extended-stack.ts',
      [`${fixture}/functions/get-file/commons.ts`]: '../commons/contract/openapi-types.ts',
    }).sort(),
  ).toEqual([
    `${fixture}/functions/get-file/into-infra.ts: ${functionsAloneMessage}`,
    `${fixture}/functions/get-thing/into-create-thing.ts: ${otherFunctionMessage}`,
  ]);
});
