// A method's request validation as the template sets it ("Request validation for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-method-request-validation.html): its
// RequestValidator says what is checked, its RequestParameters which parameters are required, its RequestModels the
// JSON schema (draft 4) of the body for each content type, `$default` for any other. A WebSocket API's models
// (AWS::ApiGatewayV2::Model) are read and flattened here too, for its routes' validation (websocket-api.ts).
import { type CfnResource, ofType, props, refOf, shown, UnsupportedTemplateError } from './cfn.ts';
import { booleanOf, names, referencedId, stringOf } from './values.ts';

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

/**
 * A Model's name: its `Name`; undefined when it has none, for then CloudFormation generates one ("AWS::ApiGateway::Model",
 * Name: "If you don't specify a name, AWS CloudFormation generates a unique physical ID"), which only its Ref gives: it
 * is not its logical id.
 */
const modelNameOf = (id: string, model: CfnResource) =>
  stringOf(props(model).Name, { resource: id, property: 'Name' }, undefined);

/**
 * Which models an API has: a REST API's (AWS::ApiGateway::Model, by RestApiId) or a WebSocket API's
 * (AWS::ApiGatewayV2::Model, by ApiId). Both are JSON Schema draft 4, and refer to each other by the same URL.
 */
interface ModelKind {
  type: 'AWS::ApiGateway::Model' | 'AWS::ApiGatewayV2::Model';
  apiProperty: 'RestApiId' | 'ApiId';
  apiType: string;
}
const restModels: ModelKind = {
  type: 'AWS::ApiGateway::Model',
  apiProperty: 'RestApiId',
  apiType: 'AWS::ApiGateway::RestApi',
};
const webSocketModels: ModelKind = {
  type: 'AWS::ApiGatewayV2::Model',
  apiProperty: 'ApiId',
  apiType: 'AWS::ApiGatewayV2::Api',
};

/** Whether the Model `id` is one of the API `apiId`'s. */
const ofThisApi = (id: string, resources: Record<string, CfnResource>, apiId: string, kind: ModelKind) =>
  names(
    props(resources[id] as CfnResource)[kind.apiProperty],
    apiId,
    resources,
    { resource: id, property: kind.apiProperty },
    [kind.apiType],
  );

/** The API's Model whose `Name` is `name` (a model without one cannot be named by text, only by its Ref). */
const modelNamed = (name: unknown, resources: Record<string, CfnResource>, apiId: string, kind = restModels) =>
  ofType(resources, kind.type).find(
    ([id, resource]) => modelNameOf(id, resource) === name && ofThisApi(id, resources, apiId, kind),
  );

/** In a model's URL resolved to text, where a Ref to a Model stands (its name, which may be generated). */
const modelRefMark = '\u0000Ref:';

/** A model's URL, `https://apigateway.amazonaws.com/restapis/{restapi_id}/models/{model_name}`, as API Gateway has it. */
const modelUrl = /^https:\/\/apigateway\.amazonaws\.com\/restapis\/([^/]+)\/models\/([^/]+)$/;

/**
 * The model a `$ref` names by its URL ("Data models for REST APIs": "To reference another model, use the model's URL,
 * https://apigateway.amazonaws.com/restapis/{restapi_id}/models/{model_name}"): a string, or an Fn::Join whose API id
 * is a Ref to this API and whose model name is a Ref to a Model (its name) or a literal, the `Name` of one. Another
 * API's model, or a literal that is only a model's logical id, is refused.
 */
const referencedModel = (
  ref: unknown,
  resources: Record<string, CfnResource>,
  apiId: string,
  where: string,
  kind: ModelKind,
) => {
  const join = (ref as { 'Fn::Join'?: unknown } | null)?.['Fn::Join'];
  const [separator, parts] = Array.isArray(join) ? (join as [unknown, unknown]) : [];
  const text =
    typeof ref === 'string'
      ? ref
      : typeof separator === 'string' && Array.isArray(parts)
        ? parts
            .map((part) => {
              if (typeof part === 'string') return part;
              const id = refOf(part);
              const type = resources[id ?? '']?.Type;
              // A REST API Model's Ref is its name (generated when it has no Name); an API's, its id (locally, its
              // logical id). A WebSocket API Model's Ref is its id ("AWS::ApiGatewayV2::Model", Return values), not
              // its name: such a URL is refused, as what API Gateway does with it is not documented.
              if (id === apiId) return id;
              if (id !== undefined && type === 'AWS::ApiGateway::Model') return `${modelRefMark}${id}`;
              return '\u0001';
            })
            .join(separator)
        : undefined;
  const [, restApiId, name = ''] = modelUrl.exec(text ?? '') ?? [];
  const refId = name.startsWith(modelRefMark) ? name.slice(modelRefMark.length) : undefined;
  const model =
    restApiId !== apiId
      ? undefined
      : refId === undefined
        ? modelNamed(name, resources, apiId, kind)
        : ofThisApi(refId, resources, apiId, kind)
          ? ([refId, resources[refId] as CfnResource] as [string, CfnResource])
          : undefined;
  if (!model)
    throw new UnsupportedTemplateError(
      `${where}: a model's $ref ${shown(ref)}, which names no model of this API (https://apigateway.amazonaws.com/restapis/{the API's Ref}/models/{the model's Ref, or its Name})`,
    );
  return model;
};

