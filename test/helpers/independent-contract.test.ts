// The independent contract checker (independent-contract.ts) that judges the tests' answers: it must read an int64
// exactly, or it would pass an id beyond the range and refuse the ends of it, and it names a request that is no
// operation of the document.
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { projectRoot } from '../../infra/project-root.ts';
import { contractChecker } from './independent-contract.ts';

test('reads int64 ids exactly: both ends conform, one beyond does not', async () => {
  const fixture = await contractChecker(join(projectRoot, 'test/fixtures/extended-app/openapi.yaml'));
  const answer = (id: string) => ({
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: `{"id":${id},"fields":"all"}`,
  });
  for (const id of ['9223372036854775807', '-9223372036854775808', '7']) {
    expect(fixture.violations(answer(id), { method: 'GET', path: `/things/${id}` })).toEqual([]);
  }
  for (const id of ['9223372036854775808', '-9223372036854775809']) {
    expect(fixture.violations(answer(id), { method: 'GET', path: '/things/1' })).toEqual([
      '/id must match format "int64"',
    ]);
  }
  expect(fixture.violations(answer('1'), { method: 'DELETE', path: '/things/1' })).toEqual([
    `DELETE /things/1 is no operation of ${join(projectRoot, 'test/fixtures/extended-app/openapi.yaml')}`,
  ]);
});
