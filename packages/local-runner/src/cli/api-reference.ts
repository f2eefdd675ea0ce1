// The API reference: GET /docs renders the project's OpenAPI document with Swagger UI, whose files come from
// node_modules (swagger-ui-dist), so the page works offline; its "Authorize" button takes the development token and
// "Try it out" sends requests to this runner. GET /openapi.yaml serves the document as written, and the page's one
// link to a document is that one. Neither needs a token, and neither exists on AWS.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { type RunnerPages, requestUrl } from '../gateway/listener.ts';

const swaggerUiDir = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));

const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title} API reference (local)</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <p style="font-family: sans-serif; margin: 1em 20px 0">The document as written: <a href="/openapi.yaml">GET /openapi.yaml</a></p>
  <div id="reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/reference.js"></script>
</body>
</html>
`;

// The document is given inline (`spec`), with this runner (as the request reached it) as its server: given by `url`,
// Swagger UI would link that copy under the title, beside a description that names GET /openapi.yaml.
// validatorUrl: null keeps Swagger UI from asking validator.swagger.io about the document (it would leave loopback).
const script = (document: Record<string, unknown>) => `window.ui = SwaggerUIBundle({
  spec: ${JSON.stringify(document)},
  dom_id: '#reference',
  validatorUrl: null,
  tryItOutEnabled: true,
  persistAuthorization: true,
});
`;

const send = (response: ServerResponse, contentType: string, body: string | Buffer) =>
  response.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(body);

/** The pages for `openApiPath`. */
export const apiReference = (openApiPath: string): RunnerPages => {
  const assets: Record<string, [string, string]> = {
    '/docs/swagger-ui.css': ['text/css; charset=utf-8', 'swagger-ui.css'],
    '/docs/swagger-ui-bundle.js': ['text/javascript; charset=utf-8', 'swagger-ui-bundle.js'],
  };
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET') return false;
    const { pathname } = requestUrl(request);
    const asset = assets[pathname];
    // Read at each request: an edited openapi.yaml shows at the next reload.
    if (pathname === '/openapi.yaml') send(response, 'application/yaml; charset=utf-8', readFileSync(openApiPath));
    else if (pathname === '/docs' || pathname === '/docs/') {
      const { info } = parseYaml(readFileSync(openApiPath, 'utf8')) as { info?: { title?: string } };
      send(response, 'text/html; charset=utf-8', page(info?.title ?? 'The API'));
    } else if (pathname === '/docs/reference.js') {
      const document = parseYaml(readFileSync(openApiPath, 'utf8')) as Record<string, unknown>;
      const servers = [{ url: `http://${request.headers.host}`, description: 'This local runner' }];
      send(response, 'text/javascript; charset=utf-8', script({ ...document, servers }));
    } else if (asset) send(response, asset[0], readFileSync(join(swaggerUiDir, asset[1])));
    else return false;
    return true;
  };
};
