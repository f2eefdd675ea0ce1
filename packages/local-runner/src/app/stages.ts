// The Stage resources of an API (REST's AWS::ApiGateway::Stage, HTTP's and WebSocket's AWS::ApiGatewayV2::Stage), read.
import { type CfnResource, props, type Stage, UnsupportedTemplateError } from './cfn.ts';
import { referencedId, stringOf } from './values.ts';

/**
 * The name a Stage resource is served under when it has no `StageName` (nor is there a Stage: the API is served under
 * it too): REST's `local`, HTTP's and WebSocket's `$default`, as the runner has always served them.
 */
const defaultNames = { 'AWS::ApiGateway::Stage': 'local', 'AWS::ApiGatewayV2::Stage': '$default' } as const;
export type StageType = keyof typeof defaultNames;

/** The name of the Stage resource `id` of `type`: the one reading of it, for its path and for its usage plans. */
export const stageNameOf = (id: string, stage: CfnResource, type: StageType) =>
  stringOf(props(stage).StageName, { resource: id, property: 'StageName' }, defaultNames[type]);

/** Each Stage resource of `type` in `stages` read (REST's `Variables`, HTTP's `StageVariables`); none: the default. */
export const readStages = (
  stages: [string, CfnResource][],
  resources: Record<string, CfnResource>,
  apiId: string,
  type: StageType,
): Stage[] => {
  if (stages.length === 0) return [{ name: defaultNames[type], variables: {}, deploymentId: 'local' }];
  return stages.map(([id, stage]) => {
    const properties = props(stage);
    const variables = (properties.Variables ?? properties.StageVariables ?? {}) as Record<string, unknown>;
    if (!Object.values(variables).every((value) => typeof value === 'string'))
      throw new UnsupportedTemplateError(`${apiId}: a stage variable whose value is not a string (an intrinsic)`);
    return {
      name: stageNameOf(id, stage, type),
      variables: variables as Record<string, string>,
      deploymentId:
        properties.DeploymentId === undefined
          ? 'local'
          : referencedId(properties.DeploymentId, resources, { resource: id, property: 'DeploymentId' }, [
              'AWS::ApiGateway::Deployment',
              'AWS::ApiGatewayV2::Deployment',
            ]),
    };
  });
};
