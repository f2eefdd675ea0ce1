// The authorizer's result cache: a result is kept for its TTL, then gone, and expired entries do not pile up.
import { expect, test } from '@jest/globals';
import { ResultCache } from '../../src/gateway/result-cache.ts';

test('a result is there within its TTL and gone once it has passed', () => {
  let now = 1_000_000;
  const cache = new ResultCache<string>(() => now);
  cache.set('token', 'allow', 300);
  now += 299_999;
  expect(cache.get('token')).toBe('allow');
  now += 1;
  expect(cache.get('token')).toBeUndefined();
  expect(cache.get('another')).toBeUndefined();
});

test('ever new keys: the expired ones are swept as new ones arrive, those within their TTL kept', () => {
  let now = 0;
  const cache = new ResultCache<number>(() => now);
  cache.set('kept', 0, 3600);
  for (let index = 0; index < 10_000; index += 1) {
    cache.set(`token-${index}`, index, 1);
    now += 100;
  }
  // Each entry lives 1 s, 10 arrive a second: at most one sweep's worth and the last second's remain.
  expect(cache.size).toBeLessThanOrEqual(256 + 10 + 1);
  expect(cache.get('kept')).toBe(0);
  expect(cache.get('token-9999')).toBe(9999);
});
