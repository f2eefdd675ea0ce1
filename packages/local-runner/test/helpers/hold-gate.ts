// A gate on loopback that a function's invocation fetches (the custom runtime's HOLD_URL): it holds each request
// until it is opened, so that a test knows, as a fact, that the invocation is in flight.
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '../../src/http-server.ts';

/** A gate on loopback: holds each request until open(), then answers it and every later one at once. */
export const startGate = async () => {
  const held: ServerResponse[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let opened = false;
  const server = createServer((_request, response) => {
    if (opened) return void response.end('open');
    held.push(response);
    for (const waiter of waiters.filter(({ count }) => held.length >= count)) waiter.resolve();
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    /** Resolves once `count` requests are held. */
    holding: (count: number) =>
      new Promise<void>((resolve) => (held.length >= count ? resolve() : waiters.push({ count, resolve }))),
    open: () => {
      opened = true;
      for (const response of held.splice(0)) response.end('open');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
