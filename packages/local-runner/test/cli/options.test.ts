import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import {
  commandFailed,
  envVarsOf,
  idleTimeoutOf,
  inspectOf,
  layerDirsOf,
  maxWorkersOf,
  projectOf,
  usageOf,
  workerCap,
} from '../../src/cli/options.ts';
import { RunnerError } from '../../src/errors.ts';
import { runnerBin } from '../helpers/runner-process.ts';

/** A folder with no project and no configuration: the command's options alone decide. */
const anywhere = () => mkdtempSync(join(tmpdir(), 'local-runner-cli-'));

describe('--idle-timeout', () => {
  test('whole seconds, at least 1, as milliseconds; by default 10 minutes', () => {
    expect(idleTimeoutOf('600')).toBe(600_000);
    expect(idleTimeoutOf('1')).toBe(1000);
    expect(() => idleTimeoutOf('0')).toThrow('--idle-timeout must be at least 1 second');
    expect(() => idleTimeoutOf('1.5')).toThrow('--idle-timeout must be a whole number, not 1.5');
    expect(usageOf('start', ['idle-timeout'])).toContain('Lambda stops idle ones');
    expect(usageOf('start', ['idle-timeout'])).toContain('(default 600)');
  });
});

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
    const path = join(mkdtempSync(join(tmpdir(), 'local-runner-env-')), 'env.json');
    writeFileSync(path, content);
    return path;
  };

  test('reads values per function id', () => {
    expect(envVarsOf(file('{"ItemsFunction": {"TABLE_NAME": "t", "X": ""}}'))).toEqual({
      ItemsFunction: { TABLE_NAME: 't', X: '' },
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

  test('refuses a file that is not JSON, naming the file and the format', () => {
    const path = file('{nope');
    expect(() => envVarsOf(path)).toThrow(
      new RunnerError(`${path}: not JSON; expected { "<function id>": { "NAME": "value", ... } }`),
    );
  });
});

describe('usage, generated from the declarations', () => {
  test('each option on its line, with its placeholder, help and default, aligned', () => {
    expect(usageOf('npm run x -- [options]', ['data-dir', 'in-memory', 'help'])).toBe(
      [
        'npm run x -- [options]',
        "  --data-dir DIR  the data folder: the database and the issuer key (default: local-runner.json's dataDir, or .local-runner)",
        '  --in-memory     keep nothing on disk',
        '  --help          print this and exit',
      ].join('\n'),
    );
  });

  test('--help prints the usage of the command, and an unknown option the usage after what is wrong', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [runnerBin, 'token', ...args], { cwd: anywhere(), encoding: 'utf8' });
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('cdk-local-runner token [options]\n  --data-dir DIR');
    expect(help.stdout).toMatch(/\n {2}--expires-in TIME +seconds, or a span such as 30m or 12h \(default 1h\)\n/);
    const unknown = run('--nope');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--nope'[\s\S]*\n\ncdk-local-runner token \[options\]/);
  });
});

