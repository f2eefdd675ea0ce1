// Checks a data folder's LevelDB before dynalite serves it. LevelDB repairs what it can silently: it drops a log
// whose tail is truncated or whose records fail their checksum, and starts an empty database when CURRENT is gone —
// and the data in them with it. classic-level exposes neither LevelDB's paranoid_checks nor verify_checksums, so
// the runner checks the log files' framing itself and reads every stored value once, and refuses a damaged folder
// instead of serving it as if whole.
import { existsSync, readdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@aws-crypto/crc32c';
// The same classic-level (LevelDB binding) dynalite uses, so the check reads the folder as dynalite will.
import { ClassicLevel } from 'classic-level';
import { RunnerError } from '../errors.ts';
import { clearFailedWrites, readFailedWrites } from './failure-record.ts';

/** The folder cannot be served as it is: the message says what is wrong, where, and what to do. */
class DatabaseFolderError extends RunnerError {
  override name = 'DatabaseFolderError';
}

const recovery = (path: string) =>
  `Restore ${path} from a backup; or move it aside and start with an empty store (what it held is then gone); ` +
  "LevelDB's repair (ClassicLevel.repair in the classic-level package) may recover part of it.";

const damaged = (path: string, what: string) =>
  new DatabaseFolderError(
    `The database in ${path} is damaged (${what}); serving it would lose data silently. ${recovery(path)}`,
  );

// LevelDB's log format (https://github.com/google/leveldb/blob/main/doc/log_format.md): 32 KiB blocks of records,
// each a 7-byte header (masked CRC32C of type and data, little-endian; data length, little-endian; type) and its data.
// No package reads it, and checking it is a few lines, so it is written here.
const blockSize = 32 * 1024;
const headerSize = 7;
const recordTypes = new Set([1, 2, 3, 4]); // FULL, FIRST, MIDDLE, LAST
const maskDelta = 0xa282ead8;
const masked = (crc: number) => ((((crc >>> 15) | (crc << 17)) >>> 0) + maskDelta) >>> 0;

/** What is wrong with a LevelDB log file; `cutOffAt` where its last record (or header) is cut off. */
interface LogFileProblem {
  message: string;
  cutOffAt?: number;
}

/** What is wrong with a LevelDB log file, or undefined when every record is whole and matches its checksum. */
const logFileProblem = (bytes: Buffer): LogFileProblem | undefined => {
  let offset = 0;
  while (offset < bytes.length) {
    const leftInBlock = blockSize - (offset % blockSize);
    if (leftInBlock < headerSize) {
      offset += leftInBlock; // a block's trailer: zeros, no room for a header
      continue;
    }
    // Preallocated space that was never written: zeros to the end.
    if (bytes.subarray(offset).every((byte) => byte === 0)) return undefined;
    if (offset + headerSize > bytes.length) {
      return { message: `a record header is cut off at byte ${offset}`, cutOffAt: offset };
    }
    const checksum = bytes.readUInt32LE(offset);
    const length = bytes.readUInt16LE(offset + 4);
    const type = bytes.readUInt8(offset + 6);
    const end = offset + headerSize + length;
    if (!recordTypes.has(type) || length > leftInBlock - headerSize) {
      return { message: `a malformed record at byte ${offset}` };
    }
    if (end > bytes.length) return { message: `the last record is cut off at byte ${offset}`, cutOffAt: offset };
    if (masked(crc32c(bytes.subarray(offset + 6, end))) !== checksum)
      return { message: `a record fails its checksum at byte ${offset}` };
    offset = end;
  }
  return undefined;
};

const levelDbFile = /^(\d+\.(log|ldb|sst)|MANIFEST-\d+)$/;

/**
 * Refuses (with DatabaseFolderError) a LevelDB folder another process holds, that cannot be opened, or that is
 * damaged: table or log files without CURRENT, a log record cut off or failing its checksum, a stored value that is not
 * the JSON dynalite wrote. A folder with nothing in it yet is fine. The one repair: a log cut off where a write failed
 * as the database process died (failure-record.ts) is cut there. Resolves with notes of what it repaired.
 */
export const checkDatabaseFolder = async (path: string) => {
  const files = existsSync(path) ? readdirSync(path) : [];
  const dataFiles = files.filter((file) => levelDbFile.test(file));
  if (dataFiles.length === 0) return [];
  if (!files.includes('CURRENT')) {
    throw damaged(path, `its files ${dataFiles.join(', ')} are there, but CURRENT, which names the live ones, is not`);
  }
  const failedWrites = readFailedWrites(path);
  const notes: string[] = [];
  for (const file of dataFiles.filter((name) => name.endsWith('.log'))) {
    const bytes = readFileSync(join(path, file));
    const problem = logFileProblem(bytes);
    if (!problem) continue;
    // Cut off exactly where a write failed as the database died: that write, never acknowledged, and nothing else.
    if (problem.cutOffAt !== undefined && failedWrites[file] === bytes.length) {
      truncateSync(join(path, file), problem.cutOffAt);
      notes.push(
        `${file}: cut away the last ${bytes.length - problem.cutOffAt} bytes, a write that failed as the database ` +
          'died (a full disk or a failing one); it was never acknowledged',
      );
      continue;
    }
    throw damaged(path, `${file}: ${problem.message}`);
  }

  const db = new ClassicLevel<string, string>(path, { createIfMissing: false });
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') {
      throw new DatabaseFolderError(
        `${path} is in use by another process (is the runner already running with this data folder?)`,
      );
    }
    throw new DatabaseFolderError(
      `The database in ${path} cannot be opened (${cause?.message ?? String(error)}). Check that the folder and its ` +
        `files are readable and writable. If it is damaged: ${recovery(path)}`,
    );
  }
  try {
    let key = '';
    try {
      for await (const [entryKey, value] of db.iterator()) {
        key = entryKey;
        JSON.parse(value);
      }
    } catch (error) {
      throw damaged(path, `the value after key ${JSON.stringify(key)} cannot be read: ${(error as Error).message}`);
    }
  } finally {
    await db.close();
  }
  clearFailedWrites(path);
  return notes;
};
