import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APIGatewayProxyWebsocketEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway-websocket';
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { afterAll, describe, expect, test } from '@jest/globals';
import { webSocketProxyEventSchema } from 'test-support/test-run';
import { synthesizeWebSocketApp } from '../../fixtures/websocket-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';
import { upgradeStatus } from '../../helpers/upgrade-status.ts';

/** The node_modules folder this package's dependencies are installed in (the SDK's clients among them). */
const installedPackages = join(
  dirname(fileURLToPath(import.meta.resolve('@aws-sdk/client-dynamodb/package.json'))),
  '../..',
);
const served = servedBeforeAll(synthesizeWebSocketApp, { runtimeSdk: installedPackages });

const addressOf = (id: string) => served.urlOf(id);
const wsUrl = (id: string, path: string) => `${addressOf(id).replace(/^http:/, 'ws:')}${path}`;

/** A client, every message it got, and its close. */
interface Client {
  socket: WebSocket;
  messages: string[];
  /** The first message from now on (or already received and not yet taken) that `accept` accepts. */
  next(accept?: (message: string) => boolean): Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

const clients: Client[] = [];
afterAll(() => {
  for (const { socket } of clients) socket.close();
});

/** A connection, open (rejects when refused). */
const open = (url: string, headers: Record<string, string> = {}) =>
  new Promise<Client>((resolve, reject) => {
    const socket = new WebSocket(url, { headers } as unknown as string[]);
    const messages: string[] = [];
    const waiting: { accept: (message: string) => boolean; resolve: (message: string) => void }[] = [];
    const taken = new Set<number>();
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      socket.addEventListener('close', ({ code, reason }) => done({ code, reason })),
    );
    socket.addEventListener('message', ({ data }) => {
      const message = String(data);
      messages.push(message);
      const waiter = waiting.find(({ accept }) => accept(message));
      if (waiter) {
        waiting.splice(waiting.indexOf(waiter), 1);
        taken.add(messages.length - 1);
        waiter.resolve(message);
      }
    });
    const client: Client = {
      socket,
      messages,
      closed,
      next: (accept = () => true) => {
        const index = messages.findIndex((message, at) => !taken.has(at) && accept(message));
        if (index >= 0) {
          taken.add(index);
          return Promise.resolve(messages[index] as string);
        }
        return new Promise((resolveMessage) => waiting.push({ accept, resolve: resolveMessage }));
      },
    };
    socket.addEventListener('open', () => {
      clients.push(client);
      resolve(client);
    });
    socket.addEventListener('error', () => reject(new Error(`${url}: refused`)));
  });

/** A client that speaks RFC 6455's frames itself and never answers a close frame: what it read, and its end. */
interface RawClient {
  /** Sends a text frame, masked (RFC 6455 section 5.3: a client masks every frame). */
  send(text: string): void;
  /** The payload of the first frame of `opcode` (1 text, 8 close) not yet taken, once it has come. */
  frame(opcode: number): Promise<Buffer>;
  /** Resolves once the server has ended the TCP connection. */
  ended: Promise<void>;
}

const rawClients: { destroy: () => void }[] = [];
afterAll(() => {
  for (const client of rawClients) client.destroy();
});

/** The frames a server sends (RFC 6455 section 5.2, unmasked), parsed as the bytes come, each taken once. */
const serverFrames = () => {
  const frames: { opcode: number; payload: Buffer }[] = [];
  const waiting: { opcode: number; resolve: (payload: Buffer) => void }[] = [];
  let buffered = Buffer.alloc(0);
  const take = () => {
    for (const waiter of [...waiting]) {
      const index = frames.findIndex(({ opcode }) => opcode === waiter.opcode);
      if (index < 0) continue;
      const [found] = frames.splice(index, 1);
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve((found as { payload: Buffer }).payload);
    }
  };
  /** One frame at the start of `buffered`, taken off it; false when it is not all there yet. */
  const readFrame = () => {
    if (buffered.length < 2) return false;
    const short = (buffered[1] as number) & 0x7f;
    const start = short === 126 ? 4 : short === 127 ? 10 : 2;
    if (buffered.length < start) return false;
    const length =
      short === 126 ? buffered.readUInt16BE(2) : short === 127 ? Number(buffered.readBigUInt64BE(2)) : short;
    if (buffered.length < start + length) return false;
    frames.push({ opcode: (buffered[0] as number) & 0x0f, payload: buffered.subarray(start, start + length) });
    buffered = buffered.subarray(start + length);
    return true;
  };
  return {
    push: (bytes: Buffer) => {
      buffered = Buffer.concat([buffered, bytes]);
      while (readFrame());
      take();
    },
    frame: (opcode: number) =>
      new Promise<Buffer>((resolve) => {
        waiting.push({ opcode, resolve });
        take();
      }),
  };
};

