// Which route a WebSocket message takes, over random selection paths, route keys and messages
// ("Working with routes for WebSocket APIs": the RouteSelectionExpression `$request.body.<path>` evaluated on the
// message's JSON body names a route; a message it names none for takes `$default`; `$connect` and `$disconnect` are
// the connection's own). The oracle knows each message's expected key by construction (it writes the JSON text
// itself, `__proto__` keys included, around the value it put at the path); the code parses and walks the message. A
// failure prints fast-check's seed: replay it with FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { WebSocketRoute } from '../../../src/app/websocket-api.ts';
import { routeOf } from '../../../src/gateway/websocket/route.ts';

const step = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/),
  fc.constantFrom('action', '__proto__', 'constructor', 'name', 'toString', 'hasOwnProperty'),
);
const keys = ['sendmessage', 'join', 'action', 'toString', '$connect', '$disconnect', '$default', 'x y', ''];
const text = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 }));

/** What a message puts at the selection path, and the key the oracle expects from it (undefined: none). */
const leaf = fc.oneof(
  text.map((key) => ({ json: JSON.stringify(key), key: key as string | undefined })),
  fc
    .oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant({}),
      fc.constant([]),
      fc.array(text, { maxLength: 2 }),
    )
    .map((value) => ({ json: JSON.stringify(value), key: undefined })),
);

/** An object's JSON text: sibling members (whose names are not `name`), then `name` holding `value`. */
const objectText = (siblings: [string, string][], name: string, value: string) =>
  `{${[...siblings.filter(([sibling]) => sibling !== name), [name, value]]
    .map(([member, json]) => `${JSON.stringify(member)}:${json}`)
    .join(',')}}`;

/** A message and the key it names: the leaf at the path, or the path broken (missing, an array on it, not JSON). */
const message = (path: string[]) =>
  fc
    .tuple(
      leaf,
      fc.array(fc.array(fc.tuple(step, fc.constantFrom('1', '"s"', '{}', '[]', 'null')), { maxLength: 2 }), {
        minLength: path.length,
        maxLength: path.length,
      }),
      fc.constantFrom('whole', 'missing', 'array', 'not JSON', 'binary'),
    )
    .map(([{ json, key }, siblings, shape]) => {
      const steps = shape === 'missing' ? path.slice(0, -1) : path;
      let body = shape === 'missing' ? '{"unrelated":true}' : json;
      for (let index = steps.length - 1; index >= 0; index -= 1)
        body = objectText(siblings[index] ?? [], steps[index] as string, body);
      if (shape === 'array') body = `[${body}]`;
      if (shape === 'not JSON') body = `${body}}`;
      const named = shape === 'whole' ? key : undefined;
      return { text: shape === 'binary' ? undefined : body, named };
    });

test('a message takes the custom route its selection path names, else $default, else none', () => {
  fc.assert(
    fc.property(
      fc.array(step, { minLength: 1, maxLength: 3 }).chain((path) => fc.tuple(fc.constant(path), message(path))),
      fc.subarray(keys),
      ([path, { text: sent, named }], routeKeys) => {
        const routes = routeKeys.map((routeKey) => ({ routeKey, functionId: `F${routeKey}` }) as WebSocketRoute);
        const custom = named !== undefined && named !== '$connect' && named !== '$disconnect' ? named : undefined;
        const expected = routeKeys.includes(custom as string)
          ? custom
          : routeKeys.includes('$default')
            ? '$default'
            : undefined;
        expect(routeOf({ routeSelectionPath: path, routes }, sent)?.routeKey).toBe(expected);
      },
    ),
    { numRuns: 2_000 },
  );
});
