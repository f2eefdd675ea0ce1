// A nested stack's template ("AWS::CloudFormation::Stack", the CDK's NestedStack): the CDK writes it into the cloud
// assembly as a file asset (`<parent><id>.nested.template.json`) and gives the parent's resource a TemplateURL to its
// S3 copy, with the file in its `aws:asset:path` metadata. assembly.ts reads each as a stack of its own, served with
// its parent; its values are evaluated by the one evaluator (intrinsics.ts: the parameters its parent gives, the
// outputs its parent reads).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnResource, props, shown, UnsupportedTemplateError } from './cfn.ts';

/** The asset manifests' file assets: their object key in the assets bucket, and their file in the assembly. */
interface AssetManifest {
  files?: Record<string, { source?: { path?: unknown }; destinations?: Record<string, { objectKey?: unknown }> }>;
}

/**
 * The file of the assembly whose S3 copy `templateUrl` names (its `<hash>.json` object key), found in the asset
 * manifests (`*.assets.json`): for an app synthesized without the asset metadata.
 */
const stagedFileOf = (cloudAssemblyDir: string, templateUrl: unknown) => {
  const key = /[0-9a-f]{64}\.json/.exec(JSON.stringify(templateUrl) ?? '')?.[0];
  if (key === undefined) return undefined;
  for (const name of readdirSync(cloudAssemblyDir).filter((file) => file.endsWith('.assets.json'))) {
    const { files = {} } = JSON.parse(readFileSync(join(cloudAssemblyDir, name), 'utf8')) as AssetManifest;
    for (const { source, destinations = {} } of Object.values(files))
      if (Object.values(destinations).some(({ objectKey }) => objectKey === key) && typeof source?.path === 'string')
        return source.path;
  }
  return undefined;
};

/**
 * The template of the nested stack `id` of `stackName`: the assembly's file its metadata names, else the one its
 * TemplateURL's object key is the asset of. Refused, naming it, when the assembly does not hold it (a template
 * written elsewhere, only in S3): the runner would not serve what it declares.
 */
export const nestedTemplateOf = (cloudAssemblyDir: string, stackName: string, id: string, resource: CfnResource) => {
  const { TemplateURL: url } = props(resource);
  const assetPath = resource.Metadata?.['aws:asset:path'];
  const file = typeof assetPath === 'string' ? assetPath : stagedFileOf(cloudAssemblyDir, url);
  if (file === undefined || !existsSync(join(cloudAssemblyDir, file)))
    throw new UnsupportedTemplateError(
      `${stackName}/${id}: a nested stack whose template is not in the cloud assembly (TemplateURL ${shown(url)}), so what it declares cannot be served`,
    );
  return JSON.parse(readFileSync(join(cloudAssemblyDir, file), 'utf8')) as unknown;
};

/** The values the parent gives the nested stack `id` (its resource's Parameters), by parameter name. */
export const givenParameters = (stackName: string, id: string, resource: CfnResource): [string, unknown][] => {
  const { Parameters: given = {} } = props(resource);
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new UnsupportedTemplateError(
      `${stackName}/${id}: a nested stack whose Parameters ${shown(given)} are not a map of values`,
    );
  return Object.entries(given);
};
