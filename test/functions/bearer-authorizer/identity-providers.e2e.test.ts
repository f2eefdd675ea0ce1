// The vendors' token shapes (test/helpers/vendor-tokens.ts) over HTTP, through the local runner serving the
// synthesized stack: API Gateway's header check, then the authorizer bundle given each provider's settings with
// --env-vars (its keys found by discovery), then createPlant. Allow is a created plant (200), Deny 403, refused 401.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startRunner } from 'cdk-local-runner';
import { plantStoreOptions } from '../../helpers/cloud-assembly.ts';
import { postPlant } from '../../helpers/post-plant.ts';
import { startVendorIssuer, type VendorIssuer } from '../../helpers/vendor-tokens.ts';

let vendor: VendorIssuer;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'plant-store-vendors-'));
  vendor = await startVendorIssuer();
});
afterAll(async () => {
  await vendor.issuer.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const statusOf = { Allow: 200, Deny: 403, 401: 401 } as const;

test('every vendor shape gets its verdict through the gateway and the authorizer bundle', async () => {
  const groups = Map.groupBy(Object.entries(vendor.shapes), ([, shape]) => JSON.stringify(shape.settings));
  const answered: Record<string, number> = {};
  let id = 9_200_000;
  for (const [settings, shapes] of groups) {
    const api = await startRunner(
      plantStoreOptions({
        dataDir,
        maxWorkers: 1,
        // A shape without a required scope has none (the template's would apply otherwise).
        envVars: {
          BearerAuthorizerFunction: { JWT_ISSUER: vendor.issuer.issuer, ROUTE_SCOPES: '', ...JSON.parse(settings) },
        },
      }),
    );
    try {
      for (const [name, shape] of shapes) {
        const response = await postPlant(api.url, await vendor.sign(shape), { id: id++, name: 'Monstera deliciosa' });
        answered[name] = response.status;
      }
    } finally {
      await api.close();
    }
  }
  expect(answered).toEqual(
    Object.fromEntries(Object.entries(vendor.shapes).map(([name, shape]) => [name, statusOf[shape.verdict]])),
  );
}, 120_000);
