// A request's body, read whole, for the servers the runner runs on loopback (the gateway, each Runtime API).
import type { Readable } from 'node:stream';

/** The client went away before its request was read whole: nothing to respond to, nothing the runner did wrong. */
export class ClientAbortedError extends Error {
  override name = 'ClientAbortedError';
}

/**
 * The body, or undefined when it is over `limit` bytes: past the limit it keeps reading (so the client can finish
 * sending, and read the answer) but keeps nothing.
 */
export const readBody = (request: Readable, limit: number) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    request.on('error', (error) => reject(new ClientAbortedError(error.message)));
  });
