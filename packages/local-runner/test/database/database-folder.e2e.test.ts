// A damaged data folder is refused at start, naming the folder, what is wrong and how to recover — never served as if
// whole (LevelDB on its own drops a damaged log, or starts empty without CURRENT, and the plants with them).
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { ClassicLevel } from 'classic-level';
import type { Table } from '../../src/app/api.ts';
import { startDatabase } from '../../src/database/database.ts';
import { prepareFailedWrites } from '../../src/database/failure-record.ts';

const tables: Table[] = [
  {
    id: 'Plants',
    tableName: 'plants',
    properties: {
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    },
  },
];
const quiet = () => undefined;
/** A DynamoDB client of the database at `endpoint` (any credentials). */
const clientOf = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
/** A data folder with 300 plants, as the runner leaves it. */
let whole: string;

beforeAll(async () => {
  whole = mkdtempSync(join(tmpdir(), 'local-runner-folder-'));
  const database = await startDatabase(tables, whole, quiet);
  const client = clientOf(database.endpoint);
  for (let id = 1; id <= 300; id += 1) {
    await client.send(
      new PutItemCommand({ TableName: 'plants', Item: { id: { N: String(id) }, name: { S: `p${id}` } } }),
    );
  }
  client.destroy();
  await database.close();
}, 60_000);

/** A copy of the whole folder, damaged by `damage` (given its LevelDB folder). */
const damagedCopy = (damage: (levelDb: string) => void) => {
  const copy = mkdtempSync(join(tmpdir(), 'local-runner-damaged-'));
  cpSync(whole, copy, { recursive: true });
  damage(join(copy, 'dynamodb'));
  return copy;
};
/** The largest file matching `pattern` (the log that holds the plants, not a fresh empty one). */
const fileOf = (levelDb: string, pattern: RegExp) => {
  const [file] = readdirSync(levelDb)
    .filter((name) => pattern.test(name))
    .map((name) => join(levelDb, name))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!file) throw new Error(`no ${pattern} in ${levelDb}`);
  return file;
};
const recovery = /Restore .*dynamodb from a backup; or move it aside and start with an empty store/;

test('a whole folder is served again: every plant, as written, and nothing said about the folder', async () => {
  const lines: string[] = [];
  const database = await startDatabase(
    tables,
    damagedCopy(() => undefined),
    (line) => lines.push(line),
  );
  try {
    const client = clientOf(database.endpoint);
    const { Count } = await client.send(new ScanCommand({ TableName: 'plants', Select: 'COUNT' }));
    const { Item } = await client.send(
      new GetItemCommand({ TableName: 'plants', Key: { id: { N: '300' } }, ConsistentRead: true }),
    );
    client.destroy();

    expect(Count).toBe(300);
    expect(Item).toEqual({ id: { N: '300' }, name: { S: 'p300' } });
    expect(lines).toEqual([]);
  } finally {
    await database.close();
  }
});

/** A record header saying 200 bytes of data follow, and only 50 of them: what a write cut short leaves. */
const unfinishedRecord = Buffer.concat([Buffer.from([0, 0, 0, 0, 200, 0, 1]), Buffer.alloc(50, 7)]);

test('a log cut off exactly where a write failed as the database died is cut there, and every plant is served', async () => {
  const lines: string[] = [];
  const copy = damagedCopy((levelDb) => {
    const log = fileOf(levelDb, /\.log$/);
    appendFileSync(log, unfinishedRecord);
    prepareFailedWrites(levelDb)(); // as the database process does when it dies of an error
  });
  const database = await startDatabase(tables, copy, (line) => lines.push(line));
  try {
    const client = clientOf(database.endpoint);
    const { Count } = await client.send(new ScanCommand({ TableName: 'plants', Select: 'COUNT' }));
    client.destroy();

    expect(Count).toBe(300);
    expect(lines).toEqual([
      expect.stringMatching(
        /^database folder: \d+\.log: cut away the last 57 bytes, a write that failed as the database died/,
      ),
    ]);
  } finally {
    await database.close();
  }
});

