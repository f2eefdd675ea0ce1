// `npm run smoke` against the local runner (as after `cdk deploy`, against the API's URL), and against a server that
// breaks the contract: it must say what broke, and fail.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { afterEach, expect, test } from '@jest/globals';
import { listenOnLoopback } from 'cdk-local-runner';
import { newDataDir, start, stopStarted, tokenOf } from '../../helpers/npm-start.ts';

const smoke = new URL('../../../tools/smoke/smoke.ts', import.meta.url).pathname;
const runSmoke = (baseUrl: string, token: string) =>
  promisify(execFile)(process.execPath, [smoke, '--base-url', baseUrl, '--token', token]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );

afterEach(stopStarted);

test('passes against npm start, every check', async () => {
  const server = await start(newDataDir());

  const { code, stdout } = await runSmoke(server.url, tokenOf(server));

  expect(stdout).toMatch(/All 7 checks passed/);
  expect(stdout.match(/^ {2}ok /gm)).toHaveLength(7);
  expect(code).toBe(0);
  // Its plant's id is in the range reserved for smoke runs: from the lowest int64 up to -9220000000000000000.
  const id = BigInt(/plant id (-\d+)/.exec(stdout)?.[1] ?? '0');
  expect(id >= -9223372036854775808n && id < -9220000000000000000n).toBe(true);
}, 90_000);

test('fails at the first broken check, and says what broke', async () => {
  // Stores nothing: every create answers 200, so a conflict is never a 409.
  const forgetful = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ name: 'Plant Store smoke test', tag: 'smoke' }));
  });
  const url = await listenOnLoopback(forgetful);

  const { code, stdout } = await runSmoke(url, 'any');
  forgetful.close();

  expect(code).toBe(1);
  expect(stdout).toMatch(/FAIL {2}conflict: the same id with another name answers 409\n\s+expected HTTP 409, got 200/);
  expect(stdout).not.toMatch(/validation/);
});

test('without --base-url it prints its usage and fails', async () => {
  const failure = promisify(execFile)(process.execPath, [smoke]);

  await expect(failure).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--base-url') });
});
