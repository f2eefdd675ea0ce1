// What reading a CloudFormation template takes, shared by its readers (assembly.ts, rest-api.ts, http-api.ts,
// functions.ts), and the one-value JSON type (Scalar) the gateway reads in authorizer contexts too.
import { RunnerError } from '../errors.ts';

/** A JSON value API Gateway and CloudFormation take where they take one value: a string, a number or a boolean. */
export type Scalar = string | number | boolean;

export const isScalar = (value: unknown): value is Scalar => ['string', 'number', 'boolean'].includes(typeof value);

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/** The template has what the runner cannot reproduce faithfully; the message names the resource. */
export class UnsupportedTemplateError extends RunnerError {
  override name = 'UnsupportedTemplateError';
}

export const refOf = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null && 'Ref' in value && typeof value.Ref === 'string'
    ? value.Ref
    : undefined;

export const getAttOf = (value: unknown): [string, string] | undefined => {
  if (typeof value !== 'object' || value === null || !('Fn::GetAtt' in value)) return undefined;
  const att = value['Fn::GetAtt'];
  return Array.isArray(att) && att.length === 2 ? [String(att[0]), String(att[1])] : undefined;
};

export const props = (resource: CfnResource) => resource.Properties ?? {};

export const ofType = (resources: Record<string, CfnResource>, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** What a template value is, as a message names it: a string as it is, anything else (an intrinsic) as JSON. */
export const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A stage of an API: its name (the path's first segment; an HTTP API's `$default` has none), variables, and the id of
 * the API Gateway Deployment it serves (not the runner's deployment, gateway/deployment.ts).
 */
export interface Stage {
  name: string;
  variables: Record<string, string>;
  /** Its Deployment's logical id (the CDK changes it with each change to the API), or `local`. */
  deploymentId: string;
}

/** Where a REQUEST authorizer's identity source is read ("Identity sources" of a Lambda authorizer). */
export interface IdentitySource {
  from: 'header' | 'querystring' | 'stageVariable' | 'context';
  name: string;
}

/**
 * Refuses an API whose routes the template writes outside its route resources, which are what the runner reads: an
 * OpenAPI definition (`Body`, `BodyS3Location`, on "AWS::ApiGateway::RestApi" and "AWS::ApiGatewayV2::Api") or an
 * HTTP API's quick create (`Target`, `RouteKey`: "produces an API with an integration, a default catch-all route, and a
 * default stage"). On AWS the API has those routes; served without them, it would answer none.
 */
export const refuseRoutesOutsideResources = (api: CfnResource, apiId: string) => {
  const properties = props(api);
  for (const property of ['Body', 'BodyS3Location'])
    if (properties[property] !== undefined)
      throw new UnsupportedTemplateError(
        `${apiId}: ${property}, an OpenAPI definition of its routes, which the runner does not read (it serves the routes the template's resources declare)`,
      );
  for (const property of ['Target', 'RouteKey'])
    if (properties[property] !== undefined)
      throw new UnsupportedTemplateError(
        `${apiId}: ${property}, quick create of its route and integration, which the runner does not read (it serves the template's Route and Integration resources)`,
      );
};
