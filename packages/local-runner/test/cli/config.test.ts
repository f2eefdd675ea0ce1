// local-runner.json, the project's configuration of the runner: every setting optional, each wrong one named.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { readConfig } from '../../src/cli/config.ts';
import { RunnerError } from '../../src/errors.ts';

/** A project folder whose local-runner.json holds `text` (none when undefined). */
const projectWith = (text?: string) => {
  const root = mkdtempSync(join(tmpdir(), 'local-runner-config-'));
  if (text !== undefined) writeFileSync(join(root, 'local-runner.json'), text);
  return root;
};

test('no file: the defaults, named for no product', () => {
  expect(readConfig(projectWith())).toEqual({
    dataDir: '.local-runner',
    tokenIssuer: { issuer: 'urn:local-runner:issuer', audience: 'local-runner' },
  });
});

test("each setting as given; the OpenAPI document's path from the project's folder", () => {
  const root = projectWith(
    JSON.stringify({ dataDir: '.data', tokenIssuer: { issuer: 'urn:x', audience: 'y' }, openapi: 'api/openapi.yaml' }),
  );
  expect(readConfig(root)).toEqual({
    dataDir: '.data',
    tokenIssuer: { issuer: 'urn:x', audience: 'y' },
    openapi: join(root, 'api/openapi.yaml'),
  });
});

test('some settings: the others keep their defaults', () => {
  expect(readConfig(projectWith('{"dataDir": ".store"}'))).toEqual({
    dataDir: '.store',
    tokenIssuer: { issuer: 'urn:local-runner:issuer', audience: 'local-runner' },
  });
});

test.each([
  ['not JSON', '{dataDir', 'not JSON'],
  ['not an object', '[]', 'not an object'],
  [
    'a setting it does not know',
    '{"port": 3000}',
    'port must be one of dataDir, tokenIssuer, openapi (it is not a setting)',
  ],
  ['an empty data folder', '{"dataDir": ""}', 'dataDir must be a folder'],
  ['an OpenAPI document that is not a path', '{"openapi": 1}', 'openapi must be a file'],
  [
    'an issuer without its audience',
    '{"tokenIssuer": {"issuer": "urn:x"}}',
    'tokenIssuer must be { "issuer": "...", "audience": "..." }',
  ],
  [
    'an issuer with more than its two names',
    '{"tokenIssuer": {"issuer": "urn:x", "audience": "y", "kid": "z"}}',
    'tokenIssuer must be { "issuer": "...", "audience": "..." }',
  ],
])('refuses %s, naming the file and the setting', (_case, text, message) => {
  const root = projectWith(text);
  expect(() => readConfig(root)).toThrow(new RunnerError(`${join(root, 'local-runner.json')}: ${message}`));
});
