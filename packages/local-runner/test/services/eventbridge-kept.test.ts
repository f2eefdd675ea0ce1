// An event EventBridge accepted is not lost when the runner stops while its delivery waits for a retry: "PutEvents"
// (Amazon EventBridge API Reference, https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html)
// acknowledges an entry with its EventId, and "Event retry policy and using dead-letter queues"
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html) retries a failed delivery for up to 24
// hours. The pending delivery is kept in the data folder's `services/events-pending.json` (what `start` keeps); a
// second start on the same folder carries on with it. Real state files in a temporary folder; the SDK's client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { localAws } from '../../src/app/local-aws.ts';
import type { ServiceSeeds } from '../../src/app/service-resources.ts';
import { emptyPendingDeliveries } from '../../src/services/eventbridge.ts';
import { startLocalServices } from '../../src/services/local-services.ts';
import { stateFile } from '../../src/services/state-file.ts';
import { TargetError, Targets } from '../../src/services/targets.ts';

const functionArn = `arn:aws:lambda:${localAws.region}:${localAws.accountId}:function:OnPlant`;
const seeds: ServiceSeeds = {
  parameters: [],
  secrets: [],
  notices: [],
  events: {
    buses: [],
    rules: [
      {
        source: 'App/PlantCreated',
        name: 'PlantCreated',
        bus: 'default',
        state: 'ENABLED',
        pattern: { source: ['plant.store'] },
        targets: [{ id: 'Fn', arn: functionArn }],
      },
    ],
  },
};

let folder = '';
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'local-runner-events-kept-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The local services on the test's data folder, their pending deliveries kept as `start` keeps them. */
const start = async (receive: (body: string) => void) => {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const log = (line: string) => {
    lines.push(line);
    for (const waiter of waiters.filter(({ pattern }) => pattern.test(line))) waiter.resolve();
  };
  const targets = new Targets();
  targets.register('lambda', async (_arn, { body }) => receive(body));
  const services = await startLocalServices({ dataDir: join(folder, 'data'), seeds, log, targets });
  const pending = stateFile(join(folder, 'data'), 'events-pending', emptyPendingDeliveries);
  services.events.keep(pending);
  const logged = (pattern: RegExp) =>
    lines.some((line) => pattern.test(line))
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ pattern, resolve }));
  return { services, lines, logged, pending };
};

test('a delivery awaiting its retry when the runner stops is made by the next start on the same data folder', async () => {
  const first = await start(() => {
    throw new TargetError(`${functionArn}: the function is not there yet`);
  });
  const client = new EventBridgeClient({
    endpoint: first.services.endpoints.AWS_ENDPOINT_URL_EVENTBRIDGE,
    region: localAws.region,
    credentials: localAws.credentials,
  });
  const { Entries } = await client.send(
    new PutEventsCommand({ Entries: [{ Source: 'plant.store', DetailType: 'Plant Created', Detail: '{"id":7}' }] }),
  );
  client.destroy();
  const eventId = Entries?.[0]?.EventId;
  await first.logged(/to Fn failed .*: retry 1 in 1 s/);
  await first.services.close();
  expect(first.pending.read().pending).toEqual([expect.objectContaining({ rule: 'PlantCreated', attempt: 1 })]);

  let delivered: (body: string) => void = () => undefined;
  const body = new Promise<string>((resolve) => {
    delivered = resolve;
  });
  const second = await start((text) => delivered(text));
  try {
    expect(JSON.parse(await body)).toMatchObject({ id: eventId, source: 'plant.store', detail: { id: 7 } });
    await second.logged(/-> Fn .* on retry 1$/);
    expect(second.lines.join('\n')).toContain(`event ${eventId} to rule PlantCreated's target Fn (bus default), kept`);
    expect(second.pending.read().pending).toEqual([]);
  } finally {
    await second.services.close();
  }
});
