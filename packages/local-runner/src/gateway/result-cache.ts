// An authorizer's result cache: each result kept for its TTL by the key API Gateway caches it by (a token, the
// identity sources' values), then gone. Expired entries are swept as new ones arrive, so a long session of ever new
// tokens holds at most those within their TTL.

/** How many entries may be set between sweeps of the expired ones (a sweep reads every entry). */
const sweepEvery = 256;

export class ResultCache<Result> {
  readonly #entries = new Map<string, { result: Result; expires: number }>();
  readonly #now: () => number;
  #setsSinceSweep = 0;

  /** `now`: the clock, in ms (tests give their own). */
  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
  }

  /** The result kept for `key`, if its TTL has not passed. */
  get(key: string): Result | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.expires > this.#now() ? entry.result : undefined;
  }

  set(key: string, result: Result, ttlSeconds: number) {
    this.#setsSinceSweep += 1;
    if (this.#setsSinceSweep >= sweepEvery) {
      this.#setsSinceSweep = 0;
      const now = this.#now();
      for (const [kept, { expires }] of this.#entries) if (expires <= now) this.#entries.delete(kept);
    }
    this.#entries.set(key, { result, expires: this.#now() + ttlSeconds * 1000 });
  }

  /** How many entries it holds, expired ones not yet swept included. */
  get size() {
    return this.#entries.size;
  }
}
