// The random ids every request carries (src/random-bytes.ts) are drawn from a pool refilled 4 KiB at a time: each draw,
// across the refills, is the length asked for and never one handed out before.
import { expect, test } from '@jest/globals';
import { randomText } from '../src/random-bytes.ts';

test('draws across many refills of the pool are whole and all different', () => {
  // 11 bytes each (an extended request id), 40 refills of the pool's 4,096 bytes: some draws cross its end.
  const drawn = Array.from({ length: 15_000 }, () => randomText(11, 'base64'));
  expect(drawn.every((text) => Buffer.from(text, 'base64').length === 11)).toBe(true);
  expect(new Set(drawn).size).toBe(drawn.length);
  const hex = Array.from({ length: 5_000 }, () => randomText(12, 'hex'));
  expect(hex.every((text) => /^[0-9a-f]{24}$/.test(text))).toBe(true);
  expect(new Set(hex).size).toBe(hex.length);
});
