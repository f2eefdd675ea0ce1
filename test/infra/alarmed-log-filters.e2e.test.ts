// What the stack's alarms count in the functions' logs, judged on the lines the functions really write: the authorizer
// run through the local runner (which writes each function's log as Lambda does in the template's log format, the
// runtime's own "Invoke Error" line included), and the synthesized template's metric filters evaluated on those lines
// as CloudWatch Logs evaluates them (test/helpers/filter-pattern.ts). A refused token must move no alarm that notifies
// or rolls back; the issuer's keys being unreachable must.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { signDevToken, startRunner } from 'cdk-local-runner';
import { plantStoreOptions, synthesizedCloudAssembly } from '../helpers/cloud-assembly.ts';
import { refusedEndpoint } from '../helpers/dynalite.ts';
import { matchesFilterPattern } from '../helpers/filter-pattern.ts';
import { postPlant } from '../helpers/post-plant.ts';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
const templateFile = readdirSync(synthesizedCloudAssembly()).find((file) => file.endsWith('.template.json')) ?? '';
const resources = (
  JSON.parse(readFileSync(join(synthesizedCloudAssembly(), templateFile), 'utf8')) as {
    Resources: Record<string, Resource>;
  }
).Resources;
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const ref = (value: unknown) => (value as { Ref?: string } | undefined)?.Ref;

/** Alarms that act: notify (AlarmActions) or roll a deployment back (a CodeDeploy group's AlarmConfiguration). */
const actingAlarms = () => {
  const rollingBack = new Set(
    ofType('AWS::CodeDeploy::DeploymentGroup').flatMap(([, group]) =>
      ((group.Properties.AlarmConfiguration as { Alarms?: { Name: unknown }[] } | undefined)?.Alarms ?? []).map(
        ({ Name }) => ref(Name),
      ),
    ),
  );
  return ofType('AWS::CloudWatch::Alarm').filter(
    ([id, alarm]) => rollingBack.has(id) || ((alarm.Properties.AlarmActions as unknown[] | undefined) ?? []).length > 0,
  );
};

