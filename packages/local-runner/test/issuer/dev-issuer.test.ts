import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { loadSigningKey } from '../../src/issuer/dev-issuer.ts';

const identity = { issuer: 'urn:test:issuer', audience: 'test' };

test.each([
  ['not JSON', 'garbage'],
  ['JSON, but no key', '{"kty": "RSA"}'],
])('a key file that is %s is refused, naming the file and what to do', async (_case, content) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'local-runner-key-'));
  writeFileSync(join(dataDir, 'dev-issuer-key.json'), content);

  await expect(loadSigningKey(dataDir, identity)).rejects.toThrow(
    `${join(dataDir, 'dev-issuer-key.json')} is not the development issuer's key (an ES256 private JWK): delete it to ` +
      'create a new key (tokens signed with the old one then stop working)',
  );
});

test('a key it wrote is read back', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'local-runner-key-'));
  const created = await loadSigningKey(dataDir, identity);
  expect((await loadSigningKey(dataDir, identity)).kid).toBe(created.kid);
});
