// What the database process notes as it dies of an error (a write that failed on a full disk): the size of each
// LevelDB log file at that moment. The write that failed may have left the live log ending in a record cut off; that
// record was never acknowledged (the process died before answering). At the next start, a log cut off at exactly its
// noted size is that write, and only that is cut away (folder-check.ts); any other damage is refused as before.
// The note lives in a file allocated when the process starts and is overwritten in place: a full disk has no room
// for a new file. (On a copy-on-write file system an overwrite needs room too; the note is then lost, and the next
// start refuses the folder as damaged, as it would without it.)
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const recordFile = 'failed-writes.json';
const recordBytes = 4096;
const logFile = /^\d+\.log$/;

/** Each log file's size when a write to the folder last failed. */
type FailedWrites = Record<string, number>;

/** The noted sizes in the LevelDB folder `path` (none when there is no note, or it cannot be read). */
export const readFailedWrites = (path: string): FailedWrites => {
  try {
    const text = readFileSync(join(path, recordFile), 'utf8').trim();
    return text === '' ? {} : (JSON.parse(text) as FailedWrites);
  } catch {
    return {};
  }
};

const overwrite = (fd: number, text: string) => {
  writeSync(fd, Buffer.from(text.padEnd(recordBytes, ' ')), 0, recordBytes, 0);
  fsyncSync(fd);
};

/** Empties the note (after a start that dealt with it). */
export const clearFailedWrites = (path: string) => {
  const file = join(path, recordFile);
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r+');
  try {
    overwrite(fd, '');
  } finally {
    closeSync(fd);
  }
};

/**
 * Allocates the note's file in the LevelDB folder `path` (keeping what it notes) and returns what notes the log
 * files' sizes into it, for the moment the process dies of an error. Noting never throws: a process that is dying
 * has nothing better to do with an error.
 */
export const prepareFailedWrites = (path: string): (() => void) => {
  const file = join(path, recordFile);
  const noted = readFailedWrites(path);
  const fd = openSync(file, existsSync(file) ? 'r+' : 'w+');
  if (fstatSync(fd).size < recordBytes) overwrite(fd, JSON.stringify(noted));
  return () => {
    try {
      for (const name of readdirSync(path).filter((entry) => logFile.test(entry))) {
        noted[name] = statSync(join(path, name)).size;
      }
      const text = JSON.stringify(noted);
      if (text.length <= recordBytes) overwrite(fd, text);
    } catch {
      // No note: the next start refuses a cut-off log, as without one.
    }
  };
};
