// The event pattern language against the examples AWS documents, each with the event it is written for:
// "Content filtering in Amazon EventBridge event patterns"
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns-content-based-filtering.html),
// "Comparison operators for use in event patterns in Amazon EventBridge"
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html), and the README of Event
// Ruler, the matcher EventBridge runs (github.com/aws/event-ruler, README.md: "Ruler by Example", "The $or Primitive",
// "JSON Array Matching"). The sample event is the README's EC2 state-change event.
import { describe, expect, test } from '@jest/globals';
import { compilePattern, matchesPattern, PatternError } from '../../src/services/event-pattern.ts';

const sample = {
  version: '0',
  id: 'ddddd4-aaaa-7777-4444-345dd43cc333',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '012345679012',
  time: '2017-10-02T16:24:49Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
  detail: {
    'c-count': 5,
    'd-count': 3,
    'x-limit': 301.8,
    'source-ip': '10.0.0.33',
    'instance-id': 'i-000000aaaaaa00000',
    state: 'running',
  },
};

const withDetail = (detail: Record<string, unknown>) => ({
  ...sample,
  detail: { ...sample.detail, ...detail },
});

const matches = (pattern: unknown, event: unknown) => matchesPattern(compilePattern(pattern), event);

describe('the documented examples', () => {
  test.each([
    [
      'simple matching',
      {
        'detail-type': ['EC2 Instance State-change Notification'],
        detail: { state: ['initializing', 'running'] },
      },
    ],
    [
      'an event array matching one listed value',
      {
        resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000', 'other'],
      },
    ],
    ['prefix', { time: [{ prefix: '2017-10-02' }] }],
    ['suffix', { source: [{ suffix: 'ec2' }] }],
    ['equals-ignore-case', { source: [{ 'equals-ignore-case': 'AWS.EC2' }] }],
    ['prefix ignoring case', { source: [{ prefix: { 'equals-ignore-case': 'AWS.E' } }] }],
    ['suffix ignoring case', { source: [{ suffix: { 'equals-ignore-case': 'EC2' } }] }],
    ['wildcard', { 'detail-type': [{ wildcard: 'EC2*State-change*' }] }],
    ['anything-but a string', { detail: { state: [{ 'anything-but': 'initializing' }] } }],
    ['anything-but a number', { detail: { 'x-limit': [{ 'anything-but': 123 }] } }],
    ['anything-but strings', { detail: { state: [{ 'anything-but': ['stopped', 'overloaded'] }] } }],
    ['anything-but numbers', { detail: { 'x-limit': [{ 'anything-but': [100, 200, 300] }] } }],
    ['anything-but a prefix', { detail: { state: [{ 'anything-but': { prefix: 'init' } }] } }],
    ['anything-but a suffix', { detail: { state: [{ 'anything-but': { suffix: 'ing-up' } }] } }],
    [
      'anything-but ignoring case',
      {
        detail: {
          state: [
            {
              'anything-but': { 'equals-ignore-case': ['STOPPED', 'Pending'] },
            },
          ],
        },
      },
    ],
    ['anything-but a wildcard', { detail: { state: [{ 'anything-but': { wildcard: '*stop*' } }] } }],
    [
      'numeric ranges',
      {
        detail: {
          'c-count': [{ numeric: ['>', 0, '<=', 5] }],
          'd-count': [{ numeric: ['<', 10] }],
          'x-limit': [{ numeric: ['=', 3.018e2] }],
        },
      },
    ],
    ['an IPv4 block', { detail: { 'source-ip': [{ cidr: '10.0.0.0/24' }] } }],
    ['exists', { detail: { 'c-count': [{ exists: true }] } }],
    ['exists false', { detail: { 'e-count': [{ exists: false }] } }],
    [
      'the complex example',
      {
        time: [{ prefix: '2017-10-02' }],
        detail: {
          state: [{ 'anything-but': 'initializing' }],
          'c-count': [{ numeric: ['>', 0, '<=', 5] }],
          'd-count': [{ numeric: ['<', 10] }],
          'x-limit': [{ 'anything-but': [100, 200, 300] }],
          'source-ip': [{ cidr: '10.0.0.0/8' }],
        },
      },
    ],
    [
      '$or',
      {
        source: ['aws.ec2'],
        $or: [{ 'detail-type': ['nothing'] }, { detail: { state: ['running'] } }],
      },
    ],
    ['a number written otherwise', { detail: { 'c-count': [5.0, 'five'] } }],
  ])('%s matches the sample', (_, pattern) => {
    expect(matches(pattern, sample)).toBe(true);
  });

  test.each([
    ['another value', { detail: { state: ['stopped'] } }],
    ['anything-but the value itself', { detail: { state: [{ 'anything-but': ['running'] }] } }],
    ['anything-but its prefix', { detail: { state: [{ 'anything-but': { prefix: 'run' } }] } }],
    [
      'anything-but ignoring case',
      {
        detail: {
          state: [{ 'anything-but': { 'equals-ignore-case': 'RUNNING' } }],
        },
      },
    ],
    ['a range it is outside', { detail: { 'c-count': [{ numeric: ['>', 5] }] } }],
    ['numeric on a string', { detail: { state: [{ numeric: ['>', 0] }] } }],
    ['prefix on a number', { detail: { 'c-count': [{ prefix: '5' }] } }],
    ['a block it is outside', { detail: { 'source-ip': [{ cidr: '10.0.1.0/24' }] } }],
    ['exists on a missing field', { detail: { 'e-count': [{ exists: true }] } }],
    ['a field the event lacks', { detail: { zone: ['a'] } }],
    ['a number as a string', { detail: { 'c-count': ['5'] } }],
    ['a case-sensitive value', { source: ['AWS.EC2'] }],
    ['$or with no branch matching', { $or: [{ source: ['aws.s3'] }, { detail: { state: ['stopped'] } }] }],
  ])('%s does not match the sample', (_, pattern) => {
    expect(matches(pattern, sample)).toBe(false);
  });

  test('exists false matches a field that is not a leaf (Event Ruler README, "Exists matching")', () => {
    const pattern = { detail: { 'c-count': [{ exists: false }] } };
    expect(matches(pattern, withDetail({ 'c-count': { c1: 100 } }))).toBe(true);
    expect(matches(pattern, sample)).toBe(false);
  });

  test('null and the empty string match only themselves ("Matching on null values and empty strings")', () => {
    expect(matches({ detail: { zone: [null] } }, withDetail({ zone: null }))).toBe(true);
    expect(matches({ detail: { zone: [null] } }, withDetail({ zone: '' }))).toBe(false);
    expect(matches({ detail: { zone: [null] } }, sample)).toBe(false);
    expect(matches({ detail: { zone: [''] } }, withDetail({ zone: '' }))).toBe(true);
    expect(matches({ detail: { zone: [''] } }, withDetail({ zone: null }))).toBe(false);
  });

  test('two fields match within one element of an array of objects ("JSON Array Matching")', () => {
    const event = {
      employees: [
        [
          { firstName: 'John', lastName: 'Doe' },
          { firstName: 'Anna', lastName: 'Smith' },
        ],
        [{ firstName: 'Peter', lastName: 'Jones' }],
      ],
    };
    expect(matches({ employees: { firstName: ['Anna'] } }, event)).toBe(true);
    expect(matches({ employees: { firstName: ['Anna'], lastName: ['Smith'] } }, event)).toBe(true);
    expect(matches({ employees: { firstName: ['Anna'], lastName: ['Jones'] } }, event)).toBe(false);
  });

  test('an IPv6 block matches the addresses inside it ("IP address matching")', () => {
    const pattern = { detail: { 'source-ip': [{ cidr: '2001:db8::/64' }] } };
    expect(matches(pattern, withDetail({ 'source-ip': '2001:db8::12' }))).toBe(true);
    expect(matches(pattern, withDetail({ 'source-ip': '2001:db8:0:1::12' }))).toBe(false);
    expect(matches(pattern, withDetail({ 'source-ip': 'not an address' }))).toBe(false);
  });

  test('a wildcard escapes "*" and "\\" with a backslash (Event Ruler README, "Wildcard matching")', () => {
    expect(matches({ name: [{ wildcard: 'a\\*b*' }] }, { name: 'a*bc' })).toBe(true);
    expect(matches({ name: [{ wildcard: 'a\\*b*' }] }, { name: 'axbc' })).toBe(false);
    expect(matches({ name: [{ wildcard: 'a\\\\b' }] }, { name: 'a\\b' })).toBe(true);
    expect(matches({ name: [{ wildcard: 'a.c' }] }, { name: 'abc' })).toBe(false);
  });

  test('nested $or, in a nested field too ("The $or Primitive")', () => {
    const pattern = {
      source: ['aws.ec2'],
      $or: [
        { 'detail-type': ['CloudWatch Alarm State Change'] },
        {
          region: ['us-east-1'],
          $or: [{ detail: { 'c-count': [1234] } }, { detail: { 'd-count': [3] } }],
        },
      ],
      detail: {
        $or: [{ state: ['stopped'] }, { 'instance-id': [{ prefix: 'i-' }] }],
      },
    };
    expect(matches(pattern, sample)).toBe(true);
    expect(matches(pattern, withDetail({ 'd-count': 4 }))).toBe(false);
    expect(matches(pattern, withDetail({ 'instance-id': 'x' }))).toBe(false);
  });
});