describe('how a command ends on an error', () => {
  const printed = (error: unknown) => {
    const lines: string[] = [];
    const original = console.error;
    console.error = (line: string) => lines.push(line);
    try {
      commandFailed('npm run x', error);
    } finally {
      console.error = original;
      process.exitCode = undefined;
    }
    return lines.join('\n');
  };

  test("a user's mistake (RunnerError) prints its message alone", () => {
    expect(printed(new RunnerError('port 3000 is in use'))).toBe('npm run x failed: port 3000 is in use');
  });

  test('anything else is a bug: its stack', () => {
    const bug = new TypeError('undefined is not a function');
    expect(printed(bug)).toBe(`npm run x failed: ${bug.stack}`);
    expect(bug.stack).toMatch(/\n\s+at /);
  });

  test('from the command line: a damaged issuer key is told without a stack, exit 1', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'local-runner-cli-'));
    writeFileSync(join(dataDir, 'dev-issuer-key.json'), '{}');
    const { status, stderr } = spawnSync(
      process.execPath,
      [runnerBin, 'token', '--data-dir', dataDir, '--scope', 'items/write'],
      { cwd: anywhere(), encoding: 'utf8' },
    );
    expect(status).toBe(1);
    expect(stderr).toMatch(
      /^cdk-local-runner token failed: \S+dev-issuer-key\.json is not the development issuer's key/,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('--context NAME=VALUE (as cdk synth -c takes it)', () => {
  const project = () => {
    const root = anywhere();
    writeFileSync(join(root, 'cdk.json'), '{"app": "node app.js"}');
    return root;
  };

  test('each value reaches the synth, a value holding = too', () => {
    expect(projectOf({ context: ['origin=https://a.example', 'q=a=b'] }, project()).context).toEqual({
      origin: 'https://a.example',
      q: 'a=b',
    });
  });

  test('none given: no context of the runner', () => {
    expect(projectOf({}, project()).context).toBeUndefined();
  });

  test('--inspect: the synth is told it is for debugging (inspectContextKey), besides the values given', () => {
    expect(projectOf({ inspect: '' }, project()).context).toEqual({ 'local-runner:inspect': 'true' });
    expect(projectOf({ inspect: 'Items', context: ['q=1'] }, project()).context).toEqual({
      'local-runner:inspect': 'true',
      q: '1',
    });
  });

  test.each([
    ['no =', ['origin'], '--context origin: expected NAME=VALUE'],
    ['no name', ['=x'], '--context =x: expected NAME=VALUE'],
    ['a name twice', ['a=1', 'a=2'], '--context a is given twice'],
  ])('refuses %s', (_case, values, message) => {
    expect(() => projectOf({ context: values }, project())).toThrow(new RunnerError(message));
  });

  test('outside a CDK project: says where it looked, and what else to give', () => {
    const root = anywhere();
    expect(() => projectOf({}, root)).toThrow(`no cdk.json in ${root}: run this in a CDK project, or give --app DIR`);
  });
});

describe('--layer ARN=DIR', () => {
  const arn = 'arn:aws:lambda:us-east-1:123456789012:layer:greeting:3';

  test('each layer folder, from the working folder', () => {
    const dir = anywhere();
    expect(layerDirsOf({ layer: [`${arn}=${dir}`] })).toEqual({ [arn]: dir });
    expect(layerDirsOf({})).toEqual({});
  });

  test.each([
    ['no =', [arn], `--layer ${arn}: expected ARN=DIR`],
    ['a folder that is not there', [`${arn}=/nowhere/layer`], `--layer ${arn}=/nowhere/layer: no such folder`],
  ])('refuses %s', (_case, values, message) => {
    expect(() => layerDirsOf({ layer: values })).toThrow(new RunnerError(message));
  });
});

describe('--inspect[=FUNCTION] and --inspect-port N', () => {
  test('a function, or (alone: the empty value) every Node.js function; the first port 9229 unless given', () => {
    expect(inspectOf({})).toBeUndefined();
    expect(inspectOf({ inspect: '' })).toEqual({ functionId: undefined, firstPort: 9229 });
    expect(inspectOf({ inspect: 'Items', 'inspect-port': '9300' })).toEqual({ functionId: 'Items', firstPort: 9300 });
    expect(() => inspectOf({ inspect: '', 'inspect-port': 'x' })).toThrow('--inspect-port must be a whole number');
  });

  test('from the command line, alone it takes no value (as node --inspect), and not with --watch', () => {
    const { status, stderr } = spawnSync(
      process.execPath,
      [runnerBin, 'start', '--in-memory', '--port', '0', '--inspect', '--watch'],
      { cwd: anywhere(), encoding: 'utf8' },
    );
    expect(status).toBe(1);
    expect(stderr).toBe('cdk-local-runner start failed: --inspect is not taken with --watch\n');
  });
});