/** The metric filters on `functionId`'s log group whose metric an acting alarm watches: id and pattern. */
const alarmedFiltersOf = (functionId: string) => {
  const logGroup = ref(
    (resources[functionId]?.Properties.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup,
  );
  const watched = new Set(
    actingAlarms().flatMap(([, alarm]) => {
      const { MetricName, Namespace, Metrics } = alarm.Properties as {
        MetricName?: string;
        Namespace?: string;
        Metrics?: { MetricStat?: { Metric: { MetricName: string; Namespace: string } } }[];
      };
      const inMath = (Metrics ?? []).flatMap(({ MetricStat }) => (MetricStat ? [MetricStat.Metric] : []));
      return [...(MetricName ? [{ MetricName, Namespace }] : []), ...inMath].map(
        (metric) => `${JSON.stringify(metric.Namespace)}/${metric.MetricName}`,
      );
    }),
  );
  return ofType('AWS::Logs::MetricFilter')
    .filter(([, filter]) => ref(filter.Properties.LogGroupName) === logGroup && logGroup !== undefined)
    .filter(([, filter]) =>
      (filter.Properties.MetricTransformations as { MetricName: string; MetricNamespace: unknown }[]).some(
        ({ MetricName, MetricNamespace }) => watched.has(`${JSON.stringify(MetricNamespace)}/${MetricName}`),
      ),
    )
    .map(([id, filter]) => ({ id, pattern: String(filter.Properties.FilterPattern) }));
};

/** The lines the authorizer writes (at INFO, as deployed) for one request with a token, served as `envVars` say. */
const authorizerLines = async (
  token: (api: Awaited<ReturnType<typeof startRunner>>) => Promise<string>,
  envVars = {},
) => {
  const lines: string[] = [];
  const api = await startRunner({
    ...plantStoreOptions({
      maxWorkers: 1,
      envVars: { BearerAuthorizerFunction: { POWERTOOLS_LOG_LEVEL: 'INFO', ...envVars } },
    }),
    functionLog: (functionId, line) => {
      if (functionId === 'BearerAuthorizerFunction') lines.push(line);
    },
  });
  try {
    const response = await postPlant(api.url, await token(api), { id: 1, name: 'x' });
    return { status: response.status, lines };
  } finally {
    await api.close();
  }
};
const signed = (api: Awaited<ReturnType<typeof startRunner>>) =>
  signDevToken(api.signingKey, { sub: 'ops', scope: 'plants/write', expiresIn: '1h' });

/**
 * The token with its signature's first character changed: never the same token. (Ending it with "AA" instead left
 * it valid about once in 256 runs: an ES256 signature's last character is one of four, its last two "AA" 1 in 256.)
 */
const forged = (token: string) => {
  const at = token.lastIndexOf('.') + 1;
  return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
};

describe("the authorizer's log, as the alarms see it", () => {
  test('the stack alarms on a filter of the authorizer log, and it notifies and rolls back', () => {
    expect(alarmedFiltersOf('BearerAuthorizerFunction').map(({ id }) => id)).toEqual([
      expect.stringMatching(/^BearerAuthorizerFunctionFailureFilter/),
    ]);
  });

  test('a refused token: the runtime logs its rejection at ERROR, and no alarmed filter counts it', async () => {
    const { status, lines } = await authorizerLines(async (api) => forged(await signed(api)));

    expect(status).toBe(401);
    // The Lambda runtime's own line for the thrown `Unauthorized`: what `{ $.level = "ERROR" }` alone would count.
    expect(lines.filter((line) => matchesFilterPattern('{ $.level = "ERROR" }', line))).toEqual([
      expect.stringContaining('"errorMessage":"Unauthorized"'),
    ]);
    // One line, with no stack: a refused token is no fault of the authorizer's code (the only line it writes at INFO).
    expect(lines).toEqual([expect.stringContaining('"stackTrace":[]')]);
    for (const { pattern } of alarmedFiltersOf('BearerAuthorizerFunction')) {
      expect(lines.filter((line) => matchesFilterPattern(pattern, line))).toEqual([]);
    }
  }, 30_000);

  test("the README's placeholder token: 401 from API Gateway's validation expression, the authorizer not invoked", async () => {
    const { status, lines } = await authorizerLines(async () => 'eyJhbGciOiJFUzI1NiIs...');

    expect(status).toBe(401);
    expect(lines).toEqual([]);
  }, 30_000);

  test("the issuer's keys unreachable: 500, and the authorizer-failure filter counts it once", async () => {
    const { status, lines } = await authorizerLines(signed, { JWKS_URI: `${await refusedEndpoint()}/jwks.json` });

    expect(status).toBe(500);
    const [failures] = alarmedFiltersOf('BearerAuthorizerFunction');
    expect(lines.filter((line) => matchesFilterPattern(failures?.pattern ?? '', line))).toHaveLength(1);
  }, 30_000);
});

describe('the filter-pattern evaluator', () => {
  const pattern = '{ ($.level = "ERROR") && ($.message = "Authorizer failed") }';

  test('matches a JSON line whose selected properties equal the strings', () => {
    expect(matchesFilterPattern(pattern, '{"level":"ERROR","message":"Authorizer failed","x":1}')).toBe(true);
    expect(matchesFilterPattern('{ $.a.b = "c" || $.d = "e" }', '{"d":"e"}')).toBe(true);
  });

  test('does not match another value, an object where a string is selected, a missing property, or a text line', () => {
    expect(matchesFilterPattern(pattern, '{"level":"INFO","message":"Authorizer failed"}')).toBe(false);
    expect(matchesFilterPattern(pattern, '{"level":"ERROR","message":{"errorMessage":"Authorizer failed"}}')).toBe(
      false,
    );
    expect(matchesFilterPattern(pattern, '{"level":"ERROR"}')).toBe(false);
    expect(matchesFilterPattern(pattern, 'ERROR Authorizer failed')).toBe(false);
  });

  test('refuses what it does not evaluate instead of guessing', () => {
    expect(() => matchesFilterPattern('{ $.level != "ERROR" }', '{}')).toThrow(/only "=" is supported/);
    expect(() => matchesFilterPattern('{ $.level = "ERR*" }', '{}')).toThrow(/without wildcards/);
    expect(() => matchesFilterPattern('ERROR', '{}')).toThrow(/only JSON filter patterns/);
  });
});
