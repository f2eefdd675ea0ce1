// The monthly costs docs/benchmarks.md shows are the synthesized template's: each count read from the template, the
// doc's table what the model makes of it today (re-run `npm run bench` after adding an alarm or a client). X-Ray's
// share follows its default sampling rule: the first request each second, then 5 %
// (https://docs.aws.amazon.com/xray/latest/devguide/xray-console-sampling.html).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../../infra/project-root.ts';
import { monthlyCountsOf, monthlyRows, monthlyTable, xRayRecordedShare } from '../../../tools/bench/cost-model.ts';
import { synthesizedCloudAssembly } from '../../helpers/cloud-assembly.ts';

type Resource = { Type: string; Properties?: Record<string, unknown> };
let template: { Resources: Record<string, Resource> } = { Resources: {} };
beforeAll(() => {
  template = JSON.parse(readFileSync(join(synthesizedCloudAssembly(), 'PlantStore.template.json'), 'utf8'));
});
const ofType = (type: string) => Object.values(template.Resources).filter((resource) => resource.Type === type);

describe("the month's fixed costs, counted from the template", () => {
  test('every alarm, its metric-math metrics each, the dashboard and the client-credentials app client', () => {
    const counts = monthlyCountsOf(template);
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(counts.alarms).toBe(alarms.length);
    // An alarm on one metric reads one; a metric-math alarm reads each metric it names.
    const mathAlarms = alarms.filter(({ Properties }) => Properties?.Metrics !== undefined);
    expect(mathAlarms.length).toBeGreaterThan(0);
    expect(counts.alarmMetrics).toBeGreaterThan(alarms.length);
    expect(counts.dashboards).toBe(ofType('AWS::CloudWatch::Dashboard').length);
    expect(counts.m2mClients).toBe(1);
  });

  test("token requests: one a token's lifetime, for a client that reuses its token", () => {
    const [client] = ofType('AWS::Cognito::UserPoolClient');
    const { AccessTokenValidity, TokenValidityUnits } = (client?.Properties ?? {}) as {
      AccessTokenValidity: number;
      TokenValidityUnits: { AccessToken: string };
    };
    expect(TokenValidityUnits.AccessToken).toBe('minutes');
    expect(monthlyCountsOf(template).tokenRequests).toBe((30 * 24 * 60) / AccessTokenValidity);
  });

  test('docs/benchmarks.md shows exactly this table (run `npm run bench` when it changes)', () => {
    const doc = readFileSync(join(projectRoot, 'docs/benchmarks.md'), 'utf8');
    expect(doc).toContain(monthlyTable(monthlyRows(template)));
  });
});

test('X-Ray records every request below one a second, and tends to 5 % far above it', () => {
  expect(xRayRecordedShare(10_000)).toBe(1);
  expect(xRayRecordedShare(1_000_000)).toBe(1);
  // 100 a second: 1 + 5 % of the other 99.
  expect(xRayRecordedShare(100 * 30 * 24 * 3600)).toBeCloseTo((1 + 0.05 * 99) / 100, 10);
});
