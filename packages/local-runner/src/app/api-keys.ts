// A REST API's API keys, as API Gateway takes them ("Choose an API key source in API Gateway"): a method that
// requires one takes a request whose X-API-Key header is an enabled key of a usage plan that has the API's stage;
// anything else is 403 Forbidden (INVALID_API_KEY).
import { type CfnResource, ofType, props, shown, UnsupportedTemplateError } from './cfn.ts';
import { stageNameOf } from './stages.ts';
import { booleanOf, names, referencedId, stringOf, type Where } from './values.ts';

export interface ApiKey {
  /** Its logical id; locally also its id (`requestContext.identity.apiKeyId`). */
  id: string;
  value: string;
  /** Whether the template gives no value: AWS generates one at deploy, the runner its own. */
  generated: boolean;
  /** The stages of the API whose methods take it: those of its usage plans. */
  stages: string[];
}

/** A key's value when the template gives none (or one with no local value): AWS generates one, the runner this. */
export const localKeyValue = (id: string) => `local-api-key-${id}`;

/** A usage plan's stage: a name, or a Stage resource's Ref (its name, "Ref returns the name of the stage"). */
const planStageOf = (value: unknown, resources: Record<string, CfnResource>, where: Where) => {
  if (typeof value === 'string') return value;
  const id = referencedId(value, resources, where, ['AWS::ApiGateway::Stage']);
  return stageNameOf(id, resources[id] as CfnResource, 'AWS::ApiGateway::Stage');
};

/**
 * The keys of `apiId`'s usage plans, enabled, each with the API's stages its plans have; and what of the plans no
 * local part applies (throttling and quotas), to be said at start. The API's key source must be HEADER (the default):
 * a Lambda authorizer's `usageIdentifierKey` (AUTHORIZER) is refused.
 */
export const readApiKeys = (resources: Record<string, CfnResource>, apiId: string, stackName: string) => {
  const source = stringOf(
    props(resources[apiId] ?? { Type: '' }).ApiKeySourceType,
    { resource: apiId, property: 'ApiKeySourceType' },
    'HEADER',
  );
  if (source !== 'HEADER')
    throw new UnsupportedTemplateError(
      `${apiId}: API key source ${shown(source)} (a Lambda authorizer's usageIdentifierKey), which the runner does not serve; HEADER is`,
    );
  const plans = new Map<string, string[]>();
  const notices: string[] = [];
  for (const [id, plan] of ofType(resources, 'AWS::ApiGateway::UsagePlan')) {
    const apiStages = (props(plan).ApiStages ?? []) as { ApiId?: unknown; Stage?: unknown }[];
    const at = (property: string) => ({ resource: id, property });
    const stages = apiStages
      .filter((apiStage) =>
        names(apiStage.ApiId, apiId, resources, at('ApiStages.ApiId'), ['AWS::ApiGateway::RestApi']),
      )
      .map((apiStage) => planStageOf(apiStage.Stage, resources, at('ApiStages.Stage')));
    if (stages.length === 0) continue;
    plans.set(id, stages);
    const { Throttle, Quota } = props(plan);
    if (Throttle !== undefined || Quota !== undefined)
      notices.push(
        `${stackName}/${id}: a usage plan's ${[Throttle && 'throttle', Quota && 'quota'].filter(Boolean).join(' and ')}, which the runner does not apply (429 on AWS)`,
      );
  }
  const keys = new Map<string, ApiKey>();
  for (const [id, planKey] of ofType(resources, 'AWS::ApiGateway::UsagePlanKey')) {
    const at = (property: string) => ({ resource: id, property });
    const stages = plans.get(
      referencedId(props(planKey).UsagePlanId, resources, at('UsagePlanId'), ['AWS::ApiGateway::UsagePlan']),
    );
    const keyId = referencedId(props(planKey).KeyId, resources, at('KeyId'), ['AWS::ApiGateway::ApiKey']);
    if (!stages) continue;
    const { Value, Enabled } = props(resources[keyId] as CfnResource);
    // CloudFormation documents no default; the API's CreateApiKey leaves a key disabled unless told (the CDK always
    // writes Enabled). A key not enabled is refused on AWS too: 403.
    if (!booleanOf(Enabled, { resource: keyId, property: 'Enabled' }, false)) continue;
    const known = keys.get(keyId);
    keys.set(keyId, {
      id: keyId,
      value: typeof Value === 'string' ? Value : localKeyValue(keyId),
      generated: typeof Value !== 'string',
      stages: [...new Set([...(known?.stages ?? []), ...stages])],
    });
  }
  return { keys: [...keys.values()], notices };
};
