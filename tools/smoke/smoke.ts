// `npm run smoke -- --base-url <url> --token <token>`: the contract's end-to-end checks against any running Plant
// Store (the local runner, or a deployed API Gateway URL with its stage), every answer validated against openapi.yaml.
// Stops at the first break, naming it, with exit code 1.
//
// Its plants have ids from the lowest int64, -9223372036854775808, up to -9220000000000000000: a range reserved for
// smoke runs, which real clients must not use (docs/deploy.md). Each run takes a new id there (from the clock), so runs never
// meet each other or real data. The plants it creates stay (the API deletes nothing); their name says "smoke test".
import { parseArgs } from 'node:util';
import { contractViolations, createPlantRequest } from '../../test/helpers/independent-contract.ts';

const { values } = parseArgs({
  options: { 'base-url': { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const usage = 'npm run smoke -- --base-url <the API URL, with its stage on AWS> --token <a bearer token>';
if (values.help || !values['base-url'] || !values.token) {
  console.error(usage);
  process.exit(values.help ? 0 : 2);
}
const baseUrl = values['base-url'].endsWith('/') ? values['base-url'] : `${values['base-url']}/`;
const token = values.token;

const lowestInt64 = -9223372036854775808n;
/** A new id in the reserved range: the clock in microseconds, which reaches about 1.8e15 of its 3.37e15 ids. */
const smokeId = lowestInt64 + BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000));

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** `authorization` null sends no Authorization header. */
const send = async (method: string, path: string, body?: string, authorization: string | null = `Bearer ${token}`) => {
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers: {
      ...(authorization && { Authorization: authorization }),
      ...(body && { 'Content-Type': 'application/json' }),
    },
    ...(body && { body }),
  });
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
};

/** A body with the id written exactly (an int64 beyond 2^53 has no exact JavaScript number). */
const plantBody = (id: bigint, name: string, tag?: string) =>
  `{"id":${id},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;

class Broken extends Error {}

const expectAnswer = (
  answer: Answer,
  status: number,
  check?: (body: Record<string, unknown>) => string | undefined,
) => {
  if (answer.status !== status) throw new Broken(`expected HTTP ${status}, got ${answer.status}: ${answer.text}`);
  const problems = contractViolations(
    { statusCode: answer.status, headers: answer.headers, body: answer.text },
    createPlantRequest,
  );
  if (problems.length > 0) throw new Broken(`the answer breaks openapi.yaml: ${problems.join('; ')}: ${answer.text}`);
  const problem = check?.(JSON.parse(answer.text) as Record<string, unknown>);
  if (problem) throw new Broken(`${problem}: ${answer.text}`);
};
/** Errors that are not the operation's: only the Error shape and the status (openapi.yaml lists no other routes). */
const expectError = (answer: Answer, status: number) => {
  if (answer.status !== status) throw new Broken(`expected HTTP ${status}, got ${answer.status}: ${answer.text}`);
  const body = JSON.parse(answer.text) as unknown;
  const shaped = typeof body === 'object' && body !== null && (body as { error?: unknown }).error === status;
  if (!shaped || typeof (body as { message?: unknown }).message !== 'string') {
    throw new Broken(`expected the Error body {"error":${status},"message":...}: ${answer.text}`);
  }
};

const name = 'Plant Store smoke test';
const checks: [string, () => Promise<void>][] = [
  [
    'create: a new plant answers 200 with it',
    async () =>
      expectAnswer(await send('POST', 'plants', plantBody(smokeId, name, 'smoke')), 200, (body) =>
        body.name === name && body.tag === 'smoke' ? undefined : 'the answer is not the plant sent',
      ),
  ],
  [
    'retry: the same plant again answers 200 with it',
    async () =>
      expectAnswer(await send('POST', 'plants', plantBody(smokeId, name, 'smoke')), 200, (body) =>
        body.name === name && body.tag === 'smoke' ? undefined : 'the answer is not the plant sent',
      ),
  ],
  [
    'conflict: the same id with another name answers 409',
    async () =>
      expectAnswer(await send('POST', 'plants', plantBody(smokeId, `${name}, renamed`)), 409, (body) =>
        body.error === 409 ? undefined : 'error is not 409',
      ),
  ],
  [
    'validation: a plant without id answers 400 naming id',
    async () =>
      expectAnswer(await send('POST', 'plants', JSON.stringify({ name })), 400, (body) =>
        String(body.message).includes('id') ? undefined : 'the message does not name id',
      ),
  ],
  ['no token: 401', async () => expectAnswer(await send('POST', 'plants', plantBody(smokeId, name), null), 401)],
  [
    'an invalid token: 401',
    async () => expectAnswer(await send('POST', 'plants', plantBody(smokeId, name), 'Bearer not.a.token'), 401),
  ],
  ['an unknown route: 404', async () => expectError(await send('GET', 'smoke-test/unknown-route'), 404)],
];

console.log(`Smoke test of ${baseUrl} (plant id ${smokeId})`);
for (const [check, run] of checks) {
  try {
    await run();
    console.log(`  ok    ${check}`);
  } catch (error) {
    const reason = error instanceof Broken ? error.message : `the request failed: ${(error as Error).message}`;
    console.log(`  FAIL  ${check}\n        ${reason}`);
    process.exit(1);
  }
}
console.log(`All ${checks.length} checks passed.`);
