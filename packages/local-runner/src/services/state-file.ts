// A local service's state, kept in `<data folder>/services/<service>.json` (or in memory without a data folder). Read
// at each request and written whole after each change (to a file beside it, then renamed: a reader never sees half
// of one), so that a runner and an `invoke` on the same folder both see what the other wrote last.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir } from '../data-folder.ts';
import { RunnerError } from '../errors.ts';

export interface StateFile<T> {
  read(): T;
  write(state: T): void;
  /** Where the state is kept: the file, or undefined in memory. */
  path: string | undefined;
}

/** `<dataDir>/services/<name>.json` holding a `T`, `empty()` until first written; in memory without `dataDir`. */
export const stateFile = <T>(dataDir: string | undefined, name: string, empty: () => T): StateFile<T> => {
  if (dataDir === undefined) {
    let state = empty();
    return { read: () => structuredClone(state), write: (next) => (state = structuredClone(next)), path: undefined };
  }
  const folder = join(dataDir, 'services');
  const file = join(folder, `${name}.json`);
  return {
    path: file,
    read: () => {
      if (!existsSync(file)) return empty();
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as T;
      } catch (error) {
        throw new RunnerError(
          `${file} is not what the runner writes (${(error as Error).message}): restore it, or delete it to start again without its values`,
        );
      }
    },
    write: (state) => {
      makeDataDir(dataDir);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(`${file}.${process.pid}`, JSON.stringify(state), { mode: 0o600 });
      renameSync(`${file}.${process.pid}`, file);
    },
  };
};
