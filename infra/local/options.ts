// The command-line options the local commands share.
import { readFileSync } from 'node:fs';
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
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    Object.values(parsed).every(
      (variables) =>
        typeof variables === 'object' &&
        variables !== null &&
        Object.values(variables).every((value) => typeof value === 'string'),
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
