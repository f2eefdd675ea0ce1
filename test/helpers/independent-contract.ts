// Checks answers against openapi.yaml with openapi-backend (an OpenAPI 3.1 validator of its own, sharing no code
// with this project's schema handling), so the end-to-end tests do not grade the project with its own code.
import { OpenAPIBackend } from 'openapi-backend';

const api = await new OpenAPIBackend({
  definition: new URL('../../openapi.yaml', import.meta.url).pathname,
  // quick: skip openapi-backend's check of the document itself, whose OpenAPI 3.1 meta-schema lacks
  // license.identifier; Redocly lints the document in `npm run lint`.
  quick: true,
  validate: true,
}).init();

/** Problems of an answer to `operationId` (by default POST /plants); empty when it conforms. */
export const independentContractViolations = async (
  response: Response,
  operationId = 'createPlant',
): Promise<string[]> => {
  const contentType = response.headers.get('content-type');
  if (contentType !== 'application/json') return [`Content-Type is ${contentType}`];
  const body: unknown = await response.clone().json();
  const result = api.validateResponse(body, operationId, response.status);
  return result.valid ? [] : (result.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
};
