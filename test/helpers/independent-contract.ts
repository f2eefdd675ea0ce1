// Checks answers against openapi.yaml with openapi-backend (an OpenAPI 3.1 validator of its own, sharing no code
// with this project's schema handling), so the tests do not grade the project with its own code.
import { OpenAPIBackend } from 'openapi-backend';

const api = await new OpenAPIBackend({
  definition: new URL('../../openapi.yaml', import.meta.url).pathname,
  // quick: skip openapi-backend's check of the document itself, whose OpenAPI 3.1 meta-schema lacks
  // license.identifier; Redocly lints the document in `npm run lint`.
  quick: true,
  validate: true,
}).init();

interface Answer {
  statusCode: number;
  headers?: Record<string, unknown> | undefined;
  body: string;
}

/** Problems of an answer to `operationId` (by default POST /plants); empty when it conforms. */
export const contractViolations = (
  { statusCode, headers = {}, body }: Answer,
  operationId = 'createPlant',
): string[] => {
  const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (contentType !== 'application/json') return [`Content-Type is ${String(contentType)}, not application/json`];
  const result = api.validateResponse(JSON.parse(body), operationId, statusCode);
  return result.valid ? [] : (result.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
};

/** The same, for an answer received over HTTP. */
export const responseContractViolations = async (response: Response, operationId?: string) =>
  contractViolations(
    { statusCode: response.status, headers: Object.fromEntries(response.headers), body: await response.clone().text() },
    operationId,
  );
