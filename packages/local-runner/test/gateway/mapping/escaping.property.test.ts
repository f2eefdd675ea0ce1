// `$util.escapeJavaScript` and `$input.json` give valid JSON where API Gateway's do ("Variables for data
// transformations for API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html). The page
// says of escapeJavaScript: "This function will turn any regular single quotes (') into escaped ones (\'). However,
// the escaped single quotes are not valid in JSON": so a string with no single quote, escaped and quoted, is a JSON
// string of the same text; one with a single quote is not JSON. `$input.json(path)` of any JSON body is JSON of what
// the path selects. A failure prints fast-check's seed: replay it with FC_SEED=<seed>.
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { type MappingInput, renderTemplate } from '../../../src/gateway/mapping/template.ts';

const input = (body: string): MappingInput => ({
  body,
  params: { path: {}, querystring: {}, header: {} },
  context: {},
  stageVariables: {},
});

// Any UTF-16 text: control characters, quotes, backslashes, astral characters, lone surrogates.
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom('"', '\\', '/', "'", '\u2028', '\u007f'),
      fc.string({ unit: 'binary', maxLength: 3 }),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    ),
  )
  .map((parts) => parts.join(''));

test('escapeJavaScript of a string without single quotes, quoted, is a JSON string of that string', () => {
  fc.assert(
    fc.property(
      text.filter((value) => !value.includes("'")),
      (value) => {
        const rendered = renderTemplate('"$util.escapeJavaScript($input.body)"', input(value));
        expect(JSON.parse(rendered)).toBe(value);
      },
    ),
  );
});

test("escapeJavaScript of a string with a single quote is not JSON (its \\' is not a JSON escape)", () => {
  fc.assert(
    fc.property(text, text, (before, after) => {
      const rendered = renderTemplate('"$util.escapeJavaScript($input.body)"', input(`${before}'${after}`));
      expect(() => JSON.parse(rendered)).toThrow(SyntaxError);
    }),
  );
});

test("$input.json('$') and $input.json of a member give JSON of what they select, for any JSON body", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.string(), (value, key) => {
      const body = JSON.stringify({ [key]: value, whole: value });
      expect(JSON.parse(renderTemplate("$input.json('$')", input(body)))).toEqual(JSON.parse(body));
      expect(JSON.parse(renderTemplate("$input.json('$.whole')", input(body)))).toEqual(
        JSON.parse(JSON.stringify(value)),
      );
    }),
  );
});
