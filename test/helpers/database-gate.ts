// A gate in front of a DynamoDB endpoint, for tests that need a request held inside a function as a fact: closed, it
// takes each request and holds it (counting it); opened, it forwards the held ones and every later one. It records
// the action of each request (the benchmark counts a create's DynamoDB requests with it).
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { listenOnLoopback } from 'cdk-local-runner';

export interface DatabaseGate {
  /** Point the functions here (AWS_ENDPOINT_URL_DYNAMODB). */
  endpoint: string;
  /** Where requests go once forwarded. */
  forwardTo(endpoint: string): void;
  /** The DynamoDB action (X-Amz-Target) of every request it received, in order; `.length = 0` clears it. */
  actions: string[];
  /** Resolves once `count` requests are held. */
  holding(count: number): Promise<void>;
  /** Forwards the held requests and every later one. */
  open(): void;
  /** Holds every later request (closed again). */
  hold(): void;
  /** Stops listening: connections are refused until `listen()`. */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

/** The gates started and not closed yet, for closeGates. */
const gates = new Set<DatabaseGate>();

/**
 * Closes every gate still open (a file's afterEach or afterAll): a test that fails before its own `close()` leaves no
 * server listening, which would keep the jest process (or worker) from exiting.
 */
export const closeGates = async () => {
  for (const gate of [...gates]) await gate.close();
};

export const startDatabaseGate = async (): Promise<DatabaseGate> => {
  let target = '';
  let isOpen = false;
  const held: (() => void)[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse) => {
    const upstream = request(
      `${target}${incoming.url}`,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    upstream.end(body);
  };

  const actions: string[] = [];
  const server = createServer(async (incoming, outgoing) => {
    actions.push(String(incoming.headers['x-amz-target']));
    const body = await buffer(incoming);
    if (isOpen) {
      forward(incoming, body, outgoing);
      return;
    }
    held.push(() => forward(incoming, body, outgoing));
    for (const waiter of waiters.filter(({ count }) => held.length >= count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const endpoint = await listenOnLoopback(server);
  const port = Number(new URL(endpoint).port);
  const stopListening = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };

  const gate: DatabaseGate = {
    endpoint,
    actions,
    forwardTo: (endpoint) => {
      target = endpoint;
    },
    holding: (count) =>
      held.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    open: () => {
      isOpen = true;
      for (const release of held.splice(0)) release();
    },
    hold: () => {
      isOpen = false;
    },
    refuse: stopListening,
    listen: async () => {
      await listenOnLoopback(server, port);
    },
    close: async () => {
      gates.delete(gate);
      if (server.listening) await stopListening();
    },
  };
  gates.add(gate);
  return gate;
};
