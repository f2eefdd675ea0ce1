// The mapping engine (src/gateway/mapping/) against API Gateway's documented examples: "Mapping templates for REST
// APIs" (https://docs.aws.amazon.com/apigateway/latest/developerguide/models-mappings.html: the pets example),
// "Examples using variables for mapping template transformations for API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-variable-examples.html: $context,
// all the parameters, $util), and "Variables for data transformations for API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html: what
// `$input` and `$util` take and give).
import { describe, expect, test } from '@jest/globals';
import { type MappingInput, renderTemplate, templateRefusal } from '../../../src/gateway/mapping/template.ts';

const input = (body: string, overrides: Partial<MappingInput> = {}): MappingInput => ({
  body,
  params: { path: { petId: '7' }, querystring: { color: 'brown' }, header: { 'User-Agent': 'curl/8.0' } },
  context: {},
  stageVariables: {},
  ...overrides,
});

const pets = JSON.stringify([
  { id: 1, type: 'dog', price: 249.99 },
  { id: 2, type: 'cat', price: 124.99 },
  { id: 3, type: 'fish', price: 0.99 },
]);

describe('$input', () => {
  test("the pets example: $input.path('$') looped with #foreach and $foreach.hasNext", () => {
    const template = [
      "#set($inputRoot = $input.path('$'))",
      '[',
      '#foreach($elem in $inputRoot)',
      '  {',
      '    "description" : "Item $elem.id is a $elem.type.",',
      '    "askingPrice" : $elem.price',
      '  }#if($foreach.hasNext),#end',
      '',
      '#end',
      ']',
    ].join('\n');
    expect(JSON.parse(renderTemplate(template, input(pets)))).toEqual([
      { description: 'Item 1 is a dog.', askingPrice: 249.99 },
      { description: 'Item 2 is a cat.', askingPrice: 124.99 },
      { description: 'Item 3 is a fish.', askingPrice: 0.99 },
    ]);
  });

  test('$input.json gives JSON text of what the path selects, $input.path the object itself', () => {
    const body = JSON.stringify({ a: { b: [1, 2, { c: 'x' }] }, name: 'Bella' });
    expect(renderTemplate("$input.json('$.a')", input(body))).toBe('{"b":[1,2,{"c":"x"}]}');
    expect(renderTemplate("$input.json('$.name')", input(body))).toBe('"Bella"');
    expect(renderTemplate("$input.path('$.name')", input(body))).toBe('Bella');
    expect(renderTemplate("$input.path('$.a.b').size()", input(body))).toBe('3');
    expect(renderTemplate("$input.path('$.a.b[2].c')", input(body))).toBe('x');
    expect(renderTemplate("$input.json('$.missing')", input(body))).toBe('null');
  });

  test('$input.json and $input.path take a JSONPath filter and a deep scan (the reference links JSONPath)', () => {
    expect(renderTemplate("$input.json('$[?(@.price < 200)].type')", input(pets))).toBe('["cat","fish"]');
    expect(renderTemplate("$input.json('$..id')", input(pets))).toBe('[1,2,3]');
    expect(renderTemplate(`#foreach($p in $input.path('$[?(@.type == "dog")]'))$p.id#end`, input(pets))).toBe('1');
  });

  // What AWS rendered, as LocalStack recorded it (localstack/localstack, tests/aws/services/apigateway/
  // test_apigateway_common.py, test_input_path_template_formatting, "invalid-path" and "nested-null-list", validated
  // on AWS 2025-06-18): a member that is absent or null, and a member of it, render as nothing. Velocity would write
  // the reference itself; a template storing `$input.path('$.message')` stored that text (the-dynamo-streamer).
  test('$input.path of an absent or null member, and a member of it, render as nothing', () => {
    const template = "#set($r = $input.path('$.gone'))[$r][$r.nested][$input.path('$.none')][$input.path('$.none').x]";
    expect(renderTemplate(template, input('{"none": null}'))).toBe('[][][][]');
    expect(renderTemplate('{"S": "$input.path(\'$.message\')"}', input('{}'))).toBe('{"S": ""}');
  });

  test('$input.body is the raw payload, and an empty one reads as {}', () => {
    expect(renderTemplate('$input.body', input('Action=SendMessage'))).toBe('Action=SendMessage');
    expect(renderTemplate("$input.json('$')", input(''))).toBe('{}');
  });

  test('$input.params(x) searches path, query string, then header; $input.params() gives all three', () => {
    const template = [
      '#set($allParams = $input.params())',
      '{',
      '#foreach($type in $allParams.keySet())',
      '#set($params = $allParams.get($type))',
      '"$type" : {',
      '#foreach($paramName in $params.keySet())',
      '"$paramName" : "$util.escapeJavaScript($params.get($paramName))"#if($foreach.hasNext),#end',
      '#end',
      '}#if($foreach.hasNext),#end',
      '#end',
      '}',
    ].join('\n');
    expect(JSON.parse(renderTemplate(template, input('')))).toEqual({
      path: { petId: '7' },
      querystring: { color: 'brown' },
      header: { 'User-Agent': 'curl/8.0' },
    });
    expect(renderTemplate("$input.params('petId') $input.params('color') $input.params('User-Agent')", input(''))).toBe(
      '7 brown curl/8.0',
    );
    expect(renderTemplate("[$input.params('nothing')]", input(''))).toBe('[]');
  });
});