/** A short text frame as a client sends it, masked (RFC 6455 section 5.3). */
const maskedText = (text: string) => {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('a short frame only');
  const mask = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([
    Buffer.from([0x81, 0x80 | payload.length]),
    mask,
    payload.map((byte, index) => byte ^ (mask[index % 4] as number)),
  ]);
};

/** A raw client connected to `url` (a 101 to its opening handshake, RFC 6455 section 4.1), `headers` sent. */
const openRaw = (url: string, headers: Record<string, string>) =>
  new Promise<RawClient>((resolve, reject) => {
    const target = new URL(url);
    const socket = connect(Number(target.port), target.hostname);
    rawClients.push(socket);
    socket.on('error', () => undefined);
    const frames = serverFrames();
    const client: RawClient = {
      send: (text) => socket.write(maskedText(text)),
      frame: frames.frame,
      ended: new Promise<void>((done) => socket.once('close', () => done())),
    };
    // The handshake's answer, until its end; then frames.
    let head: Buffer | undefined = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (head === undefined) return frames.push(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const rest = head.subarray(end + 4);
      head = undefined;
      if (!status.startsWith('HTTP/1.1 101 ')) return reject(new Error(`${url}: ${status}`));
      resolve(client);
      frames.push(rest);
    });
    const lines = [
      `GET ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${Buffer.from('raw client key!!').toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });

/** An event a function got, as much of it as the tests read by name. */
type SeenEvent = Record<string, unknown> & {
  requestContext: {
    connectionId: string;
    routeKey: string;
    connectedAt: number;
    requestTimeEpoch: number;
    requestId: string;
    messageId?: string;
  };
};

/** The events ProbeFunction or AuthorizerFunction logged (`EVENT {...}`), parsed. */
const loggedEvents = (functionId: string) =>
  served.functionLog.lines
    .filter((line) => line.startsWith(`${functionId}: `) && line.includes('EVENT {'))
    .map((line) => JSON.parse(line.slice(line.indexOf('EVENT {') + 'EVENT '.length)) as SeenEvent);

/** The event ProbeFunction logged for `connectionId`'s `routeKey`, once it has. */
const eventOf = async (connectionId: string, routeKey: string) => {
  const matches = (line: string) =>
    line.includes(`"connectionId":"${connectionId}"`) && line.includes(`"routeKey":"${routeKey}"`);
  await served.functionLog.seen(new RegExp(`EVENT .*"routeKey":"${routeKey.replace('$', '\\$')}"`));
  while (!served.functionLog.lines.some((line) => line.startsWith('ProbeFunction: ') && matches(line)))
    await served.functionLog.next(/EVENT/);
  return loggedEvents('ProbeFunction').find(
    (event) => event.requestContext.connectionId === connectionId && event.requestContext.routeKey === routeKey,
  ) as SeenEvent;
};

/** A probe client, allowed by the authorizer, with its connection id (from its $default route response). */
const probeClient = async () => {
  const client = await open(wsUrl('Probe', '/live?tenant=acme'), { Auth: 'allow' });
  client.socket.send('not json: the $default route');
  const echoed = JSON.parse(await client.next()) as { requestContext: { connectionId: string } };
  return { client, connectionId: echoed.requestContext.connectionId };
};

/** @connections of the Probe API's stage, reached by the SDK at the runner's own address. */
const management = () =>
  new ApiGatewayManagementApiClient({
    endpoint: `${addressOf('Probe')}/live`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

describe('the events, as Powertools parser schema and the mapping reference give them', () => {
  test('$connect: headers and query string, the connection context, what the authorizer allowed', async () => {
    const { connectionId } = await probeClient();
    const event = await eventOf(connectionId, '$connect');
    // Powertools' schema is written from the authorizer's event (its `type` and `methodArn`): the proxy event has the
    // rest of it.
    expect(webSocketProxyEventSchema.safeParse(event).error).toBeUndefined();
    expect(event).toMatchObject({
      headers: { Auth: 'allow' },
      multiValueHeaders: { Auth: ['allow'] },
      queryStringParameters: { tenant: 'acme' },
      multiValueQueryStringParameters: { tenant: ['acme'] },
      isBase64Encoded: false,
      requestContext: {
        routeKey: '$connect',
        eventType: 'CONNECT',
        messageDirection: 'IN',
        stage: 'live',
        apiId: 'Probe',
        domainName: 'Probe.execute-api.us-east-1.amazonaws.com',
        connectionId,
        identity: { sourceIp: '127.0.0.1' },
        authorizer: { principalId: 'ana', tenant: 'acme', level: '3' },
      },
    });
    expect(event.requestContext.requestTimeEpoch).toBeGreaterThanOrEqual(event.requestContext.connectedAt);
    expect(event).not.toHaveProperty('body');
    // One request: its authorizer's event carries the same request id.
    const asked = loggedEvents('AuthorizerFunction').find((seen) => seen.requestContext.connectionId === connectionId);
    expect(asked?.requestContext.requestId).toBe(event.requestContext.requestId);
  });

  test('a message: its route, a message id, its body; the authorizer context on it too', async () => {
    const { client, connectionId } = await probeClient();
    client.socket.send('{"message":{"action":"nothing"},"n":1}');
    const event = JSON.parse(await client.next()) as SeenEvent;
    expect(event).toMatchObject({
      body: '{"message":{"action":"nothing"},"n":1}',
      isBase64Encoded: false,
      requestContext: {
        routeKey: '$default',
        eventType: 'MESSAGE',
        connectionId,
        authorizer: { principalId: 'ana', tenant: 'acme' },
      },
    });
    expect(event.requestContext.messageId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(event).not.toHaveProperty('headers');
    expect(webSocketProxyEventSchema.safeParse(event).error).toBeUndefined();
  });

  test('$disconnect: after the client closes, with its status code and reason', async () => {
    const { client, connectionId } = await probeClient();
    client.socket.close(4000, 'bye');
    const event = await eventOf(connectionId, '$disconnect');
    expect(webSocketProxyEventSchema.safeParse(event).error).toBeUndefined();
    expect(event.requestContext).toMatchObject({
      eventType: 'DISCONNECT',
      disconnectStatusCode: 4000,
      disconnectReason: 'bye',
      connectionId,
    });
  });

  test("the authorizer's event: type REQUEST and the $connect ARN, the whole schema", async () => {
    await probeClient();
    const [event] = loggedEvents('AuthorizerFunction');
    expect(APIGatewayProxyWebsocketEventSchema.safeParse(event).error).toBeUndefined();
    expect(event).toMatchObject({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:Probe/live/$connect',
      stageVariables: {},
    });
  });
});

describe('$connect: refused before the upgrade with the status AWS gives', () => {
  test.each([
    ['no Auth header (an identity source missing): 401, the authorizer not invoked', {}, '?tenant=acme', 401],
    ['no tenant query string: 401', { Auth: 'allow' }, '', 401],
    ['the authorizer throws Unauthorized: 401', { Auth: 'nobody' }, '?tenant=acme', 401],
    ['the policy denies: 403', { Auth: 'deny' }, '?tenant=acme', 403],
    ["the $connect function's own 418", { Auth: 'allow' }, '?tenant=acme&refuse=418', 418],
  ])('%s', async (_case, headers, query, status) => {
    expect((await upgradeStatus(wsUrl('Probe', `/live${query}`), headers)).status).toBe(status);
  });

  test('an identity source missing never reaches the authorizer; an allowed one is upgraded (101)', async () => {
    const before = served.api.invocations('AuthorizerFunction');
    expect((await upgradeStatus(wsUrl('Probe', '/live'), { Auth: 'allow' })).status).toBe(401);
    expect(served.api.invocations('AuthorizerFunction')).toBe(before);
    expect((await upgradeStatus(wsUrl('Probe', '/live?tenant=acme'), { Auth: 'allow' })).status).toBe(101);
  });

  test('no opening handshake (RFC 6455 4.2.1: a key of 16 bytes): 400, and no function invoked', async () => {
    const before = served.api.invocations('AuthorizerFunction');
    const key = { Auth: 'allow', 'Sec-WebSocket-Key': 'short' };
    expect((await upgradeStatus(wsUrl('Probe', '/live?tenant=acme'), key)).status).toBe(400);
    expect(served.api.invocations('AuthorizerFunction')).toBe(before);
  });

  test('a path that names no stage: 403; a Host that is not loopback: 403', async () => {
    expect((await upgradeStatus(wsUrl('Probe', '/other'))).status).toBe(403);
    expect(
      (await upgradeStatus(wsUrl('Probe', '/live?tenant=acme'), { Auth: 'allow', Host: 'evil.example' })).status,
    ).toBe(403);
  });
});

describe('messages', () => {
  test('a message over the 128 KB quota ("Amazon API Gateway quotas") closes its connection: 1009', async () => {
    const { client } = await probeClient();
    client.socket.send('x'.repeat(128 * 1024 + 1));
    expect((await client.closed).code).toBe(1009);
  });

  test('a failing function: API Gateway tells the client "Internal server error"', async () => {
    const { client, connectionId } = await probeClient();
    client.socket.send('{"message":{"action":"fail"}}');
    expect(JSON.parse(await client.next())).toMatchObject({ message: 'Internal server error', connectionId });
  });
});

describe('@connections', () => {
  test("a role's execute-api:ManageConnections (grantManagementApiAccess) is not said to be unserved: it is", () => {
    expect(served.log.lines.filter((line) => line.includes('SendMessageFunction: its role'))).toEqual([]);
  });

  test('POST sends to the client, GET answers who and since when, DELETE closes (then 410 GoneException)', async () => {
    const { client, connectionId } = await probeClient();
    const api = management();
    await api.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: 'hello from the backend' }));
    expect(await client.next()).toBe('hello from the backend');
    const info = await api.send(new GetConnectionCommand({ ConnectionId: connectionId }));
    expect(info.Identity?.SourceIp).toBe('127.0.0.1');
    expect(info.ConnectedAt).toBeInstanceOf(Date);
    await api.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    expect((await client.closed).code).toBe(1000);
    await expect(
      api.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: 'x' })),
    ).rejects.toMatchObject({ name: 'GoneException', $metadata: { httpStatusCode: 410 } });
  });

  // "Use @connections commands in your backend service" (DELETE "disconnects the client", DeleteConnection in the
  // API Gateway Management API reference); "Manage connected users and client apps: $connect and $disconnect routes",
  // https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-api-route-keys-connect-disconnect.html:
  // "The $disconnect route is executed after the connection is closed. The connection can be closed by the server or
  // by the client." Its event after a DeleteConnection, as AWS's log showed it: 1000, "Connection Closed Normally"
  // (boto/boto3 issue 3789).
  test('DELETE ends the connection at once: a client ignoring the close frame has nothing more routed', async () => {
    const raw = await openRaw(wsUrl('Probe', '/live?tenant=acme'), { Auth: 'allow' });
    raw.send('not json: the $default route');
    const echoed = JSON.parse((await raw.frame(1)).toString()) as { requestContext: { connectionId: string } };
    const { connectionId } = echoed.requestContext;
    const api = management();
    await api.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    expect((await raw.frame(8)).readUInt16BE(0)).toBe(1000);
    // The client does not answer the close frame, and keeps sending.
    const marker = 'sent after DeleteConnection';
    for (let count = 0; count < 3; count += 1) raw.send(`${marker} ${count}`);
    const routed = served.functionLog.seen(new RegExp(marker)).then(() => 'routed');
    expect(await Promise.race([raw.ended.then(() => 'ended by the runner'), routed])).toBe('ended by the runner');
    const disconnected = new RegExp(`DISCONNECT ${connectionId.replace(/[+/=]/g, '\\$&')} \\$disconnect`);
    await served.log.seen(disconnected);
    expect((await eventOf(connectionId, '$disconnect')).requestContext).toMatchObject({
      disconnectStatusCode: 1000,
      disconnectReason: 'Connection Closed Normally',
    });
    expect(served.functionLog.lines.filter((line) => line.includes(marker))).toEqual([]);
    expect(served.log.lines.filter((line) => disconnected.test(line))).toHaveLength(1);
    await expect(api.send(new GetConnectionCommand({ ConnectionId: connectionId }))).rejects.toMatchObject({
      name: 'GoneException',
    });
  });

  test.each([
    ['Node.js', 'post', 'the endpoint built from the event, https://{domainName}/{stage}', 'event'],
    ['Node.js', 'post', "CDK's WebSocketStage.callbackUrl, in an environment variable", 'variable'],
    ['Python (boto3)', 'pypost', 'the endpoint built from the event', 'event'],
    ['Python (boto3)', 'pypost', "CDK's callbackUrl", 'variable'],
  ])(
    "a %s function's SDK reaches it at %s: its own connection, then a closed one's 410",
    async (_language, action, _case, endpoint) => {
      const { client, connectionId } = await probeClient();
      const gone = await probeClient();
      gone.client.socket.close();
      await gone.client.closed;
      client.socket.send(JSON.stringify({ message: { action }, endpoint }));
      expect(await client.next((message) => message === 'posted')).toBe('posted');
      if (action === 'post') expect(JSON.parse(await client.next())).toMatchObject({ sourceIp: '127.0.0.1' });
      else expect(JSON.parse(await client.next())).toEqual({ posted: true });
      client.socket.send(JSON.stringify({ message: { action }, endpoint, target: gone.connectionId }));
      expect(JSON.parse(await client.next())).toEqual({ error: 'GoneException', status: 410 });
      expect(connectionId).not.toBe(gone.connectionId);
    },
  );
});

describe("the chat of AWS's tutorial", () => {
  test('50 clients at once: each message reaches the 49 others, each invocation logged; a closed id is 410', async () => {
    const count = 50;
    const chat = await Promise.all(Array.from({ length: count }, () => open(wsUrl('Chat', '/dev'))));
    for (const [index, { socket }] of chat.entries())
      socket.send(JSON.stringify({ action: 'sendmessage', message: `message ${index}` }));
    // The tutorial's function sends each message to every connection, its sender's included.
    await Promise.all(
      chat.map((client) =>
        Promise.all(
          Array.from({ length: count }, (_, index) => client.next((message) => message === `message ${index}`)),
        ),
      ),
    );
    // A client gets the message before the function returns: its log line may come after. An invocation that failed
    // is named here, with its line and the function's own log, rather than only as a client's extra message.
    const lines = served.log.lines;
    const handled = /MESSAGE \S+ sendmessage -> SendMessageFunction /;
    while (lines.filter((line) => handled.test(line)).length < count) await served.log.next(handled);
    const failed = lines.filter((line) => handled.test(line) && !line.includes('SendMessageFunction ok'));
    const functionLog =
      failed.length > 0 ? served.functionLog.lines.filter((line) => line.startsWith('SendMessage')) : [];
    expect({ failed, functionLog }).toEqual({ failed: [], functionLog: [] });
    for (const client of chat)
      expect(client.messages.toSorted()).toEqual(
        Array.from({ length: count }, (_, index) => `message ${index}`).toSorted(),
      );
    const sent = /MESSAGE \S+ sendmessage -> SendMessageFunction ok/;
    expect(lines.filter((line) => /CONNECT \/dev 101 /.test(line))).toHaveLength(count);
    expect(lines.filter((line) => sent.test(line))).toHaveLength(count);

    const [leaving] = chat;
    leaving?.socket.close();
    const leftLine = /DISCONNECT \S+ \$disconnect -> DisconnectFunction ok/;
    await served.log.seen(leftLine);
    const closedLine = lines.find((line) => leftLine.test(line));
    const closedId = /DISCONNECT (\S+)/.exec(closedLine ?? '')?.[1] as string;
    const api = new ApiGatewayManagementApiClient({
      endpoint: `${addressOf('Chat')}/dev`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await expect(api.send(new PostToConnectionCommand({ ConnectionId: closedId, Data: 'x' }))).rejects.toMatchObject({
      name: 'GoneException',
      $metadata: { httpStatusCode: 410 },
    });
  }, 120_000);
});