describe('a damaged folder is refused at start, saying what is wrong, where, and what to do', () => {
  test.each([
    [
      'the log truncated (as a power cut can leave it)',
      (levelDb: string) => {
        const log = fileOf(levelDb, /\.log$/);
        truncateSync(log, readFileSync(log).length - 100);
      },
      /damaged \(\d+\.log: the last record is cut off at byte \d+\)/,
    ],
    [
      'one byte of the log flipped',
      (levelDb: string) => {
        const log = fileOf(levelDb, /\.log$/);
        const bytes = readFileSync(log);
        const middle = Math.floor(bytes.length / 2);
        bytes.writeUInt8(bytes.readUInt8(middle) ^ 0x20, middle);
        writeFileSync(log, bytes);
      },
      /damaged \(\d+\.log: (a record fails its checksum|a malformed record) at byte \d+\)/,
    ],
    [
      'the log cut off at another size than noted when a write failed',
      (levelDb: string) => {
        const log = fileOf(levelDb, /\.log$/);
        appendFileSync(log, unfinishedRecord);
        prepareFailedWrites(levelDb)();
        appendFileSync(log, Buffer.alloc(3, 1)); // written after the note: not the write that failed
      },
      /damaged \(\d+\.log: the last record is cut off at byte \d+\)/,
    ],
    [
      'CURRENT deleted, the table files still there',
      (levelDb: string) => rmSync(join(levelDb, 'CURRENT')),
      /damaged \(its files .* are there, but CURRENT, which names the live ones, is not\)/,
    ],
    [
      'a stored value that is not what dynalite wrote',
      (levelDb: string) => {
        // Written with LevelDB itself, beside dynalite's keys: the damage a flipped byte in a table file leaves.
        const db = new ClassicLevel<string, string>(levelDb);
        return db.put('!item-plants!zz-damaged', '{"id": {"N": "1"').then(() => db.close());
      },
      /damaged \(the value after key ".*" cannot be read: /,
    ],
  ])('%s', async (_case, damage, problem) => {
    const copy = mkdtempSync(join(tmpdir(), 'local-runner-damaged-'));
    cpSync(whole, copy, { recursive: true });
    await damage(join(copy, 'dynamodb'));

    const start = startDatabase(tables, copy, quiet);
    // Were it served, close it: the test fails below, and jest is not held open by the database process.
    void start.then(
      (database) => database.close(),
      () => undefined,
    );

    await expect(start).rejects.toThrow(problem);
    await expect(start).rejects.toThrow(recovery);
    await expect(start).rejects.toThrow(join(copy, 'dynamodb'));
  });

  test.each([
    ['garbage in CURRENT', (levelDb: string) => writeFileSync(join(levelDb, 'CURRENT'), 'garbage\n')],
    [
      'a truncated MANIFEST',
      (levelDb: string) => {
        const manifest = fileOf(levelDb, /^MANIFEST-/);
        truncateSync(manifest, Math.floor(readFileSync(manifest).length / 2));
      },
    ],
  ])("%s: cannot be opened, with LevelDB's reason", async (_case, damage) => {
    const start = startDatabase(tables, damagedCopy(damage), quiet);
    void start.then(
      (database) => database.close(),
      () => undefined,
    );

    await expect(start).rejects.toThrow(/The database in .*dynamodb cannot be opened \(.+\)\. Check that the folder/);
    await expect(start).rejects.toThrow(recovery);
  });

  test('a folder another runner holds is refused by name', async () => {
    const holding = await startDatabase(tables, whole, quiet);
    try {
      await expect(startDatabase(tables, whole, quiet)).rejects.toThrow(
        `${join(whole, 'dynamodb')} is in use by another process (is the runner already running with this data folder?)`,
      );
    } finally {
      await holding.close();
    }
  });
});
