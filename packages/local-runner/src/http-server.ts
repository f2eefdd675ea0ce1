// What every HTTP server of the runner (gateway, Runtime API, database front, issuer, unserved services) does alike:
// it listens on 127.0.0.1, answers only the hosts it serves (loopback names, `--allowed-host`), and answers every
// request, whatever its bytes, without ending the process.
import { type Server as HttpServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import type { Duplex, Readable } from 'node:stream';

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

/** What the host and Origin checks read of a request: its target and headers (an HTTP/1.1 or an HTTP/2 one). */
type AddressedRequest = Pick<IncomingMessage, 'url' | 'headers'>;

/**
 * The host a request names (RFC 9110 section 7.2): the authority of an absolute-form target, which RFC 9112 section
 * 3.2.2 says wins over `Host`, else the `Host` header, else (HTTP/2, RFC 9113 section 8.3.1) its `:authority`;
 * undefined when it names none (HTTP/1.0 without `Host`).
 */
export const requestHost = (request: AddressedRequest): string | undefined => {
  const target = request.url ?? '';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      return new URL(target).host;
    } catch {
      return target;
    }
  }
  const authority = request.headers[':authority'];
  return request.headers.host ?? (typeof authority === 'string' ? authority : undefined);
};

/**
 * The name a host names, lower case, without its port (`Host: localhost:3000` is `localhost`; `[::1]:3000` is
 * `[::1]`): Vite's `server.allowedHosts` and webpack-dev-server's `allowedHosts` check the name alone too. A loopback
 * server is reached on its own port; a page that rebinds a name to 127.0.0.1 sends that name, whatever the port.
 */
const hostName = (host: string) => host.toLowerCase().replace(/:\d*$/, '');

/**
 * Whether a request naming `host` is the runner's to answer: a loopback name or address, or one `allowed` names
 * (`--allowed-host`; a name starting with `.` takes the name and its subdomains, as Vite and webpack-dev-server read
 * it). Loopback: `localhost` and the names under `.localhost`, which RFC 6761 section 6.3 reserves for loopback and
 * browsers resolve there themselves (so no DNS answer can rebind them), and `127.0.0.1` and `[::1]`, which the runner
 * listens on or a client may connect to. Anything else is another site's name: a page that rebinds its own name to
 * 127.0.0.1 (DNS rebinding, which Vite's and webpack-dev-server's host checks exist for) is refused. A request naming
 * no host (HTTP/1.0 without `Host`) names no other site; an HTTP/1.1 one is refused before (RFC 9112 section 3.2).
 */
export const hostIsServed = (host: string | undefined, allowed: readonly string[] = []) => {
  if (host === undefined) return true;
  const name = hostName(host);
  if (name === 'localhost' || name === '127.0.0.1' || name === '[::1]') return true;
  if (/^([a-z0-9-]+\.)+localhost$/.test(name)) return true;
  return allowed.some((given) => {
    const allowedName = hostName(given);
    return allowedName.startsWith('.')
      ? name === allowedName.slice(1) || name.endsWith(allowedName)
      : name === allowedName;
  });
};

/**
 * Why a request naming `host` is refused, for a 403's message: the host, and how to serve it when the server takes
 * `--allowed-host` (the gateway; the database and the issuer answer loopback alone).
 */
export const hostRefusal = (host: string, { optionServesIt = true } = {}) =>
  `Host ${JSON.stringify(host)} is not served: the local runner answers loopback names (localhost, 127.0.0.1, [::1]) ` +
  (optionServesIt
    ? `and the names given with --allowed-host, against DNS rebinding; start it with --allowed-host ${hostName(host) || 'HOST'} to serve this one`
    : 'alone here, against DNS rebinding');

/**
 * Why a local service (SQS, SNS, Lambda's Invoke, ...) refuses `request`, if it does: a host not loopback's, or a web
 * page's request (an `Origin`: an SDK sends none, and the database refuses them too: database/loopback-only.ts).
 * `service` names who answers in the message.
 */
export const sdkCallRefusal = (request: AddressedRequest, service: string) => {
  const host = requestHost(request);
  if (!hostIsServed(host)) return hostRefusal(host ?? '', { optionServesIt: false });
  const { origin } = request.headers;
  return origin === undefined
    ? undefined
    : `a request from a web page (Origin ${origin}): ${service} answers SDKs alone`;
};

/** How long a refused connection's remaining bytes are read and dropped, at most, before it is closed anyway. */
const lingerMs = 5_000;

/**
 * Writes `answer` (a whole HTTP/1.1 response) to a connection whose request is refused before it was read, and closes
 * it as RFC 9112 section 9.6 advises: half-closed first, the rest of what the client sends read and dropped, so that
 * the client reads the answer. Closed at once, the connection would be reset while the client still sends a body, and
 * a reset can take the answer away before the client reads it.
 */
const answerAndClose = (socket: Duplex, answer: string | Buffer) => {
  // The HTTP parser's listener goes: what follows is the rest of a refused request.
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  socket.end(answer);
  setTimeout(() => socket.destroy(), lingerMs).unref();
};

/** Node's statuses for a request its parser refuses: headers over its limit 431, too slow 408, anything else 400. */
const malformedStatus = (error: NodeJS.ErrnoException) =>
  error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;

