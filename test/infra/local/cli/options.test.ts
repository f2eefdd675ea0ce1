import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { envVarsOf, maxWorkersOf, workerCap } from '../../../../infra/local/cli/options.ts';

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

describe('--env-vars FILE (the format of sam local --env-vars)', () => {
  const file = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'plant-store-env-')), 'env.json');
    writeFileSync(path, content);
    return path;
  };

  test('reads values per function id', () => {
    expect(envVarsOf(file('{"CreatePlantFunction": {"TABLE_NAME": "t", "X": ""}}'))).toEqual({
      CreatePlantFunction: { TABLE_NAME: 't', X: '' },
    });
  });

  test('no option, no values', () => {
    expect(envVarsOf(undefined)).toBeUndefined();
  });

  test.each([
    ['a value that is not a string', '{"F": {"N": 1}}'],
    ['variables that are not an object', '{"F": ["N"]}'],
    ['not an object', '[]'],
  ])('refuses %s, naming the file and the format', (_case, content) => {
    const path = file(content);
    expect(() => envVarsOf(path)).toThrow(`${path}: expected { "<function id>": { "NAME": "value", ... } }`);
  });

  test('refuses a file that is not JSON', () => {
    expect(() => envVarsOf(file('{nope'))).toThrow(SyntaxError);
  });
});
