// One value written in many intrinsic forms, each of which CloudFormation resolves to that value ("Intrinsic function
// reference" in the CloudFormation template reference: "Fn::Join" joins a list with any delimiter; "Fn::Sub" with its
// variable map or by `${Name}` references; "Fn::Select" of an "Fn::Split"; "Fn::If" on a condition that holds, built of
// "Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not" and "Condition"; "Fn::FindInMap"; a `Ref` to a parameter's default;
// "AWS::NoValue" leaving a list item out; a `Ref` to an "AWS::SSM::Parameter", which "returns the name of the
// parameter" (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ssm-parameter.html#aws-resource-ssm-parameter-return-values)),
// nested. The oracle is the value the form was written from, never an evaluation: every form must give it, through the
// evaluator and through the readers (a function's environment, an HTTP API route's Target, "AWS::ApiGatewayV2::Route"
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigatewayv2-route.html: `integrations/` and the
// integration's id). A failure prints fast-check's seed: replay it with FC_SEED=<seed>.
import { afterAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { HttpApi } from '../../src/app/api.ts';
import { readAssembly } from '../../src/app/assembly.ts';
import { resolveList, resolveValue, type ValueContext } from '../../src/app/intrinsics.ts';
import { functionVariables } from '../../src/lambda/variables.ts';
import { handWrittenAssemblies, proxyIntegration } from '../helpers/hand-written-assembly.ts';

/** Text without the characters that Fn::Sub, a list parameter and the split delimiters below give a meaning to. */
const textOf = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_/:. '.split('')), minLength: 0, maxLength: 24 });
const delimiters = ['|', ';', '#', ','];

interface Template {
  Parameters: Record<string, { Type: string; Default: string }>;
  Conditions: Record<string, unknown>;
  Mappings: Record<string, Record<string, Record<string, unknown>>>;
  Resources: Record<string, unknown>;
}

/** Writes values in random forms, choosing by `choices`; `leaves` are expressions known to give a text. */
const writer = (choices: number[], leaves: Record<string, unknown[]> = {}) => {
  let at = 0;
  let count = 0;
  const next = (n: number) => ((choices[at++ % choices.length] ?? 0) + at) % n;
  const fresh = (prefix: string) => {
    count += 1;
    return `${prefix}${count}`;
  };
  const template: Template = { Parameters: {}, Conditions: {}, Mappings: {}, Resources: {} };

  /** `text` cut into pieces (the pieces joined give it back). */
  const pieces = (text: string) => {
    const cut = text.length === 0 ? 0 : next(text.length + 1);
    return [text.slice(0, cut), text.slice(cut)];
  };

  /** A condition that holds when `value`. */
  const condition = (value: boolean, depth: number): unknown => {
    const a = `v${next(5)}`;
    switch (depth <= 0 ? 0 : next(5)) {
      case 0:
        return { 'Fn::Equals': [string(a, depth - 1, false), value ? a : `${a}x`] };
      case 1:
        return { 'Fn::Not': [condition(!value, depth - 1)] };
      case 2: {
        const operands = [condition(true, depth - 1), condition(value, depth - 1)];
        return { 'Fn::And': next(2) ? operands : operands.reverse() };
      }
      case 3: {
        const operands = [condition(false, depth - 1), condition(value, depth - 1)];
        return { 'Fn::Or': next(2) ? operands : operands.reverse() };
      }
      default: {
        const name = fresh('Named');
        template.Conditions[name] = condition(value, depth - 1);
        return { Condition: name };
      }
    }
  };
  const conditionNamed = (value: boolean, depth: number) => {
    const name = fresh('Cond');
    template.Conditions[name] = condition(value, depth);
    return name;
  };

  /** `text` written in a random form; `resources`: whether it may name a resource (not in a condition). */
  const string = (text: string, depth: number, resources = true): unknown => {
    const forms = [
      () => text,
      () => {
        const [a, b] = pieces(text);
        return { 'Fn::Join': ['', [string(a ?? '', depth - 1, resources), string(b ?? '', depth - 1, resources)]] };
      },
      () => {
        const delimiter = text.includes('/') ? '/' : ':';
        const parts = text.split(delimiter).map((part) => string(part, depth - 1, resources));
        // An AWS::NoValue item is left out of the list.
        const gap = { 'Fn::If': [conditionNamed(false, depth - 1), 'gap', { Ref: 'AWS::NoValue' }] };
        return { 'Fn::Join': [delimiter, next(2) ? parts : [gap, ...parts]] };
      },
      () => {
        const [a, b] = pieces(text);
        return { 'Fn::Sub': [`${a}\${Rest}`, { Rest: string(b ?? '', depth - 1, resources) }] };
      },
      () => {
        const name = fresh('P');
        template.Parameters[name] = { Type: 'String', Default: text };
        return next(2) ? { Ref: name } : { 'Fn::Sub': `\${${name}}` };
      },
      () => {
        const free = delimiters.filter((delimiter) => !text.includes(delimiter));
        const delimiter = free[next(free.length)];
        if (delimiter === undefined) return text;
        const items = ['d0', text, 'd1'].slice(next(2));
        const joined = string(items.join(delimiter), depth - 1, resources);
        return { 'Fn::Select': [String(items.indexOf(text)), { 'Fn::Split': [delimiter, joined] }] };
      },
      () => ({ 'Fn::Select': [1, ['decoy', string(text, depth - 1, resources), 'decoy']] }),
      () =>
        next(2)
          ? { 'Fn::If': [conditionNamed(true, depth - 1), string(text, depth - 1, resources), 'decoy'] }
          : { 'Fn::If': [conditionNamed(false, depth - 1), 'decoy', string(text, depth - 1, resources)] },
      () => {
        const map = fresh('Map');
        template.Mappings[map] = { Top: { Key: text }, Other: { Key: 'decoy' } };
        return { 'Fn::FindInMap': [map, string('Top', depth - 1, resources), 'Key'] };
      },
      () => {
        if (!resources) return text;
        const id = fresh('Param');
        template.Resources[id] = {
          Type: 'AWS::SSM::Parameter',
          Properties: { Type: 'String', Value: 'v', Name: string(text, depth - 1) },
        };
        return { Ref: id };
      },
      () => {
        const known = leaves[text];
        return resources && known ? known[next(known.length)] : text;
      },
    ];
    return (forms[depth <= 0 ? 0 : next(forms.length)] as () => unknown)();
  };

  /** `items` written as a list in a random form. */
  const list = (items: string[], depth: number): unknown => {
    switch (depth <= 0 ? 0 : next(3)) {
      case 0:
        return items.map((item) => string(item, depth - 1));
      case 1: {
        const free = delimiters.filter((delimiter) => !items.some((item) => item.includes(delimiter)));
        const delimiter = free[next(free.length)] ?? '|';
        return { 'Fn::Split': [delimiter, string(items.join(delimiter), depth - 1)] };
      }
      default: {
        const name = fresh('Listed');
        template.Parameters[name] = { Type: 'CommaDelimitedList', Default: items.join(',') };
        return { Ref: name };
      }
    }
  };
  return { template, string, list };
};

const contextOf = (template: Template): ValueContext => ({
  stackName: 'Case',
  resources: template.Resources as ValueContext['resources'],
  tables: [],
  exports: new Map(),
  template,
});

const choices = fc.array(fc.nat(1_000), { minLength: 1, maxLength: 48 });
const runs = process.env.PLANT_STORE_THOROUGH ? 20_000 : 1_000;

test('a text written in any form (nested to depth 4) evaluates to that text; two forms of it, to the same', () => {
  fc.assert(
    fc.property(textOf, choices, choices, (text, first, second) => {
      const one = writer(first);
      const other = writer(second);
      const written = [one.string(text, 4), other.string(text, 4)];
      expect(resolveValue(written[0], contextOf(one.template))).toBe(text);
      expect(resolveValue(written[1], contextOf(other.template))).toBe(text);
      // Fn::Base64 of any form: the text's base64 ("Fn::Base64": "the Base64 representation of the input string").
      expect(resolveValue({ 'Fn::Base64': written[0] }, contextOf(one.template))).toBe(
        Buffer.from(text).toString('base64'),
      );
    }),
    { numRuns: runs },
  );
});

test('a list written in any form evaluates to that list', () => {
  // Items without spaces (whether a CommaDelimitedList's items are trimmed is not what this tests) or delimiters.
  const item = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_/:.'.split('')), minLength: 1, maxLength: 12 });
  const items = fc.array(item, { minLength: 1, maxLength: 5 });
  fc.assert(
    fc.property(items, choices, (list, stream) => {
      const { template, list: written } = writer(stream);
      expect(resolveList(written(list, 3), contextOf(template))).toEqual(list);
    }),
    { numRuns: runs },
  );
});

const { assemblyOf, removeAll } = handWrittenAssemblies('evaluator-property');
afterAll(removeAll);

const inline = (variables: Record<string, unknown>) => ({
  Type: 'AWS::Lambda::Function',
  Properties: {
    Runtime: 'nodejs24.x',
    Handler: 'index.handler',
    Code: { ZipFile: 'exports.handler = async () => ({ statusCode: 200 });' },
    Environment: { Variables: variables },
  },
});

test('the readers take the evaluator: a route Target and an environment variable in any form', () => {
  const leaves: Record<string, unknown[]> = {
    Integration: [{ Ref: 'Integration' }, { 'Fn::GetAtt': ['Integration', 'IntegrationId'] }],
  };
  fc.assert(
    fc.property(textOf, choices, (value, stream) => {
      const { template, string } = writer(stream, leaves);
      // The Target's text, with the integration's id only ever written as a reference to it.
      const [before, after] = ['integrations/', 'Integration'];
      const reference = leaves[after]?.[(stream[0] ?? 0) % 2];
      const target = { 'Fn::Join': ['', [string(before, 3, false), reference]] };
      const variables = { VALUE: string(value, 3) };
      template.Resources = {
        ...template.Resources,
        Echo: inline(variables),
        Http: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'http', ProtocolType: 'HTTP' } },
        Integration: proxyIntegration('Echo'),
        Route: {
          Type: 'AWS::ApiGatewayV2::Route',
          Properties: { ApiId: { Ref: 'Http' }, RouteKey: 'GET /x', Target: target },
        },
      };
      const [app] = readAssembly(assemblyOf(template)).apis as HttpApi[];
      expect(
        app?.routes.map((route) => ({
          routeKey: route.routeKey,
          functionId: route.service || route.httpProxy ? undefined : route.functionId,
        })),
      ).toEqual([{ routeKey: 'GET /x', functionId: 'Echo' }]);
      const echo = app?.functions.get('Echo');
      if (!app || !echo) throw new Error('no Echo function read');
      expect(functionVariables(echo, app, {}).VALUE).toBe(value);
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 2_000 : 150 },
  );
});
