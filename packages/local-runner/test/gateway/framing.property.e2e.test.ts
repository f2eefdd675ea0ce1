// A fuzz of the paths that write a function's own headers (issue 50, item 4): a function URL's buffered result, a
// function URL's stream (its prelude) and a REST method's stream, each answering what the generated request asks for
// (fixtures/functions/framing.mjs): random header names (tokens, framing headers in any case, and names that are no
// token), random values (CR, LF, NUL and other controls, text beyond ASCII, empty, OWS), Content-Length right and
// wrong, Transfer-Encoding, Connection, Keep-Alive, random statuses and bodies. Each answer is read by a strict
// HTTP/1.1 parser (helpers/strict-http.ts), then a second request goes on the same connection. The oracle below is
// written from the RFCs, not from the runner:
// - never two Content-Length values, never Content-Length beside Transfer-Encoding, the Content-Length (if any) the
//   body's length (RFC 9112 sections 6.2 and 6.3; RFC 9110 section 8.6), and no byte of one answer left on the
//   connection for the next (the second request is answered whole, on the same connection);
// - the function's Connection and Keep-Alive never speak for the client's connection (RFC 9112 section 9.6);
// - a result that no gateway can send (a field name that is no token, RFC 9110 section 5.1; a value with a control
//   character, section 5.5; a 1xx status, section 15.2, not final) is 502, as any malformed result; any other keeps its
//   status, its body and its other headers;
// - the runner never logs an error of its own (no "local runner error").
// 200 cases in `npm test`, 3,000 with PLANT_STORE_THOROUGH=1; a failure prints the seed and path that replay it
// (CONTRIBUTING.md, "Property tests: replaying a failure").
import { afterAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { synthesizeFramingApp } from '../fixtures/framing-app.ts';
import { servedBeforeAll } from '../helpers/served-app.ts';
import { headerValues, oneConnection, type StrictAnswer, strictPost } from '../helpers/strict-http.ts';

const served = servedBeforeAll(synthesizeFramingApp);
const agent = oneConnection();
afterAll(() => agent.destroy());

/** The URL of `path` at the API (or function URL) `id`. */
const at = (id: string, path: string) => new URL(path, new URL(served.urlOf(id)).origin);

/** Where a function's answer is written: how it is asked for, and the 502 body of the gateway there. */
const targets = {
  url: { id: 'AnswerUrl', path: '/', streams: false, badGateway: 'Internal Server Error' },
  urlStream: { id: 'StreamUrl', path: '/', streams: true, badGateway: 'Internal Server Error' },
  restStream: {
    id: 'FramingRest',
    path: '/prod/streamed',
    streams: true,
    badGateway: '{"message":"Internal server error"}',
  },
};
type Target = keyof typeof targets;

/** "RIGHT" stands for the body's own length in UTF-8, written once the body is known. */
const framingValues = ['RIGHT', '0', '3', '99999', '-1', '1, 1', 'chunked', 'gzip, chunked', 'identity', 'close'];
const names = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16}$/) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'Content-Length',
      'content-length',
      'CONTENT-LENGTH',
      'Transfer-Encoding',
      'transfer-encoding',
      'Connection',
      'Keep-Alive',
      'Upgrade',
      'Trailer',
      'TE',
      'Date',
      'Server',
      'Content-Type',
      'Set-Cookie',
    ),
  },
  // Names that are no token: empty, spaces, colons, controls, text beyond ASCII.
  { weight: 1, arbitrary: fc.constantFrom('', 'Bad Name', 'a:b', 'x\r\ny', 'naïve', ' lead', '"quoted"') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
);
const values = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(...framingValues, 'keep-alive', 'timeout=0', 'timeout=1, max=1', 'websocket'),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\t',
      'a\r\nX-Injected: 1',
      'a\nb',
      'a\rb',
      'nul\u0000',
      'é',
      '€',
      '😀',
      ' padded ',
    ),
  },
);
const headers = fc.array(fc.tuple(names, values), { maxLength: 6 });
const cookies = fc.array(fc.oneof(fc.constantFrom('a=1', 'b=2; Path=/', 'c=1\r\nX: y'), fc.string({ maxLength: 10 })), {
  maxLength: 2,
});
const statuses = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom(200, 201, 204, 205, 304, 400, 404, 418, 500, 503) },
  { weight: 1, arbitrary: fc.constantFrom(100, 101, 103, 199) },
);
const bodies = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));

