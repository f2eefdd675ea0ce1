// A folder of the system's temporary one that is this user's alone, for what no other user may read or replace: the
// inline code the runner runs, the socket a runner lends its signing key through.
import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The name of the user's cache of packages the runner installs: the runtime's SDK, Powertools' public layers. */
export const packageCacheName = 'cdk-local-runner-sdk';

/**
 * `<tmp>/<name>-<uid>`, created with mode 0700 when missing (unless `create` is false: then a missing one is returned
 * as it is, holding nothing); `problem` says why it is not this user's alone (a link, another owner, or a mode that
 * lets others in), in which case nothing may be put in it or taken from it.
 */
export const userFolder = (name: string, { create = true } = {}): { path: string; problem?: string } => {
  const uid = process.getuid?.();
  const path = join(tmpdir(), `${name}-${uid ?? 'user'}`);
  if (!create && !existsSync(path)) return { path };
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const owner = lstatSync(path);
  if (!owner.isDirectory()) return { path, problem: 'not a folder (a link, or a file)' };
  if ((uid !== undefined && owner.uid !== uid) || (owner.mode & 0o077) !== 0)
    return { path, problem: `not this user's alone (owner ${owner.uid}, mode ${(owner.mode & 0o777).toString(8)})` };
  return { path };
};