describe('a malformed pattern is refused, naming the field', () => {
  test.each([
    ['not an object', [1], /a pattern is a JSON object/],
    ['an empty object', {}, /empty object/],
    ['an empty array', { source: [] }, /"source": must be an object or a non-empty array/],
    ['a bare value', { source: 'aws.ec2' }, /"source": must be an object or a non-empty array/],
    ['an unknown operator', { detail: { state: [{ contains: 'x' }] } }, /"detail.state": unknown operator "contains"/],
    ['two operators in one object', { source: [{ prefix: 'a', suffix: 'b' }] }, /exactly one operator/],
    ['a prefix that is not a string', { source: [{ prefix: 1 }] }, /prefix takes a string/],
    ['bounds in the wrong order', { n: [{ numeric: ['<', 5, '>', 1] }] }, /lower bound/],
    ['an empty range', { n: [{ numeric: ['>', 5, '<', 1] }] }, /lower bound/],
    ['an odd numeric list', { n: [{ numeric: ['>', 5, '<'] }] }, /pairs/],
    ['an unknown comparison', { n: [{ numeric: ['!=', 5] }] }, /numeric operator !=/],
    ['a bound past the limit', { n: [{ numeric: ['>', 6e9] }] }, /between/],
    ['a mixed anything-but list', { n: [{ 'anything-but': ['a', 1] }] }, /only strings or only numbers/],
    ['consecutive wildcards', { n: [{ wildcard: 'a**b' }] }, /consecutive/],
    ['a stray escape', { n: [{ wildcard: 'a\\b' }] }, /escapes only/],
    ['a block that is not one', { ip: [{ cidr: '10.0.0.0/33' }] }, /cidr takes/],
    ['exists that is not a boolean', { n: [{ exists: 'yes' }] }, /exists takes true or false/],
  ])('%s', (_, pattern, reason) => {
    expect(() => compilePattern(pattern)).toThrow(PatternError);
    expect(() => compilePattern(pattern)).toThrow(reason);
  });
});
