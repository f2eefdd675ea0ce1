// The Stage resources of an API (REST's AWS::ApiGateway::Stage, HTTP's AWS::ApiGatewayV2::Stage), read.
import { type CfnResource, type LocalStage, props, UnsupportedTemplateError } from './cfn.ts';
import { referencedId, stringOf } from './values.ts';

/**
 * Each Stage resource in `stages` read (REST's `Variables`, HTTP's `StageVariables`); none: one named `defaultName`,
 * as the runner has always served an API without one.
 */
export const readStages = (
  stages: [string, CfnResource][],
  resources: Record<string, CfnResource>,
  apiId: string,
  defaultName: string,
): LocalStage[] => {
  if (stages.length === 0) return [{ name: defaultName, variables: {}, deployment: 'local' }];
  return stages.map(([id, stage]) => {
    const properties = props(stage);
    const variables = (properties.Variables ?? properties.StageVariables ?? {}) as Record<string, unknown>;
    if (!Object.values(variables).every((value) => typeof value === 'string'))
      throw new UnsupportedTemplateError(`${apiId}: a stage variable whose value is not a string (an intrinsic)`);
    return {
      name: stringOf(properties.StageName, { resource: id, property: 'StageName' }, defaultName),
      variables: variables as Record<string, string>,
      deployment:
        properties.DeploymentId === undefined
          ? 'local'
          : referencedId(properties.DeploymentId, resources, { resource: id, property: 'DeploymentId' }, [
              'AWS::ApiGateway::Deployment',
              'AWS::ApiGatewayV2::Deployment',
            ]),
    };
  });
};
