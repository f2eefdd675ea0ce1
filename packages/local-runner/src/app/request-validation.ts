// A method's request validation as the template sets it ("Request validation for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-method-request-validation.html): its
// RequestValidator says what is checked, its RequestParameters which parameters are required, its RequestModels the
// JSON schema (draft 4) of the body for each content type, `$default` for any other.
import { type CfnResource, ofType, props, refOf, shown, UnsupportedTemplateError } from './cfn.ts';

export interface RequestValidation {
  /** The parameters that must be there and not blank (ValidateRequestParameters). */
  parameters: { from: 'header' | 'querystring' | 'path'; name: string }[];
  /** Each content type's JSON schema, draft 4 (ValidateRequestBody); `$default` for a type no other names. */
  models: Record<string, object>;
}

/** The models every REST API has ("Data models for REST APIs"): Empty, and Error. */
const builtInModels: Record<string, object> = {
  Empty: { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Empty Schema', type: 'object' },
  Error: {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'Error Schema',
    type: 'object',
    properties: { message: { type: 'string' } },
  },
};

/** A model's schema: by its Ref (the Model resource), or by its name (the API's Model of that name, or a built-in). */
const schemaOf = (value: unknown, resources: Record<string, CfnResource>, apiId: string, where: string): object => {
  const ref = refOf(value);
  const model =
    ref !== undefined
      ? resources[ref]
      : ofType(resources, 'AWS::ApiGateway::Model').find(
          ([, resource]) => props(resource).Name === value && refOf(props(resource).RestApiId) === apiId,
        )?.[1];
  if (model === undefined && typeof value === 'string' && builtInModels[value]) return builtInModels[value];
  if (model?.Type !== 'AWS::ApiGateway::Model')
    throw new UnsupportedTemplateError(`${where}: request model ${shown(value)}, not a model of the template`);
  const schema = props(model).Schema;
  const parsed: unknown = typeof schema === 'string' ? JSON.parse(schema) : schema;
  if (typeof parsed !== 'object' || parsed === null)
    throw new UnsupportedTemplateError(`${where}: request model ${shown(value)} has no schema`);
  // A schema may name another model by its URL (https://apigateway.amazonaws.com/restapis/{id}/models/{name}).
  if (JSON.stringify(parsed).includes('apigateway.amazonaws.com/restapis'))
    throw new UnsupportedTemplateError(`${where}: request model ${shown(value)} refers to another model`);
  return parsed;
};

/** The request validation of a method (its properties), or undefined when it has no validator. */
export const readRequestValidation = (
  properties: Record<string, unknown>,
  resources: Record<string, CfnResource>,
  apiId: string,
  where: string,
): RequestValidation | undefined => {
  const validatorId = refOf(properties.RequestValidatorId);
  if (properties.RequestValidatorId === undefined) return undefined;
  const validator = validatorId === undefined ? undefined : resources[validatorId];
  if (validator?.Type !== 'AWS::ApiGateway::RequestValidator')
    throw new UnsupportedTemplateError(`${where}: request validator ${shown(properties.RequestValidatorId)}`);
  const { ValidateRequestBody: body, ValidateRequestParameters: parameters } = props(validator);
  const required = Object.entries((properties.RequestParameters ?? {}) as Record<string, unknown>).filter(
    ([, isRequired]) => isRequired === true,
  );
  return {
    parameters:
      parameters === true
        ? required.map(([key]) => {
            const [, from, name] = /^method\.request\.(header|querystring|path)\.(.+)$/.exec(key) ?? [];
            if (!from || !name) throw new UnsupportedTemplateError(`${where}: request parameter ${key}`);
            return { from: from as 'header' | 'querystring' | 'path', name };
          })
        : [],
    models:
      body === true
        ? Object.fromEntries(
            Object.entries((properties.RequestModels ?? {}) as Record<string, unknown>).map(([type, model]) => [
              type.toLowerCase(),
              schemaOf(model, resources, apiId, where),
            ]),
          )
        : {},
  };
};
