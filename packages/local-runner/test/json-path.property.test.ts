// The JSONPath reader (src/json-path/) on generated JSON, against oracles written apart from it, from what Jayway
// JsonPath's README says each construct selects (https://github.com/json-path/JsonPath#operators, the syntax Step
// Functions' "Paths" page, https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html,
// and API Gateway's `$input.path` follow): a deep scan `$..name` is every `name` member found by walking the document,
// each value before what it holds; `$..*` every value inside it; a filter `[?(@.k < n)]` the array's items whose `k`
// is a number below n; `$..[?(@.k)]` every object having `k`; and a definite path written in dot or bracket notation
// the value reached by walking its steps one by one. A failure prints fast-check's seed: replay it with
// FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { selectJsonPath } from '../src/json-path/index.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const keys = ['a', 'b', 'k', 'price', 'odd key', "it's"];
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -3, 2.5, 10, 'x', 'k'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...keys), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const childrenOf = (value: Json): Json[] =>
  Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];

/** Oracle: every `name` member, walking the document depth first. */
const membersNamed = (value: Json, name: string): Json[] => {
  const found: Json[] = [];
  const walk = (node: Json) => {
    if (isObject(node) && Object.hasOwn(node, name)) found.push(node[name] as Json);
    for (const child of childrenOf(node)) walk(child);
  };
  walk(value);
  return found;
};

/** Oracle: every value inside the document, each node's children before their own. */
const everyInside = (value: Json): Json[] => {
  const found: Json[] = [];
  const walk = (node: Json) => {
    found.push(...childrenOf(node));
    for (const child of childrenOf(node)) walk(child);
  };
  walk(value);
  return found;
};

/** Oracle: every object (the document included) having `name`. */
const objectsHaving = (value: Json, name: string): Json[] => {
  const found: Json[] = [];
  const walk = (node: Json) => {
    if (isObject(node) && Object.hasOwn(node, name)) found.push(node);
    for (const child of childrenOf(node)) walk(child);
  };
  walk(value);
  return found;
};

const bracket = (name: string) => `['${name.replace(/'/g, "\\'")}']`;

test('a deep scan, a filter and a definite path select what the oracles walk to', () => {
  fc.assert(
    fc.property(
      json,
      fc.constantFrom(...keys),
      fc.constantFrom(-3, 0, 2.5, 10),
      fc.array(fc.oneof(fc.constantFrom(...keys), fc.integer({ min: -2, max: 3 })), { maxLength: 4 }),
      (document, name, limit, steps) => {
        const member = /^\w+$/.test(name) ? `.${name}` : bracket(name);
        expect(selectJsonPath(document, `$..${member.replace(/^\./, '')}`)).toEqual(membersNamed(document, name));
        expect(selectJsonPath(document, '$..*')).toEqual(everyInside(document));
        expect(selectJsonPath(document, `$..[?(@${member})]`)).toEqual(objectsHaving(document, name));
        const below = Array.isArray(document)
          ? document.filter((item) => isObject(item) && typeof item[name] === 'number' && item[name] < limit)
          : isObject(document) && typeof document[name] === 'number' && document[name] < limit
            ? [document]
            : [];
        expect(selectJsonPath(document, `$[?(@${member} < ${limit})]`)).toEqual(below);
        let reached: Json | undefined = document;
        for (const step of steps) {
          if (typeof step === 'number')
            reached = Array.isArray(reached) ? reached[step < 0 ? reached.length + step : step] : undefined;
          else
            reached =
              reached !== undefined && isObject(reached) && Object.hasOwn(reached, step) ? reached[step] : undefined;
        }
        const written = steps.map((step) => (typeof step === 'number' ? `[${step}]` : bracket(step))).join('');
        expect(selectJsonPath(document, `$${written}`)).toEqual(reached);
      },
    ),
    { numRuns: 500 },
  );
});
