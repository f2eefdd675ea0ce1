// The in-process ceiling: what node:http can serve when a request goes straight into the createPlant handler, in one
// process (no gateway, no authorizer, no execution environments), against the same database. warm-paths.ts serves it
// for bench.ts; ceiling-serve.ts for gateway-ab.ts.
import { createServer } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { listenOnLoopback } from 'cdk-local-runner';
import { createPlantEvent, lambdaContext } from '../../test/helpers/events.ts';

type CreatePlant = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** As API Gateway sends a body with the API's binary media types: base64. */
export const asSent = (body: string) => ({ body: Buffer.from(body).toString('base64'), isBase64Encoded: true });

/** Serves `createPlant` on loopback: its URL, and the server. */
export const serveCeiling = async (createPlant: CreatePlant) => {
  const ceiling = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const headers = { 'Content-Type': String(request.headers['content-type']) };
      const event = createPlantEvent({ headers, ...asSent(Buffer.concat(chunks).toString()) });
      // Each invocation has its own context, counting down from the function's timeout as Lambda's does.
      const answer = await createPlant(event, lambdaContext('CreatePlantFunction', 10_000));
      response.writeHead(answer.statusCode, answer.headers as Record<string, string>).end(answer.body);
    });
  });
  return { url: await listenOnLoopback(ceiling), server: ceiling };
};
