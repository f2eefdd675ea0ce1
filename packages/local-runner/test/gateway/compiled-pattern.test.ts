// The gateway's compiled patterns (src/gateway/compiled-pattern.ts): each compiled once while kept, and no more kept
// than the bound however many a session sees (each reload's template, each policy an authorizer answers).
import { expect, test } from '@jest/globals';
import { compiledPattern, maxKeptPatterns } from '../../src/gateway/compiled-pattern.ts';

test('a pattern is compiled once and used again', () => {
  expect(compiledPattern('^kept-once$')).toBe(compiledPattern('^kept-once$'));
  expect(compiledPattern('^kept-once$').test('kept-once')).toBe(true);
});

test('no more than the bound are kept: the least recently used goes first', () => {
  const old = compiledPattern('^old$');
  const recent = compiledPattern('^recent$');
  for (let i = 0; i < maxKeptPatterns - 1; i++) {
    compiledPattern(`^generated-${i}$`);
    // Used all along, never the least recent.
    if (i % 100 === 0) compiledPattern('^recent$');
  }
  expect(compiledPattern('^recent$')).toBe(recent);
  // Pushed out by the others, it is compiled again.
  const again = compiledPattern('^old$');
  expect(again).not.toBe(old);
  expect(again.test('old')).toBe(true);
});
