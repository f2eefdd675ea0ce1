// Generates src/plant-store-api.d.ts from the project's openapi.yaml with openapi-typescript, writing every
// `format: int64` as `bigint` (the usual `number` cannot hold an int64 exactly beyond 2^53).
// `node generate.ts` writes the file; `node generate.ts --check` fails when the committed file is stale (npm test).
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const openapi = new URL('../../openapi.yaml', import.meta.url);
const output = new URL('./src/plant-store-api.d.ts', import.meta.url);

const ast = await openapiTS(openapi, {
  transform: (schemaObject) =>
    schemaObject.format === 'int64' ? ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword) : undefined,
});
const generated = astToString(ast);

if (process.argv.includes('--check')) {
  if (readFileSync(output, 'utf8') !== generated) {
    console.error('examples/typed-client/src/plant-store-api.d.ts is stale: run `npm run generate`');
    process.exit(1);
  }
} else {
  writeFileSync(output, generated);
}
