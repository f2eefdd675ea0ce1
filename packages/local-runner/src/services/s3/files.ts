// Where the local S3 keeps its objects: files under `<data folder>/services/s3/`, each written beside itself and
// renamed (a reader never sees half of one), or in memory without a data folder (--in-memory).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeDataDir } from '../../data-folder.ts';

/** Files by path (`/`-separated, relative to the service's folder). */
export interface Files {
  read(path: string): Buffer | undefined;
  write(path: string, data: Buffer | string): void;
  /** Removes a file, or a folder and everything in it. */
  remove(path: string): void;
  /** The names of the files and folders directly in `folder`. */
  list(folder: string): string[];
}

let written = 0;

const diskFiles = (dataDir: string): Files => {
  const root = join(dataDir, 'services', 's3');
  return {
    read: (path) => {
      try {
        return readFileSync(join(root, path));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    write: (path, data) => {
      const file = join(root, path);
      if (!existsSync(dirname(file))) {
        makeDataDir(dataDir);
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      }
      written += 1;
      const next = `${file}.${process.pid}.${written}.part`;
      writeFileSync(next, data, { mode: 0o600 });
      renameSync(next, file);
    },
    remove: (path) => rmSync(join(root, path), { recursive: true, force: true }),
    list: (folder) => {
      try {
        return readdirSync(join(root, folder)).filter((name) => !name.endsWith('.part'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
  };
};

const memoryFiles = (): Files => {
  const files = new Map<string, Buffer>();
  return {
    read: (path) => files.get(path),
    write: (path, data) => files.set(path, Buffer.from(data)),
    remove: (path) => {
      for (const name of [...files.keys()]) if (name === path || name.startsWith(`${path}/`)) files.delete(name);
    },
    list: (folder) => {
      const names = new Set<string>();
      for (const name of files.keys())
        if (name.startsWith(`${folder}/`)) names.add(name.slice(folder.length + 1).split('/')[0] as string);
      return [...names];
    },
  };
};

/** The S3 service's files in `dataDir`, or in memory without one. */
export const s3Files = (dataDir: string | undefined): Files =>
  dataDir === undefined ? memoryFiles() : diskFiles(dataDir);