/** A whole HTTP/1.1 answer, as bytes to write to a socket: `status`, `headers`, `body`, and the connection closing. */
export const rawResponse = (status: number, headers: [string, string][] = [], body: string | Buffer = '') =>
  Buffer.concat([
    Buffer.from(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
        ...headers.map(([name, value]) => `${name}: ${value}`),
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    ),
    Buffer.from(body),
  ]);

/** What a server answers itself, for what it serves no handler for; each has a plain default. */
interface OwnAnswers {
  /** To CONNECT: 405 by default. */
  tunnel?: (request: IncomingMessage) => Buffer;
  /** To a request Node's parser refuses, with the status it calls for (malformedStatus): an empty body by default. */
  malformed?: (status: number, error: NodeJS.ErrnoException) => Buffer;
}

/**
 * Makes `server` answer every request, whatever its bytes: CONNECT (a proxy tunnel, RFC 9110 section 9.3.6; no server
 * of the runner is a proxy), which Node's HTTP server otherwise drops without a word, and a request its parser refuses
 * (400, 431, 408), which Node answers and resets at once; both closed as `answerAndClose` closes.
 */
export const respondingToEveryRequest = <T extends Server>(
  server: T,
  { tunnel = () => rawResponse(405), malformed = (status) => rawResponse(status) }: OwnAnswers = {},
): T =>
  server
    .on('connect', (request: IncomingMessage, socket: Duplex) => {
      request.resume();
      answerAndClose(socket, tunnel(request));
    })
    .on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      answerAndClose(socket, malformed(malformedStatus(error), error));
    });

/**
 * Calls `send` (a refusal) once the request's body has been read and dropped: answered while the client still sends,
 * with the connection closing, the connection would be reset, and a reset can take the answer away before the client
 * reads it (RFC 9112 section 9.6).
 */
export const afterBody = (request: Readable, response: { destroy(): unknown }, send: () => void) => {
  if (request.readableEnded) return send();
  request.once('error', () => response.destroy());
  request.once('end', send);
  request.resume();
};

/** A server that stops without resetting a connection that reached it (drainingServer). */
export interface DrainingServer {
  readonly server: HttpServer;
  /** Whether a stop has begun: a request read from then on is the server's handler's to refuse (503). */
  readonly stopping: boolean;
  /**
   * Stops: keeps listening while requests are in flight (each answered with `Connection: close`), closes the listener
   * once none is and a whole turn of the event loop took no connection and read no request, and resolves once every
   * connection has ended.
   */
  stop(): Promise<void>;
  /** Stops at once (the grace period is over): the listener closed and every connection ended, answered or not. */
  cutOff(): void;
}

/** Resolves after a whole turn of the event loop: its poll phase, where connections are taken and read, included. */
const wholeTurn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Makes `server` stop without resetting what reached it. Node's `server.close()` closes the listening socket at once,
 * and the kernel resets the connections it accepted that the server had not taken yet (the listen backlog); it also
 * ends the server's idle connections (Node's HTTP documentation, `server.close()`), those whose request the server
 * has not read yet among them. Instead, `stop()` keeps listening until everything that reached the server has been
 * read and answered: requests in flight finish, with `Connection: close` (RFC 9112 section 9.6), and the server's
 * handler refuses the ones it reads from then on (503, RFC 9110 section 15.6.4), a refusal the client can read and
 * act on where a reset leaves it to guess. `onStop` runs as the stop begins (closing upgraded connections). Called
 * once the server's own listeners are added.
 */
export const drainingServer = (
  server: HttpServer,
  { onStop = () => undefined }: { onStop?: () => void } = {},
): DrainingServer => {
  let stopping = false;
  let cut = false;
  /** Responses not yet ended, and upgraded connections (WebSocket) not yet closed: what a stop waits for. */
  const responses = new Set<ServerResponse>();
  const upgrades = new Set<Duplex>();
  const inFlight = () => responses.size + upgrades.size;
  /** Connections taken and requests read, counted to see a whole turn with none. */
  let arrivals = 0;
  let onIdle: () => void = () => undefined;
  const track = <T extends ServerResponse | Duplex>(held: Set<T>, item: T) => {
    arrivals += 1;
    held.add(item);
    item.once('close', () => {
      held.delete(item);
      if (inFlight() === 0) onIdle();
    });
  };
  server.on('connection', () => (arrivals += 1));
  // A server that takes upgrades has its listener by now; one that has none must not get one (Node would then pass
  // its upgrade requests to it alone, instead of answering them as any request).
  if (server.listenerCount('upgrade') > 0)
    server.on('upgrade', (_request: IncomingMessage, socket: Duplex) => track(upgrades, socket));
  // Before the server's own listener, so that a response the listener ends at once is counted before it ends.
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (stopping) response.shouldKeepAlive = false;
    track(responses, response);
  });
  const drained = async () => {
    for (;;) {
      if (inFlight() > 0) await new Promise<void>((resolve) => (onIdle = resolve));
      const seen = arrivals;
      await wholeTurn();
      if (cut || (arrivals === seen && inFlight() === 0)) return;
    }
  };
  return {
    server,
    get stopping() {
      return stopping;
    },
    stop: async () => {
      stopping = true;
      for (const response of responses) if (!response.headersSent) response.shouldKeepAlive = false;
      onStop();
      const ended = new Promise<void>((resolve) => server.once('close', () => resolve()));
      await drained();
      if (server.listening) server.close();
      await ended;
    },
    cutOff: () => {
      cut = true;
      if (server.listening) server.close();
      server.closeAllConnections();
      for (const socket of upgrades) socket.destroy();
      onIdle();
    },
  };
};
