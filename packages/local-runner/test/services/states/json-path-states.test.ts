// JSONPath filters and deep scans in a state machine, on the local services alone, through the SDK's client: a
// Parameters field selecting with a filter (`[?(@.price < 10)]`, `&&`, an existence test) and a deep scan (`$..name`),
// a Map whose ItemsPath is a filtered reference path, as "Paths" shows one
// (https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html: `$.jar[?(@.a >= 5)]`);
// and the reference paths that page forbids (a function, a regular expression) or a ResultPath naming no one place,
// refused at start naming the state and the field.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { stateMachineArn } from '../../../src/app/return-values.ts';
import type { ServiceSeeds } from '../../../src/app/service-resources.ts';
import type { StateMachineSeed } from '../../../src/app/state-machine-resources.ts';
import { startLocalServices } from '../../../src/services/local-services.ts';
import { localClient } from '../../helpers/local-clients.ts';

const machine = (name: string, definition: Record<string, unknown>): StateMachineSeed => ({
  source: `App/${name}`,
  name,
  arn: stateMachineArn(name),
  type: 'EXPRESS',
  definition,
});

const seeds = (machines: StateMachineSeed[]): ServiceSeeds => ({
  parameters: [],
  secrets: [],
  queues: [],
  stateMachines: machines,
  notices: [],
});

const selecting = machine('Selecting', {
  StartAt: 'Pick',
  States: {
    Pick: {
      Type: 'Pass',
      Parameters: {
        'cheap.$': '$.order.items[?(@.price < 10)].name',
        'giftable.$': "$.order.items[?(@.kind == 'book' && @.gift)].name",
        'names.$': '$..name',
        'count.$': '$.order.items.length()',
      },
      ResultPath: '$.picked',
      Next: 'Each',
    },
    Each: {
      Type: 'Map',
      ItemsPath: '$.order.items[?(@.price >= 10)]',
      ItemProcessor: { StartAt: 'Name', States: { Name: { Type: 'Pass', InputPath: '$.name', End: true } } },
      ResultPath: '$.dear',
      OutputPath: '$..[?(@.count)]',
      End: true,
    },
  },
});

const order = {
  customer: { name: 'Ada' },
  order: {
    items: [
      { name: 'pen', kind: 'tool', price: 2 },
      { name: 'atlas', kind: 'book', price: 30, gift: true },
      { name: 'novel', kind: 'book', price: 9 },
    ],
  },
};

let dataDir = '';
let services: Awaited<ReturnType<typeof startLocalServices>> | undefined;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'json-path-states-'));
  services = await startLocalServices({ dataDir, seeds: seeds([selecting]), log: () => undefined });
  sfn = localClient(SFNClient, services.urls.states, { disableHostPrefix: true });
});
afterAll(async () => {
  sfn?.destroy();
  await services?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a filter and a deep scan select in Parameters, a filtered ItemsPath feeds a Map', async () => {
  const ended = await sfn.send(
    new StartSyncExecutionCommand({ stateMachineArn: selecting.arn, input: JSON.stringify(order) }),
  );
  expect(ended.status).toBe('SUCCEEDED');
  expect(JSON.parse(ended.output ?? '')).toEqual([
    { cheap: ['pen', 'novel'], giftable: ['atlas'], names: ['Ada', 'pen', 'atlas', 'novel'], count: 3 },
  ]);
});

test.each([
  ['ResultPath', { Type: 'Pass', ResultPath: '$.items[?(@.a)]', End: true }, 'does not name one place'],
  ['ItemsPath', { Type: 'Map', ItemsPath: '$.items.length()', ItemProcessor: {}, End: true }, 'length()'],
  [
    'Variable',
    { Type: 'Choice', Choices: [{ Variable: '$.a[?(@.b =~ /x/)]', IsPresent: true, Next: 'S' }], Default: 'S' },
    'a regular expression',
  ],
  ['InputPath', { Type: 'Pass', InputPath: '$.a.sum()', End: true }, 'calls sum()'],
])(
  'a %s the runner does not read, or a reference path using what "Paths" forbids, refuses the start',
  async (field, state, said) => {
    const refused = machine('Refused', { StartAt: 'P', States: { P: state, S: { Type: 'Succeed' } } });
    const start = startLocalServices({ dataDir: undefined, seeds: seeds([refused]), log: () => undefined });
    await expect(start).rejects.toThrow(`App/Refused: its state P, its ${field}: `);
    await expect(start).rejects.toThrow(said);
  },
);
