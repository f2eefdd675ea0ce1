// The data folder's key: 32 random bytes in `<data folder>/data-key` (mode 0600, created on first use), with which the
// local services encrypt what they keep at rest (AES-256-GCM, node:crypto): SSM parameters' values and secrets'.
// Without a data folder (--in-memory) the key lives in memory alone, as the values do.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir } from '../data-folder.ts';
import { RunnerError } from '../errors.ts';

const keyBytes = 32;
const ivBytes = 12;
/** The sealed text's form: its version, then the IV, the GCM tag and the ciphertext, each base64. */
const prefix = 'v1';

export interface DataKey {
  /** `text` encrypted: `v1:<iv>:<tag>:<ciphertext>`. */
  seal(text: string): string;
  /** What `seal` sealed; a RunnerError naming `what` when the text is not one this key sealed. */
  open(sealed: string, what: string): string;
  /** An HMAC-SHA-256 of `text` (base64url): a fingerprint that says nothing of a secret value. */
  fingerprint(text: string): string;
}

const keyOf = (key: Buffer): DataKey => ({
  seal: (text) => {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return [prefix, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  },
  open: (sealed, what) => {
    const [version, iv = '', tag = '', data = ''] = sealed.split(':');
    try {
      if (version !== prefix) throw new Error(`not a ${prefix} value`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new RunnerError(
        `${what} cannot be decrypted with the data folder's key (${(error as Error).message}): the key or the value was changed; delete the services folder to start again without its values`,
      );
    }
  },
  fingerprint: (text) => createHmac('sha256', key).update(text).digest('base64url'),
});

/** The key of `dataDir` (`data-key`), created with mode 0600 when missing; in memory without a data folder. */
export const loadDataKey = (dataDir: string | undefined): DataKey => {
  if (dataDir === undefined) return keyOf(randomBytes(keyBytes));
  const file = join(dataDir, 'data-key');
  if (!existsSync(file)) {
    makeDataDir(dataDir);
    // `wx`: another process that created it first wins, and its key is read below.
    try {
      writeFileSync(file, randomBytes(keyBytes).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== keyBytes)
    throw new RunnerError(
      `${file} is not the data folder's key (${keyBytes} bytes, base64): restore it, or delete it and the services folder beside it to start again without the values it encrypted`,
    );
  return keyOf(key);
};
