// Ports for tests that choose their own: one held to be in use, or a range free at the time of asking.
import { type AddressInfo, createServer, type Server } from 'node:net';

/** Listens on `port` (0: any) on 127.0.0.1; undefined when it is in use. */
export const hold = (port: number) =>
  new Promise<Server | undefined>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });

/** Stops listening on what `hold` held. */
export const release = (server: Server | undefined) =>
  new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));

/** The port `server` listens on. */
export const portOf = (server: Server) => (server.address() as AddressInfo).port;

/** A port from which the next `count` are free now (the system's choice for the first). */
export const freeRange = async (count: number): Promise<number> => {
  for (;;) {
    const first = (await hold(0)) as Server;
    const base = portOf(first);
    const rest = await Promise.all(Array.from({ length: count - 1 }, (_, index) => hold(base + index + 1)));
    await Promise.all([first, ...rest].map(release));
    if (rest.every(Boolean)) return base;
  }
};
