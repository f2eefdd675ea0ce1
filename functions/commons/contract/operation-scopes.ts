// Generated from openapi.yaml by tools/contract/generate.ts: do not edit.
// Each operation and the scopes a token needs for it (its security requirement): the stack hands them to the
// authorizer, which allows a token exactly the routes its scopes reach.

export const operationScopes: readonly { operationId: string; method: string; path: string; scopes: string[] }[] = [
  {"operationId":"createPlant","method":"POST","path":"/plants","scopes":["plants/write"]},
];
