// JSON with int64 numbers exact both ways, which JSON.stringify and JSON.parse cannot do: a bigint is written as the
// JSON number it is, and the int64 fields of an answer (generated into int64-fields.ts) are read as bigint. Node >= 21
// (V8's JSON.parse source text access and JSON.rawJSON); TypeScript's lib does not declare them yet.
import type { Middleware } from 'openapi-fetch';

type Reviver = (key: string, value: unknown, context: { source?: string }) => unknown;
const { rawJSON, parse } = JSON as unknown as {
  rawJSON: (text: string) => unknown;
  parse: (text: string, reviver: Reviver) => unknown;
};

/** Where each operation's answers hold an int64: by `METHOD /path`, then status, JSON paths (`*`: any item or key). */
export type Int64Fields = Readonly<Record<string, Readonly<Record<string, readonly (readonly string[])[]>>>>;

/** JSON with every bigint written as the exact JSON number it is. */
export const exactJson = (body: unknown) =>
  JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? rawJSON(value.toString()) : value));

const numberText = Symbol('number text');
type NumberText = { [numberText]: string };
const isNumberText = (value: unknown): value is NumberText =>
  typeof value === 'object' && value !== null && numberText in value;

/** `text` as JSON, the numbers at `int64` paths as bigint, every other number as a JavaScript number. */
export const parseExact = (text: string, int64: readonly (readonly string[])[]) => {
  const tree = parse(text, (_key, value, { source }) =>
    typeof value === 'number' && source !== undefined ? { [numberText]: source } : value,
  );
  const atInt64 = (path: string[]) =>
    int64.some((field) => field.length === path.length && field.every((part, i) => part === '*' || part === path[i]));
  const read = (node: unknown, path: string[]): unknown => {
    if (isNumberText(node)) {
      const digits = node[numberText];
      // An int64 written with a fraction or an exponent is no integer: it stays a number, for the caller to see.
      return atInt64(path) && /^-?\d+$/.test(digits) ? BigInt(digits) : Number(digits);
    }
    if (Array.isArray(node)) return node.map((item, index) => read(item, [...path, String(index)]));
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, read(value, [...path, key])]));
  };
  return read(tree, []);
};

/** `response` again, its JSON body read by parseExact: openapi-fetch reads a body with `json()`. */
const exactResponse = (body: string, response: Response, int64: readonly (readonly string[])[]) => {
  const headers = new Headers(response.headers);
  // openapi-fetch parses a body without Content-Length itself, with JSON.parse.
  headers.set('Content-Length', String(new TextEncoder().encode(body).length));
  const exact = new Response(body, { status: response.status, statusText: response.statusText, headers });
  Object.defineProperty(exact, 'json', { value: async () => parseExact(body, int64) });
  return exact;
};

/** openapi-fetch middleware: each answer's int64 fields (`fields`, generated from the contract) read as bigint. */
export const exactInt64 = (fields: Int64Fields): Middleware => ({
  async onResponse({ request, response, schemaPath }) {
    const int64 = fields[`${request.method} ${schemaPath}`];
    const paths = int64?.[String(response.status)] ?? int64?.default;
    if (paths === undefined) return undefined;
    return exactResponse(await response.text(), response, paths);
  },
});
