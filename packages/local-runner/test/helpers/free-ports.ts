// Ports for tests that choose their own: one held to be in use, or a range free at the time of asking.
import { readFileSync } from 'node:fs';
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

/**
 * The system's ephemeral ports (Linux's net.ipv4.ip_local_port_range): the local ports its outgoing connections take.
 * Where it cannot be read, the range IANA suggests (RFC 6335, 49152-65535).
 */
const ephemeralPorts = () => {
  try {
    const [low = 49_152, high = 65_535] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return { low, high };
  } catch {
    return { low: 49_152, high: 65_535 };
  }
};

/** The lowest port `freeRange` takes: above the well-known ports (RFC 6335: 0-1023) and the usual development ones. */
const lowestPort = 10_000;

/**
 * A port from which the next `count` are free now, outside the ephemeral range: a test then listens on them a few
 * seconds later, and in a suite of many files an outgoing connection of another test, given an ephemeral port by the
 * system, could have taken one meanwhile (a server given `--port` then fails to listen: EADDRINUSE).
 */
export const freeRange = async (count: number): Promise<number> => {
  const { low, high } = ephemeralPorts();
  // Below the ephemeral range, else above it (a system whose range starts low).
  const [from, to] = low - lowestPort > count ? [lowestPort, low - count] : [high + 1, 65_536 - count];
  for (;;) {
    const base = from + Math.floor(Math.random() * (to - from));
    const held = await Promise.all(Array.from({ length: count }, (_, index) => hold(base + index)));
    await Promise.all(held.map(release));
    if (held.every(Boolean)) return base;
  }
};
