// Generated from openapi.yaml by examples/typed-client/generate.ts: do not edit.
// Where each operation's JSON answers hold an int64 (by method and path, then status): the client reads them as bigint.

export const int64Fields: Readonly<Record<string, Readonly<Record<string, string[][]>>>> = {};
