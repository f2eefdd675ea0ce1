import type { AddressInfo, Server } from 'node:net';

/**
 * Starts `server` listening on 127.0.0.1 (port 0: any free one) and resolves with its base URL,
 * `http://127.0.0.1:<port>`; rejects when it cannot listen (a port in use).
 */
export const listenOnLoopback = (server: Server, port = 0): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
