// `sam local` overrides only the environment variables a template declares. The local variant of the template
// (context localDynamoDbEndpoint) declares createPlant's AWS_ENDPOINT_URL_DYNAMODB; the deployed one never does.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../infra/app-context.ts';
import { PlantStoreStack } from '../../infra/plant-store-stack.ts';

const synth = (context: Record<string, string>) => {
  const app = new App({ context });
  const { stackName, ...props } = propsFromContext(app.node);
  return new PlantStoreStack(app, stackName, props);
};
const variablesOf = (template: Template, logicalId: string): Record<string, unknown> => {
  const resource = template.toJSON().Resources[logicalId] as { Properties: { Environment: { Variables: object } } };
  return resource.Properties.Environment.Variables as Record<string, unknown>;
};
const samEnv = JSON.parse(readFileSync(new URL('../../examples/sam-env.json', import.meta.url), 'utf8')) as Record<
  string,
  Record<string, string>
>;
const endpoint = 'http://host.docker.internal:8000';

describe('the template for sam local (-c localDynamoDbEndpoint=...)', () => {
  let stack: PlantStoreStack;
  let template: Template;
  beforeAll(() => {
    stack = synth({ localDynamoDbEndpoint: endpoint });
    template = Template.fromStack(stack);
  });

  test("declares createPlant's DynamoDB endpoint, with the given value", () => {
    expect(variablesOf(template, 'CreatePlantFunction')).toMatchObject({ AWS_ENDPOINT_URL_DYNAMODB: endpoint });
  });

  test('declares every variable examples/sam-env.json sets, so that sam applies each', () => {
    for (const [functionId, variables] of Object.entries(samEnv)) {
      expect(Object.keys(variablesOf(template, functionId))).toEqual(expect.arrayContaining(Object.keys(variables)));
    }
  });

  test('says at synth that it is not for deployment', () => {
    Annotations.fromStack(stack).hasWarning(
      '*',
      Match.stringLikeRegexp('a template for sam local, not for deployment'),
    );
  });
});

test('the deployed template declares no DynamoDB endpoint: the function uses the regional one', () => {
  const template = Template.fromStack(synth({}));

  expect(Object.keys(variablesOf(template, 'CreatePlantFunction'))).not.toContain('AWS_ENDPOINT_URL_DYNAMODB');
  expect(JSON.stringify(template.toJSON())).not.toContain('AWS_ENDPOINT_URL');
});
