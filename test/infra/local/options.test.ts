import { availableParallelism } from 'node:os';
import { describe, expect, test } from '@jest/globals';
import { maxWorkersOf, workerCap } from '../../../infra/local/options.ts';

describe('--max-workers', () => {
  test('refuses values that cannot work', () => {
    expect(() => maxWorkersOf('0', () => undefined)).toThrow('--max-workers must be at least 1');
    expect(() => maxWorkersOf('-3', () => undefined)).toThrow('--max-workers must be a whole number, not -3');
    expect(() => maxWorkersOf('two', () => undefined)).toThrow('--max-workers must be a whole number, not two');
  });

  test('takes what the machine can hold as it is', () => {
    const logged: string[] = [];
    expect(maxWorkersOf('1', (line) => logged.push(line))).toBe(1);
    expect(maxWorkersOf(String(workerCap()), (line) => logged.push(line))).toBe(workerCap());
    expect(logged).toEqual([]);
  });

  test('caps the rest at 4 per core, and says so', () => {
    const logged: string[] = [];
    expect(workerCap()).toBeLessThanOrEqual(4 * availableParallelism());
    expect(maxWorkersOf('1000000', (line) => logged.push(line))).toBe(workerCap());
    expect(logged).toEqual([
      `--max-workers 1000000 is more than this machine can hold; using ${workerCap()} (4 per core)`,
    ]);
  });
});
