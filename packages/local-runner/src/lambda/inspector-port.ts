// The port a debugged function's inspector listens on (`--inspect`), chosen by the runner before the function starts:
// Node's inspector, given a port in use, says so on the function's output and runs without one, while the banner
// would name the port it was asked for. The runner takes a port that is free instead, and names that one.
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { RunnerError } from '../errors.ts';

/** `port` (0: any) on 127.0.0.1, where the inspector listens, if it is free: listened on and closed again. */
const freeAt = (port: number) =>
  new Promise<number | undefined>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });

/** How many ports from the one asked for are tried. */
const tries = 100;

/** The first free port on 127.0.0.1 from `from` on (0: any free one); refused when none of the next `tries` is. */
export const freeInspectorPort = async (from: number): Promise<number> => {
  for (let port = from; port < from + tries && port <= 65_535; port += 1) {
    const bound = await freeAt(port);
    if (bound !== undefined) return bound;
    if (from === 0) break;
  }
  throw new RunnerError(
    `--inspect: no port ${from === 0 ? '' : `from ${from} to ${from + tries - 1} `}is free on 127.0.0.1 for the inspector: choose another with --inspect-port N`,
  );
};
