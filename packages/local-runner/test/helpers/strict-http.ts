// Requests read by a strict HTTP/1.1 parser: Node's own client (llhttp, `insecureHTTPParser: false`), which refuses a
// response with two Content-Length values or with Content-Length beside Transfer-Encoding (RFC 9112 section 6.3), and
// two requests on one keep-alive connection, so that bytes a response left on it (a response desync) spoil the next.
import { Agent, request } from 'node:http';

export interface StrictAnswer {
  status: number;
  /** As the parser gave them: name, value, name, value... */
  rawHeaders: string[];
  body: Buffer;
}

export interface StrictExchange {
  /** The answer, or the parser's (or the connection's) error. */
  answer: StrictAnswer | { error: string };
  /** The request went on a connection an earlier request used. */
  reused: boolean;
}

/** One POST of `body` to `url` through `agent`, read strictly. */
export const strictPost = (agent: Agent, url: URL, body: Buffer | string, headers: Record<string, string> = {}) =>
  new Promise<StrictExchange>((resolve) => {
    const sent = request(url, { method: 'POST', agent, insecureHTTPParser: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', (error) => resolve({ answer: { error: error.message }, reused: sent.reusedSocket }));
      response.once('end', () =>
        resolve({
          answer: { status: response.statusCode ?? 0, rawHeaders: response.rawHeaders, body: Buffer.concat(chunks) },
          reused: sent.reusedSocket,
        }),
      );
    });
    sent.once('error', (error) => resolve({ answer: { error: error.message }, reused: sent.reusedSocket }));
    sent.end(body);
  });

/** An agent that keeps one connection per origin alive, so that a second request goes on the first's connection. */
export const oneConnection = () => new Agent({ keepAlive: true, maxSockets: 1 });

/** The values of the header `name` (any case) in `rawHeaders`. */
export const headerValues = (rawHeaders: string[], name: string) =>
  rawHeaders.filter((_, index) => index % 2 === 1 && rawHeaders[index - 1]?.toLowerCase() === name.toLowerCase());
