// The command-line options the local commands share.
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';

export const sharedOptions = {
  'data-dir': { type: 'string', default: '.plant-store' },
  'in-memory': { type: 'boolean', default: false },
  'env-vars': { type: 'string' },
  stack: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ParseArgsConfig['options'];

export const parse = <T extends NonNullable<ParseArgsConfig['options']>>(
  options: T,
  usage: string,
  allowPositionals = false,
) => {
  try {
    const parsed = parseArgs({ options, allowPositionals, strict: true });
    if ((parsed.values as { help?: boolean }).help) {
      console.log(usage);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exit(2);
  }
};

/** The data folder, or undefined with --in-memory. */
export const dataDirOf = (values: {
  'data-dir'?: string | boolean | undefined;
  'in-memory'?: string | boolean | undefined;
}) => (values['in-memory'] === true ? undefined : resolve(String(values['data-dir'] ?? '.plant-store')));

/** `--env-vars file.json`: `{ "<function id>": { "NAME": "value" } }`, as `sam local --env-vars` takes it. */
export const envVarsOf = (file: string | boolean | undefined): Record<string, Record<string, string>> | undefined => {
  if (typeof file !== 'string') return undefined;
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const isPlainObject = (value: unknown): value is object =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const valid =
    isPlainObject(parsed) &&
    Object.values(parsed).every(
      (variables) => isPlainObject(variables) && Object.values(variables).every((value) => typeof value === 'string'),
    );
  if (!valid) throw new Error(`${file}: expected { "<function id>": { "NAME": "value", ... } }`);
  return parsed as Record<string, Record<string, string>>;
};

export const wholeNumber = (value: string | boolean | undefined, name: string): number => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a whole number, not ${String(value)}`);
  return parsed;
};

/**
 * The most execution environments per function this machine can hold: 4 per core (each initializes on a core; more
 * only queue there, until initializations time out) and one per 256 MiB of half the memory.
 */
export const workerCap = () =>
  Math.max(1, Math.min(4 * availableParallelism(), Math.floor(totalmem() / 2 / (256 * 1024 * 1024))));

/** `--max-workers`: a whole number of at least 1, capped at `workerCap()`; says when it was capped. */
export const maxWorkersOf = (value: string | boolean | undefined, log: (line: string) => void): number => {
  const wanted = wholeNumber(value, '--max-workers');
  if (wanted < 1) throw new Error('--max-workers must be at least 1');
  const cap = workerCap();
  if (wanted <= cap) return wanted;
  log(`--max-workers ${wanted} is more than this machine can hold; using ${cap} (4 per core)`);
  return cap;
};
