// An app whose APIs and functions are in nested stacks (test/fixtures/nested-stacks-app.ts), served as CloudFormation
// deploys them ("AWS::CloudFormation::Stack",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudformation-stack.html: the
// parent passes values to the nested stack as its Parameters, and reads its outputs as `Fn::GetAtt` of the nested
// stack's logical id and `Outputs.<name>`; "Nested stacks",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-nested-stacks.html: a nested stack may hold
// nested stacks of its own). Seen in aws-samples/aws-cdk-examples, typescript/api-gateway-parallel-step-functions.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { synthesizeNestedStacksApp } from '../fixtures/nested-stacks-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';

let outdir: string | undefined;
const served = servedBeforeAll(() => {
  outdir = synthesizeNestedStacksApp();
  return outdir;
});
afterAll(() => {
  if (outdir) rmSync(dirname(outdir), { recursive: true, force: true });
});

interface Values {
  functionName: string;
  TABLE?: string;
  NESTED_FUNCTION?: string;
  INNER_FUNCTION?: string;
  NESTED_API?: string;
  tableFound?: string;
}

/** What the function behind `url` sees (fixtures/nested/values.mjs), once its answer is 200. */
const valuesAt = async (url: string): Promise<Values> => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as Values;
};

describe("a nested stack's resources, served with its parent", () => {
  test("its REST API and function, reading the parent's table through a parameter", async () => {
    const values = await valuesAt(`${served.urlOf('OrdersApi')}/prod/`);
    expect(values).toMatchObject({ TABLE: 'Orders', tableFound: 'Orders' });
    // Named in the nested stack, `<parent>-<logical id of the nested stack>-<random>` (the runner's stable suffix).
    expect(values.functionName).toMatch(/^Shop-OrdersStackNestedStack/);
  });

  test("a nested stack's nested stack: its function URL, the table through both stacks' parameters", async () => {
    const values = await valuesAt(served.urlOf('InnerUrl'));
    expect(values).toMatchObject({ TABLE: 'Orders', tableFound: 'Orders' });
  });

  test("the parent's REST API to the nested stack's nested function, its ARN read through two outputs", async () => {
    const values = await valuesAt(`${served.urlOf('ShopApi')}/prod/`);
    expect(values).toMatchObject({ TABLE: 'Orders', tableFound: 'Orders' });
    expect(values.functionName).toBe((await valuesAt(served.urlOf('InnerUrl'))).functionName);
  });

  test("the parent's function reads the nested stacks' outputs: their functions' names and the API's URL", async () => {
    const reader = await valuesAt(served.urlOf('ReaderUrl'));
    const lister = await valuesAt(`${served.urlOf('OrdersApi')}/prod/`);
    const inner = await valuesAt(served.urlOf('InnerUrl'));
    expect(reader.NESTED_FUNCTION).toBe(lister.functionName);
    expect(reader.INNER_FUNCTION).toBe(inner.functionName);
    // The REST API's id, locally its logical id; its stage, the nested stack's `prod`.
    expect(reader.NESTED_API).toMatch(/^https:\/\/OrdersApi\.execute-api\.[a-z0-9-]+\.amazonaws\.com\/prod\/$/);
  });
});