interface Asked {
  target: Target;
  status: number;
  headers: [string, string][];
  cookies: string[];
  body: string;
}
const cases = fc.record({
  target: fc.constantFrom<Target>('url', 'urlStream', 'restStream'),
  status: statuses,
  headers,
  cookies,
  body: bodies,
});

/** The request asking the function of `target` for that answer: its headers as an object (a later name wins). */
const request = ({ target, status, headers: pairs, cookies: sent, body }: Asked) => {
  const length = String(Buffer.byteLength(body));
  const named = Object.fromEntries(pairs.map(([name, value]) => [name, value === 'RIGHT' ? length : value]));
  return targets[target].streams
    ? { prelude: { statusCode: status, headers: named, cookies: sent }, body }
    : { result: { statusCode: status, headers: named, cookies: sent, body } };
};

// The oracle, from the RFCs.
const tchar = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const hasControl = (text: string) => [...text].some((c) => (c.charCodeAt(0) < 0x20 && c !== '\t') || c === '\x7f');
const sendable = ({ status, headers: pairs, cookies: sent }: Asked) =>
  status >= 200 &&
  Object.entries(Object.fromEntries(pairs)).every(([name, value]) => tchar.test(name) && !hasControl(value)) &&
  sent.every((cookie) => !hasControl(cookie));
/** A field value as the client reads it: its bytes as UTF-8 (Node's parser gives them as Latin-1 text), OWS trimmed. */
const received = (value: string) => Buffer.from(value, 'latin1').toString('utf8');
const trimmed = (value: string) => value.replace(/^[ \t]+|[ \t]+$/g, '');
/**
 * Headers whose meaning is the message's framing or its connection (Trailer announces a chunked body's trailer fields,
 * RFC 9110 section 6.6.2): the oracle asks nothing of the function's own values but that they do not frame.
 */
const framing = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'trailer']);

const judge = (asked: Asked, answer: StrictAnswer) => {
  const values = (name: string) => headerValues(answer.rawHeaders, name);
  expect(values('content-length').length).toBeLessThanOrEqual(1);
  if (values('content-length').length === 1) {
    expect(values('transfer-encoding')).toEqual([]);
    expect(values('content-length')).toEqual([String(answer.body.length)]);
  }
  expect(values('transfer-encoding').every((value) => value === 'chunked')).toBe(true);
  expect(values('connection').every((value) => value === 'keep-alive')).toBe(true);
  if (!sendable(asked)) {
    expect(answer.status).toBe(502);
    expect(answer.body.toString('utf8')).toBe(targets[asked.target].badGateway);
    return;
  }
  expect(answer.status).toBe(asked.status);
  expect(answer.body.toString('utf8')).toBe([204, 304].includes(asked.status) ? '' : asked.body);
  const kept = Object.entries(Object.fromEntries(asked.headers)).filter(([name]) => !framing.has(name.toLowerCase()));
  for (const [name, value] of kept) {
    if (/^(content-type|set-cookie|date|server)$/i.test(name)) continue;
    expect(values(name).map(received)).toContain(
      trimmed(value === 'RIGHT' ? String(Buffer.byteLength(asked.body)) : value),
    );
  }
};

test('every answer is framed once, by the gateway; a malformed one is 502; the connection carries the next', async () => {
  await fc.assert(
    fc.asyncProperty(cases, async (asked) => {
      const { id, path } = targets[asked.target];
      const first = await strictPost(agent, at(id, path), JSON.stringify(request(asked)));
      if ('error' in first.answer) throw new Error(`the strict parser refused the answer: ${first.answer.error}`);
      judge(asked, first.answer);
      const next = await strictPost(
        agent,
        at(id, path),
        JSON.stringify(request({ ...asked, status: 200, headers: [], cookies: [], body: 'next' })),
      );
      expect(next.reused).toBe(true);
      expect(next.answer).toMatchObject({ status: 200, body: Buffer.from('next') });
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 3_000 : 200 },
  );
  expect(served.log.lines.filter((line) => line.includes('local runner error'))).toEqual([]);
}, 120_000);
