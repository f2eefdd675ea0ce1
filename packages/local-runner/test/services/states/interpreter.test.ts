// The interpreter's parts against the examples AWS documents: the intrinsic functions ("Intrinsic functions for
// JSONPath states in Step Functions", https://docs.aws.amazon.com/step-functions/latest/dg/intrinsic-functions.html),
// Retry's back-off and the error names Retry and Catch take ("Handling errors in Step Functions workflows",
// https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html), ResultPath ("Specifying state
// output using ResultPath in Step Functions", https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultpath.html),
// Choice rules ("Choice workflow state", https://docs.aws.amazon.com/step-functions/latest/dg/state-choice.html), and the
// JSONata functions Step Functions adds ("Transforming data with JSONata in Step Functions",
// https://docs.aws.amazon.com/step-functions/latest/dg/transforming-data.html).
import { expect, test } from '@jest/globals';
import { holds } from '../../../src/services/states/choice-rules.ts';
import { evaluatedFields, filled, withResult } from '../../../src/services/states/data-flow.ts';
import { StatesError } from '../../../src/services/states/errors.ts';
import { retryDelayMs, takes } from '../../../src/services/states/retry.ts';

const intrinsic = (text: string, value: unknown = {}) =>
  (filled({ 'out.$': text }, { value, context: {}, variables: {} }) as { out: unknown }).out;

test('the intrinsic functions give what the guide’s examples show', () => {
  expect(intrinsic("States.Format('Hello, my name is {}.', $.name)", { name: 'Arnav' })).toBe(
    'Hello, my name is Arnav.',
  );
  expect(intrinsic('States.ArrayPartition($.inputArray, 4)', { inputArray: [1, 2, 3, 4, 5, 6, 7, 8, 9] })).toEqual([
    [1, 2, 3, 4],
    [5, 6, 7, 8],
    [9],
  ]);
  expect(intrinsic('States.ArrayRange(1, 9, 2)')).toEqual([1, 3, 5, 7, 9]);
  expect(intrinsic('States.ArrayUnique($.values)', { values: [1, 2, 3, 3, 3, 3, 3] })).toEqual([1, 2, 3]);
  expect(
    intrinsic('States.ArrayGetItem($.inputArray, $.index)', { inputArray: [1, 2, 3, 4, 5, 6, 7, 8, 9], index: 5 }),
  ).toBe(6);
  expect(intrinsic("States.Base64Encode('Data to encode')")).toBe('RGF0YSB0byBlbmNvZGU=');
  expect(intrinsic("States.Base64Decode('RGVjb2RlZCBkYXRh')")).toBe('Decoded data');
  expect(intrinsic("States.Hash('input data', 'SHA-1')")).toBe('aaff4a450a104cd177d28d18d74485e8cae074b7');
  expect(intrinsic('States.MathAdd($.value1, $.step)', { value1: 111, step: -1 })).toBe(110);
  expect(intrinsic("States.StringSplit('This.is+a,test=string', '.+,=')")).toEqual([
    'This',
    'is',
    'a',
    'test',
    'string',
  ]);
  expect(
    intrinsic('States.JsonMerge($.json1, $.json2, false)', {
      json1: { a: { a1: 1, a2: 2 }, b: 2 },
      json2: { a: { a3: 1, a4: 2 }, c: 3 },
    }),
  ).toEqual({ a: { a3: 1, a4: 2 }, b: 2, c: 3 });
  expect(intrinsic("States.Format('{} \\{literal\\}', States.ArrayLength(States.Array(1, 'two', null)))")).toBe(
    '3 {literal}',
  );
  expect(() => intrinsic("States.StringToJson('not json')")).toThrow(
    expect.objectContaining({ error: 'States.IntrinsicFailure' }),
  );
});

test('Retry waits IntervalSeconds times BackoffRate to the power of its retries, at most MaxDelaySeconds', () => {
  const retrier = { IntervalSeconds: 3, BackoffRate: 2, MaxDelaySeconds: 10 };
  expect([0, 1, 2, 3].map((count) => retryDelayMs(retrier, count))).toEqual([3000, 6000, 10_000, 10_000]);
  expect(retryDelayMs({}, 2)).toBe(4000);
  // FULL jitter: a random part of the computed wait.
  expect(retryDelayMs({ ...retrier, JitterStrategy: 'FULL' }, 1, () => 0.5)).toBe(3000);
});

test('States.ALL takes every error but States.Runtime; States.TaskFailed every one but States.Timeout', () => {
  expect(takes(['States.ALL'], 'Lambda.Unknown')).toBe(true);
  expect(takes(['States.ALL'], 'States.Runtime')).toBe(false);
  expect(takes(['States.ALL'], 'States.DataLimitExceeded')).toBe(false);
  expect(takes(['States.TaskFailed'], 'Declined')).toBe(true);
  expect(takes(['States.TaskFailed'], 'States.Timeout')).toBe(false);
  expect(takes(['States.Timeout'], 'States.Timeout')).toBe(true);
  expect(takes(['Declined'], 'Flaky')).toBe(false);
});

test('ResultPath puts the result into the input, null keeps the input, and a path through a scalar fails', () => {
  const input = { comment: 'An input comment.', data: { val1: 23, val2: 17 } };
  expect(withResult(input, 40, '$.data.result')).toEqual({
    comment: 'An input comment.',
    data: { val1: 23, val2: 17, result: 40 },
  });
  expect(withResult(input, 40, null)).toEqual(input);
  expect(withResult(input, 40, '$')).toBe(40);
  expect(() => withResult(input, 40, '$.comment.result')).toThrow(StatesError);
});

test('Choice rules: And, Not, comparisons by path, StringMatches, IsPresent', () => {
  const scope = { value: { type: 'Private', value: 53, low: 20, name: 'log-2024.txt' }, context: {}, variables: {} };
  const rule = {
    And: [
      { Not: { Variable: '$.type', StringEquals: 'Public' } },
      { Variable: '$.value', NumericGreaterThanPath: '$.low' },
      { Variable: '$.name', StringMatches: 'log-*.txt' },
      { Variable: '$.missing', IsPresent: false },
    ],
  };
  expect(holds(rule, scope)).toBe(true);
  expect(holds({ Variable: '$.value', StringEquals: '53' }, scope)).toBe(false);
  expect(() => holds({ Variable: '$.missing', NumericEquals: 1 }, scope)).toThrow(
    expect.objectContaining({ error: 'States.Runtime' }),
  );
});

test('JSONata: $states, variables and the functions Step Functions adds; an expression giving nothing fails', async () => {
  const states = { input: { prices: [1, 2, 3, 4, 5] }, context: { Execution: { Name: 'e-1' } } };
  const fields = {
    chunks: '{% $partition($states.input.prices, 2) %}',
    steps: '{% $range(0, 10, 5) %}',
    digest: "{% $hash('input data', 'SHA-1') %}",
    parsed: '{% $parse(\'{"a":1}\').a %}',
    name: '{% $states.context.Execution.Name & "/" & $who %}',
    literal: 'no expression',
  };
  expect(await evaluatedFields(fields, states, { who: 'fern' }, 'Output')).toEqual({
    chunks: [[1, 2], [3, 4], [5]],
    steps: [0, 5, 10],
    digest: 'aaff4a450a104cd177d28d18d74485e8cae074b7',
    parsed: 1,
    name: 'e-1/fern',
    literal: 'no expression',
  });
  await expect(evaluatedFields('{% $states.input.missing %}', states, {}, 'Output')).rejects.toMatchObject({
    error: 'States.QueryEvaluationError',
  });
});