/**
 * A model's schema, flattened as API Gateway flattens models for validation: each `{"$ref": <a model's URL>}` replaced
 * by that model's schema (itself flattened, without its `$schema`); a model that refers to itself, directly or not,
 * is refused.
 */
const flattened = (
  [id, model]: [string, CfnResource],
  resources: Record<string, CfnResource>,
  apiId: string,
  where: string,
  kind: ModelKind,
  seen: string[] = [],
): Record<string, unknown> => {
  if (seen.includes(id))
    throw new UnsupportedTemplateError(
      `${where}: model ${[...seen, id].join(' -> ')} refers to itself, which cannot be flattened`,
    );
  const schema = props(model).Schema;
  const parsed: unknown = typeof schema === 'string' ? JSON.parse(schema) : schema;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UnsupportedTemplateError(`${where}: request model ${id} has no schema`);
  // A `#/...` pointer is into the schema it is in: inlined into another, it would point into that one.
  if (seen.length > 0 && /"\$ref"\s*:\s*"#/.test(JSON.stringify(parsed)))
    throw new UnsupportedTemplateError(
      `${where}: model ${id}, inlined into ${seen.at(-1)}, has a $ref into itself (#...)`,
    );
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== 'object' || value === null) return value;
    if ('$ref' in value && !(typeof value.$ref === 'string' && value.$ref.startsWith('#'))) {
      const { $schema: _, ...referenced } = flattened(
        referencedModel(value.$ref, resources, apiId, where, kind),
        resources,
        apiId,
        where,
        kind,
        [...seen, id],
      );
      return referenced;
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item)]));
  };
  return inline(parsed) as Record<string, unknown>;
};

/** A model's schema: by its Ref (the Model resource), or by its name (the API's Model of that name, or a built-in). */
const schemaOf = (value: unknown, resources: Record<string, CfnResource>, apiId: string, where: string): object => {
  if (typeof value === 'string') {
    const named = modelNamed(value, resources, apiId);
    if (named) return flattened(named, resources, apiId, where, restModels);
    if (builtInModels[value]) return builtInModels[value];
    throw new UnsupportedTemplateError(`${where}: request model ${value}, not a model of the template`);
  }
  const id = referencedId(value, resources, { resource: where, property: 'RequestModels' }, ['AWS::ApiGateway::Model']);
  return flattened([id, resources[id] as CfnResource], resources, apiId, where, restModels);
};

/**
 * The schema of the WebSocket API `apiId`'s model named `name` (a route's RequestModels names its models: "Request
 * validation for WebSocket APIs in API Gateway"), its `$ref`s to the API's other models flattened as a REST API's are.
 */
export const webSocketModelSchema = (
  name: unknown,
  resources: Record<string, CfnResource>,
  apiId: string,
  where: string,
): object => {
  const named = modelNamed(name, resources, apiId, webSocketModels);
  if (!named)
    throw new UnsupportedTemplateError(
      `${where}: request model ${shown(name)}, the Name of no model (AWS::ApiGatewayV2::Model) of this API`,
    );
  return flattened(named, resources, apiId, where, webSocketModels);
};

/** The request validation of a method (its properties), or undefined when it has no validator. */
export const readRequestValidation = (
  properties: Record<string, unknown>,
  resources: Record<string, CfnResource>,
  apiId: string,
  where: string,
  id: string,
): RequestValidation | undefined => {
  if (properties.RequestValidatorId === undefined) return undefined;
  const validatorId = referencedId(
    properties.RequestValidatorId,
    resources,
    { resource: id, property: 'RequestValidatorId' },
    ['AWS::ApiGateway::RequestValidator'],
  );
  const validator = props(resources[validatorId] as CfnResource);
  const body = booleanOf(
    validator.ValidateRequestBody,
    { resource: validatorId, property: 'ValidateRequestBody' },
    false,
  );
  const parameters = booleanOf(
    validator.ValidateRequestParameters,
    { resource: validatorId, property: 'ValidateRequestParameters' },
    false,
  );
  const required = Object.entries((properties.RequestParameters ?? {}) as Record<string, unknown>).filter(
    ([key, isRequired]) => booleanOf(isRequired, { resource: id, property: `RequestParameters.${key}` }, false),
  );
  return {
    parameters: parameters
      ? required.map(([key]) => {
          const [, from, name] = /^method\.request\.(header|querystring|path)\.(.+)$/.exec(key) ?? [];
          if (!from || !name) throw new UnsupportedTemplateError(`${where}: request parameter ${key}`);
          return { from: from as 'header' | 'querystring' | 'path', name };
        })
      : [],
    models: body
      ? Object.fromEntries(
          Object.entries((properties.RequestModels ?? {}) as Record<string, unknown>).map(([type, model]) => [
            type.toLowerCase(),
            schemaOf(model, resources, apiId, where),
          ]),
        )
      : {},
  };
};
