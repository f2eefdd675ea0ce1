// Random bytes for the ids every request carries (X-Ray trace ids, API Gateway's extended request ids), drawn from a
// pool that the system's cryptographic generator fills 4 KiB at a time: Node's randomBytes(n) runs a job of its own
// for each call (a few microseconds, a few calls a request on the gateway's hot path), as randomUUID does not (it keeps
// such a cache too). The bytes are the same generator's, each handed out once.
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(4096);
let used = pool.length;

/** Where the next `size` bytes (at most the pool's size) start, the pool refilled first if they are not all there. */
const take = (size: number) => {
  if (used + size > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += size;
  return used - size;
};

/** `size` random bytes, written as `encoding` says (hex, base64). */
export const randomText = (size: number, encoding: 'hex' | 'base64') => {
  const start = take(size);
  return pool.toString(encoding, start, start + size);
};
