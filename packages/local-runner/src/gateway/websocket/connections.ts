// A WebSocket API's open connections, by id: what its events and its @connections API read of each (who, since when,
// what the authorizer allowed), its socket, and the quotas that close it (idle 10 minutes, 2 hours at most). Kept by
// the API's listener, across reloads: a connection outlives the deployment it was opened on.

import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Stage } from '../../app/cfn.ts';
import { webSocketQuotas } from '../../app/websocket-api.ts';
import type { IamCaller } from '../sigv4.ts';

/** What API Gateway knows of a connection: the `requestContext` of each of its events, and @connections' GET. */
export interface ConnectionContext {
  connectionId: string;
  connectedAt: number;
  sourceIp: string;
  userAgent: string | undefined;
  stage: Stage;
  apiId: string;
  domainName: string;
  /** What the `$connect` authorizer allowed (its principal and context), given to every later event. */
  authorizer: Record<string, unknown> | undefined;
  /** The caller whose signature AWS_IAM on `$connect` checked, in every event's `identity`. */
  iam?: IamCaller | undefined;
}

export interface Connection extends ConnectionContext {
  socket: WebSocket;
  /** The TCP connection under `socket`, ended by the gateway's side when it closes the connection. */
  transport: Duplex;
  lastActiveAt: number;
  /** The close the gateway made (@connections' DELETE, a quota), which `$disconnect` is told of; else the client's. */
  closedBy?: { code: number; reason: string };
}

/** The close code of a connection the gateway ends (idle, too old, the runner stopping): RFC 6455 7.4.1, going away. */
const goingAway = 1001;

export class Connections {
  readonly #open = new Map<string, Connection>();
  /** Once every connection is closed (the runner stopping), one that opens after (its $connect ran on) closes too. */
  #closing = false;

  /**
   * Keeps `connection` until its socket closes; closes it once idle for the quota's time (each message it sends
   * restarts that clock) or open for the longest time a connection may be.
   */
  add(context: ConnectionContext, socket: WebSocket, transport: Duplex) {
    const connection: Connection = { ...context, socket, transport, lastActiveAt: Date.now() };
    this.#open.set(context.connectionId, connection);
    const idle = setTimeout(() => this.close(connection, goingAway, 'Idle timeout'), webSocketQuotas.idleTimeoutMs);
    const tooOld = setTimeout(
      () => this.close(connection, goingAway, 'Maximum connection duration'),
      webSocketQuotas.maxDurationMs,
    );
    idle.unref();
    tooOld.unref();
    socket.on('message', () => {
      connection.lastActiveAt = Date.now();
      idle.refresh();
    });
    socket.once('close', () => {
      clearTimeout(idle);
      clearTimeout(tooOld);
      this.#open.delete(context.connectionId);
    });
    if (this.#closing) this.#goAway(connection);
    return connection;
  }

  /** The open connection `id`, or undefined once it is gone (closed or closing, or never opened). */
  get(id: string) {
    const connection = this.#open.get(id);
    return connection && connection.socket.readyState === connection.socket.OPEN ? connection : undefined;
  }

  /**
   * Closes `connection` from the gateway's side (@connections' DELETE, a quota): gone at once, as AWS's
   * DeleteConnection disconnects the client. The close frame is sent, then the TCP connection ended as soon as the
   * frame is written, without waiting for the client's answer (a client that ignores it sends nothing more that a
   * route gets: the pipeline routes no message once the socket is closing). `$disconnect` is told `code` and
   * `disconnectReason` (by default the frame's reason).
   */
  close(connection: Connection, code: number, reason: string, disconnectReason = reason) {
    this.#open.delete(connection.connectionId);
    if (connection.socket.readyState !== connection.socket.OPEN) return;
    connection.closedBy = { code, reason: disconnectReason };
    // Without per-message compression (the server's default) `ws` writes the close frame to the transport at once:
    // ending the transport queues its FIN after the frame, and once both are written the transport is destroyed.
    connection.socket.close(code, reason);
    const { transport } = connection;
    transport.end(() => transport.destroy());
  }

  /** Closes every connection (the runner stopping): a close frame, then the socket ended if the client is slow. */
  closeAll() {
    this.#closing = true;
    for (const connection of [...this.#open.values()]) this.#goAway(connection);
  }

  #goAway(connection: Connection) {
    this.close(connection, goingAway, 'Going away');
    setTimeout(() => connection.socket.terminate(), 1_000).unref();
  }
}
