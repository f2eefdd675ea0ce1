// `invoke` beside a running `start` joins its database through `<dataDir>/database.json` (docs/database.md). A file
// there that is not what a start writes is refused, naming it, before anything starts: whether a start serves the
// folder cannot be known from it, and opening the folder's LevelDB under a running start would fail on its lock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startDatabase } from '../../src/database/database.ts';
import { RunnerError } from '../../src/errors.ts';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'database-json-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test.each([
  ['half a file', '{"pid": 12'],
  ['not an object', '"running"'],
  ['no endpoint', '{"pid": 1}'],
  ['a pid that is not a number', '{"pid": "1", "endpoint": "http://127.0.0.1:1"}'],
])('a database.json with %s is refused, named', async (_, written) => {
  const file = join(dataDir, 'database.json');
  writeFileSync(file, written);
  const joining = startDatabase([], dataDir, () => undefined, 'join');
  await expect(joining).rejects.toThrow(RunnerError);
  await expect(joining).rejects.toThrow(`${file} is not what a running start writes`);
});