describe('$util', () => {
  test('escapeJavaScript escapes as JavaScript strings do, single quotes included', () => {
    const escaped = renderTemplate('$util.escapeJavaScript($input.body)', input(`"It's" \\ /\n\t\u0001é😀`));
    expect(escaped).toBe(`\\"It\\'s\\" \\\\ \\/\\n\\t\\u0001\\u00E9\\uD83D\\uDE00`);
  });

  test('parseJson gives an object, urlEncode/urlDecode are form encoding, base64 both ways', () => {
    expect(renderTemplate(`#set($o = $util.parseJson('{"a":{"b":"c"}}'))$o.a.b`, input(''))).toBe('c');
    expect(renderTemplate("$util.urlEncode('a b&c=d/é*~')", input(''))).toBe('a+b%26c%3Dd%2F%C3%A9*%7E');
    expect(renderTemplate("$util.urlDecode('a+b%26c%3Dd%2F%C3%A9')", input(''))).toBe('a b&c=d/é');
    expect(renderTemplate("$util.base64Encode('Hello, world')", input(''))).toBe('SGVsbG8sIHdvcmxk');
    expect(renderTemplate("$util.base64Decode('SGVsbG8sIHdvcmxk')", input(''))).toBe('Hello, world');
  });
});

// API Gateway runs Velocity on Java: a string's methods are java.lang.String's (regular expressions in replaceAll,
// split and matches; length() a method).
describe("a string's Java methods", () => {
  test.each([
    ['$input.body.length()', 'fern', '4'],
    ['#if($input.body.equals("FAILED"))yes#{else}no#end', 'FAILED', 'yes'],
    ['#if($input.body.toString().equals("FAILED"))yes#{else}no#end', 'DONE', 'no'],
    ['#if($input.body.isEmpty())empty#end', '', 'empty'],
    ['$input.body.replaceAll("@@", \'"\')', '@@a@@', '"a"'],
    ['$input.body.replaceAll("(\\w+)-(\\w+)", "$2-$1")', 'moss-fern', 'fern-moss'],
    ['$input.body.replaceFirst("o", "0")', 'moon', 'm0on'],
    ['$input.body.replace(".", "!")', 'a.b.c', 'a!b!c'],
    ['#if($input.body.matches("[a-z]+"))whole#end', 'fern', 'whole'],
    ['#if($input.body.matches("[a-z]"))whole#{else}part#end', 'fern', 'part'],
    ['$input.body.split(",").size()', 'a,b,,', '2'],
    ['$input.body.substring(1, 3).toUpperCase()', 'fern', 'ER'],
  ])('%s of %j is %j', (template, body, expected) => {
    expect(renderTemplate(template, input(body))).toBe(expected);
  });
});

describe('$context and $stageVariables', () => {
  test('$context variables, and a #set of responseOverride lands in the context', () => {
    const context: Record<string, unknown> = {
      stage: 'prod',
      requestId: 'abcdefg-000-000-0000-abcdefg',
      identity: { sourceIp: '192.0.2.1' },
      responseOverride: { header: {} },
    };
    const template = [
      '{ "stage" : "$context.stage", "request_id" : "$context.requestId", "source_ip" : "$context.identity.sourceIp",',
      '  "v" : "$stageVariables.version" }',
      '#set($context.responseOverride.status = 400)',
      '#set($context.responseOverride.header.Foo = "bar")',
    ].join('\n');
    const rendered = renderTemplate(template, input('', { context, stageVariables: { version: 'v2' } }));
    expect(JSON.parse(rendered)).toEqual({
      stage: 'prod',
      request_id: 'abcdefg-000-000-0000-abcdefg',
      source_ip: '192.0.2.1',
      v: 'v2',
    });
    expect(context.responseOverride).toEqual({ status: 400, header: { Foo: 'bar' } });
  });
});

describe('the quotas of "Quotas for configuring and running a REST API in API Gateway"', () => {
  // https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-execution-service-limits-table.html
  test('a #foreach loop ends after 1,000 iterations, nested loops each counted apart', () => {
    const body = JSON.stringify({ items: Array.from({ length: 1500 }, (_, index) => index), pair: [1, 2] });
    const rendered = renderTemplate("#foreach($i in $input.path('$.items'))x#end", input(body));
    expect(rendered).toBe('x'.repeat(1000));
    const nested = "#foreach($a in $input.path('$.pair'))#foreach($b in $input.path('$.pair'))$a$b #end#end";
    expect(renderTemplate(nested, input(body))).toBe('11 12 21 22 ');
  });
});

describe('what the runner does not reproduce is refused, named', () => {
  test.each([
    ['$util.toJson($x)', '$util.toJson'],
    ['$input.headers', '$input.headers'],
    ["$input.json('$.a.min()')", 'the JSONPath $.a.min()'],
    ["$input.path('$.a[?(@.b subsetof [1])]')", 'the JSONPath $.a[?(@.b subsetof [1])]'],
    ['#macro(greet)hi#end', 'the directive #macro'],
  ])('%s', (template, construct) => {
    expect(templateRefusal(template)).toBe(construct);
  });

  test('what it reproduces is not refused', () => {
    expect(
      templateRefusal(
        "#set($b = $input.path('$.items[*].id'))#foreach($i in $b)$i#end $input.json('$[\"a b\"]') $util.urlEncode('x')",
      ),
    ).toBeUndefined();
  });

  test('a template over the documented 300 KB is refused', () => {
    expect(templateRefusal('x'.repeat(300 * 1024 + 1))).toBe(`a template over ${300 * 1024} bytes`);
  });
});
