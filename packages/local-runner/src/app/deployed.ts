// The template's resources as CloudFormation deploys them with the parameters' defaults ("Conditions syntax",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/conditions-section-structure.html): a resource whose
// condition is false left out, each `Fn::If` replaced by its branch (`AWS::NoValue`: the property removed), each `Ref`
// to a parameter with a default by that default. Conditions are evaluated by the one evaluator (intrinsics.ts). A
// condition it cannot evaluate leaves its `Fn::If` in place, which the readers then refuse where they read it; a
// resource whose own condition it cannot evaluate is refused.
import { type CfnResource, refOf, shown, UnsupportedTemplateError } from './cfn.ts';
import {
  conditionOf,
  evaluate,
  noValue,
  type TemplateSections,
  UnresolvableValueError,
  type ValueContext,
} from './intrinsics.ts';

/** What a template says of its deployment: its parameters, conditions, mappings and resources. */
export interface DeployedTemplate extends TemplateSections {
  Resources?: Record<string, CfnResource>;
}

/** `attempt`'s answer; undefined when the evaluator cannot know it. */
const known = <T>(attempt: () => T): T | undefined => {
  try {
    return attempt();
  } catch (error) {
    if (error instanceof UnresolvableValueError) return undefined;
    throw error;
  }
};

/** `value` with the deployment's choices applied: Fn::If's branches, AWS::NoValue, parameters' defaults. */
const applied = (value: unknown, app: ValueContext): unknown => {
  if (Array.isArray(value)) return value.map((item) => applied(item, app)).filter((item) => item !== noValue);
  if (typeof value !== 'object' || value === null) return value;
  const ref = refOf(value);
  if (ref !== undefined && Object.keys(value).length === 1) {
    if (ref === 'AWS::NoValue') return noValue;
    return Object.hasOwn(app.template?.Parameters ?? {}, ref) ? (known(() => evaluate(value, app)) ?? value) : value;
  }
  if ('Fn::If' in value && Object.keys(value).length === 1 && Array.isArray(value['Fn::If'])) {
    const [name, whenTrue, whenFalse] = value['Fn::If'] as unknown[];
    const chosen = typeof name === 'string' ? known(() => conditionOf(name, app)) : undefined;
    return chosen === undefined ? value : applied(chosen ? whenTrue : whenFalse, app);
  }
  return Object.fromEntries(
    Object.entries(value)
      .map(([key, item]) => [key, applied(item, app)] as const)
      .filter(([, item]) => item !== noValue),
  );
};

/** The template's resources as deployed with the parameters' defaults (above), in the stack `stackName`. */
export const deployedResources = (template: DeployedTemplate, stackName: string): Record<string, CfnResource> => {
  const app: ValueContext = { stackName, template, resources: {}, tables: [], exports: new Map() };
  const deployed: Record<string, CfnResource> = {};
  for (const [id, resource] of Object.entries(template.Resources ?? {})) {
    const { Condition: name } = resource as CfnResource & { Condition?: unknown };
    if (name !== undefined) {
      const holds = typeof name === 'string' ? known(() => conditionOf(name, app)) : undefined;
      if (holds === undefined)
        throw new UnsupportedTemplateError(
          `${id}: Condition ${shown(name)}, which the runner cannot evaluate (a condition over a parameter without a default, or a value it cannot know)`,
        );
      if (!holds) continue;
    }
    deployed[id] = applied(resource, app) as CfnResource;
  }
  return deployed;
};
