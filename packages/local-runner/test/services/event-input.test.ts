// A rule target's input, judged by the examples of "Amazon EventBridge input transformation"
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html: the EC2 event, its
// InputPathsMap, its templates and their outputs, and the predefined variables) and of the API Reference's
// "InputTransformer" (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_InputTransformer.html: a text
// template, quotes escaped in it, a JSON template with variables in quotes and out), and "Target" (Input, InputPath).
import { describe, expect, test } from '@jest/globals';
import { isInputPath, selectPath, targetInput, transformInput } from '../../src/services/event-input.ts';

/** The page's example Amazon EC2 event. */
const ec2Event = {
  version: '0',
  id: '7bf73129-1428-4cd3-a780-95db273d1602',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '123456789012',
  time: '2015-11-11T21:29:54Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111'],
  detail: { 'instance-id': 'i-0123456789', state: 'RUNNING' },
};
const context = {
  ruleArn: 'arn:aws:events:us-east-1:123456789012:rule/example',
  ruleName: 'example',
  ingestionTime: '2015-11-11T21:29:55.123Z',
};
const pageMap = { instance: '$.detail.instance-id', state: '$.detail.state' };
const transform = (
  inputTemplate: string,
  inputPathsMap: Record<string, string> = pageMap,
  event: Record<string, unknown> = ec2Event,
) => transformInput(event, { inputPathsMap, inputTemplate }, context);

describe('the user guide\'s examples (the EC2 event, {"instance": "$.detail.instance-id", "state": "$.detail.state"})', () => {
  test('a JSON template with variables out of quotes: each string put in with its quotes', () => {
    expect(JSON.parse(transform('{\n  "instance" : <instance>,\n  "state": <state>\n}'))).toEqual({
      instance: 'i-0123456789',
      state: 'RUNNING',
    });
  });

  test('variables in a list beside constants', () => {
    const output = transform(
      '{\n "instance" : <instance>,\n "state": [ 9, <state>, true ],\n "Transformed" : "Yes"\n}',
    );
    expect(JSON.parse(output)).toEqual({ instance: 'i-0123456789', state: [9, 'RUNNING', true], Transformed: 'Yes' });
  });

  test('a string template: the variables inside the string, the output a JSON string', () => {
    expect(JSON.parse(transform('"instance <instance> is in <state>"'))).toBe('instance i-0123456789 is in RUNNING');
  });

  test('the predefined variables: the rule ARN and name, the ingestion time, the event without and with its detail', () => {
    const output = transform(
      '{"arn": <aws.events.rule-arn>, "name": "<aws.events.rule-name>", "at": <aws.events.event.ingestion-time>, "event": <aws.events.event>, "json": <aws.events.event.json>}',
      {},
    );
    const { detail: _detail, ...withoutDetail } = ec2Event;
    expect(JSON.parse(output)).toEqual({
      arn: context.ruleArn,
      name: 'example',
      at: context.ingestionTime,
      event: withoutDetail,
      json: ec2Event,
    });
  });
});

describe("the API Reference's InputTransformer examples ($.detail.instance, $.detail.status)", () => {
  const map = { instance: '$.detail.instance', status: '$.detail.status' };
  const event = { ...ec2Event, detail: { instance: 'i-0123456789', status: 'running' } };

  test('a text template: the values put in as text', () => {
    expect(transform('<instance> is in state <status>', map, event)).toBe('i-0123456789 is in state running');
  });

  test('quotes escaped with a slash in a text template stay as written', () => {
    expect(transform('<instance> is in state \\"<status>\\"', map, event)).toBe(
      'i-0123456789 is in state \\"running\\"',
    );
  });

  test('a JSON template with variables in quotes and out', () => {
    const output = transform(
      '{"myInstance": <instance>,"myStatus": "<instance> is in state \\"<status>\\""}',
      map,
      event,
    );
    expect(JSON.parse(output)).toEqual({ myInstance: 'i-0123456789', myStatus: 'i-0123456789 is in state "running"' });
  });
});

describe('values that need care', () => {
  test('a value with quotes inside a string of a JSON template is escaped: the output stays JSON', () => {
    const event = { ...ec2Event, detail: { note: 'say "hi"\n' } };
    expect(JSON.parse(transform('{"message": "note: <note>"}', { note: '$.detail.note' }, event))).toEqual({
      message: 'note: say "hi"\n',
    });
  });

  test('an object or a number out of quotes is put in as JSON; a path that selects nothing is null', () => {
    const event = { ...ec2Event, detail: { count: 3, item: { a: [1, 2] } } };
    const map = { count: '$.detail.count', item: '$.detail.item', missing: '$.detail.nothing' };
    expect(JSON.parse(transform('{"c": <count>, "i": <item>, "m": <missing>}', map, event))).toEqual({
      c: 3,
      i: { a: [1, 2] },
      m: null,
    });
  });

  test('a placeholder no variable names is left as written', () => {
    expect(transform('"<nothing> and <state>"')).toBe('"<nothing> and RUNNING"');
  });
});

describe('Target Input and InputPath, and paths', () => {
  test('no input: the whole event; Input: that text; InputPath: what it selects, as JSON', () => {
    expect(JSON.parse(targetInput(ec2Event, {}, context))).toEqual(ec2Event);
    expect(targetInput(ec2Event, { input: '{"constant":true}' }, context)).toBe('{"constant":true}');
    expect(JSON.parse(targetInput(ec2Event, { inputPath: '$.detail' }, context))).toEqual(ec2Event.detail);
  });

  test('the documented subset: dots, dashes, array indices, wildcards', () => {
    expect(selectPath(ec2Event, '$')).toEqual(ec2Event);
    expect(selectPath(ec2Event, '$.detail.instance-id')).toBe('i-0123456789');
    expect(selectPath(ec2Event, '$.resources[0]')).toBe(ec2Event.resources[0]);
    expect(selectPath(ec2Event, '$.detail.*')).toEqual(['i-0123456789', 'RUNNING']);
    expect(selectPath(ec2Event, '$.detail.none')).toBeUndefined();
    expect([isInputPath('$.detail.a-b_c/d[2]'), isInputPath('detail'), isInputPath('$..x')]).toEqual([
      true,
      false,
      false,
    ]);
  });
});
