// The runner's one JSONPath reader (src/json-path/), against what AWS documents: Step Functions' "Paths" page
// (https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html: paths follow JsonPath,
// Jayway's; a reference path takes no function such as length(), no lexical operator such as subsetof, no filter by
// regular expression or by another value of the document, and its `@` matches objects alone, with the example
// `$.jar[?(@.a >= 5)]`), and API Gateway's "Variables for data transformations for API Gateway"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html), whose
// `$input.path(x)` and `$input.json(x)` take a JSONPath expression; and against the store of Jayway JsonPath's README
// (https://github.com/json-path/JsonPath#path-examples), the examples both pages' syntax links to.
import { expect, test } from '@jest/globals';
import { jsonPathProblem, referencePathProblem, selectJsonPath } from '../src/json-path/index.ts';

const books = [
  { category: 'reference', author: 'Nigel Rees', title: 'Sayings of the Century', price: 8.95 },
  { category: 'fiction', author: 'Evelyn Waugh', title: 'Sword of Honour', price: 12.99 },
  { category: 'fiction', author: 'Herman Melville', title: 'Moby Dick', isbn: '0-553-21311-3', price: 8.99 },
  {
    category: 'fiction',
    author: 'J. R. R. Tolkien',
    title: 'The Lord of the Rings',
    isbn: '0-395-19395-8',
    price: 22.99,
  },
];
const store = { store: { book: books, bicycle: { color: 'red', price: 19.95 } }, expensive: 10 };
const [rees, waugh, melville, tolkien] = books;

test('the Jayway README’s path examples select what it lists', () => {
  const at = (path: string) => selectJsonPath(store, path);
  expect(at('$.store.book[*].author')).toEqual(books.map((book) => book.author));
  expect(at('$..author')).toEqual(books.map((book) => book.author));
  expect(at('$.store.*')).toEqual([books, store.store.bicycle]);
  expect(at('$.store..price')).toEqual([8.95, 12.99, 8.99, 22.99, 19.95]);
  expect(at('$..book[2]')).toEqual([melville]);
  expect(at('$..book[-2]')).toEqual([melville]);
  expect(at('$..book[0,1]')).toEqual([rees, waugh]);
  expect(at('$..book[:2]')).toEqual([rees, waugh]);
  expect(at('$..book[1:2]')).toEqual([waugh]);
  expect(at('$..book[-2:]')).toEqual([melville, tolkien]);
  expect(at('$..book[2:]')).toEqual([melville, tolkien]);
  expect(at('$..book[?(@.isbn)]')).toEqual([melville, tolkien]);
  expect(at('$.store.book[?(@.price < 10)]')).toEqual([rees, melville]);
  expect(at("$..book[?(@.price <= $['expensive'])]")).toEqual([rees, melville]);
  expect(at('$..book[?(@.author =~ /.*REES/i)]')).toEqual([rees]);
  expect(at('$..book.length()')).toBe(4);
  // Every value inside the document: store, expensive, book, bicycle, the four books, their 18 members, its 2.
  expect((at('$..*') as unknown[]).length).toBe(28);
});

test('filters: && and ||, !, in and nin, a path alone tests that it exists, a filter on an object tests it', () => {
  const at = (path: string) => selectJsonPath(store, path);
  expect(at("$.store.book[?(@.category == 'fiction' && @.isbn)].title")).toEqual([
    'Moby Dick',
    'The Lord of the Rings',
  ]);
  expect(at("$.store.book[?(@.price > 20 || @.author == 'Nigel Rees')].title")).toEqual([
    'Sayings of the Century',
    'The Lord of the Rings',
  ]);
  expect(at('$.store.book[?(!@.isbn)].price')).toEqual([8.95, 12.99]);
  expect(at("$.store.book[?(@.category in ['reference'])].price")).toEqual([8.95]);
  expect(at("$.store.book[?(@.category nin ['fiction'])].price")).toEqual([8.95]);
  expect(at("$.store.bicycle[?(@.color == 'red')].price")).toEqual([19.95]);
  expect(at('$..[?(@.isbn)].title')).toEqual(['Moby Dick', 'The Lord of the Rings']);
  // A number and a string compare as Jayway's value nodes do: by the string's value when the number comes first, by
  // the number's text when the string does; a missing member passes != alone.
  const mixed = [{ a: 1 }, { a: '1' }, { a: '1.0' }, { b: 1 }];
  expect(selectJsonPath(mixed, "$[?(@.a == '1')]")).toEqual([{ a: 1 }, { a: '1' }]);
  expect(selectJsonPath(mixed, '$[?(@.a == 1)]')).toEqual([{ a: 1 }, { a: '1' }]);
  expect(selectJsonPath(mixed, '$[?(1 == @.a)]')).toEqual([{ a: 1 }, { a: '1' }, { a: '1.0' }]);
  expect(selectJsonPath(mixed, '$[?(@.a != 1)]')).toEqual([{ a: '1.0' }, { b: 1 }]);
  expect(selectJsonPath([{ a: 10 }, { a: 9 }, { a: true }], "$[?(@.a < '5')]")).toEqual([{ a: 10 }]);
  expect(selectJsonPath([{ a: 10 }, { a: ['x', 'ab'] }, { a: true }], '$[?(@.a =~ /a.|1.|tr.*/)]')).toEqual([
    { a: 10 },
    { a: ['x', 'ab'] },
    { a: true },
  ]);
  expect(selectJsonPath([{ a: null }, { a: false }, {}], '$[?(@.a)]')).toEqual([{ a: null }, { a: false }]);
  expect(selectJsonPath([{ a: [1, 'x'] }, { a: [1] }], "$[?(@.a == [1, 'x'])]")).toEqual([{ a: [1, 'x'] }]);
  expect(selectJsonPath([{ t: [1, 2, 3] }, { t: [1] }], '$[?(@.t.length() > 2)]')).toEqual([{ t: [1, 2, 3] }]);
});

test('a definite path names one value or nothing; any other selects a list, empty when nothing matches', () => {
  expect(selectJsonPath(store, '$.store.bicycle.color')).toBe('red');
  expect(selectJsonPath(store, "$['store']['book'][-1].title")).toBe('The Lord of the Rings');
  expect(selectJsonPath(store, '$.store.nothing')).toBeUndefined();
  expect(selectJsonPath(store, '$..nothing')).toEqual([]);
  expect(selectJsonPath(store, '$.store.book[?(@.price > 100)]')).toEqual([]);
});

test('what the runner does not evaluate is said, never read as something else', () => {
  expect(jsonPathProblem('$.a[?(@.b subsetof [1])]')).toMatch(/operator subsetof, which is not evaluated locally/);
  expect(jsonPathProblem('$.a.min()')).toMatch(/calls min\(\), which is not evaluated locally/);
  expect(jsonPathProblem("$['a','b']")).toMatch(/names several members/);
  expect(jsonPathProblem('$.a[?(@.b > 1]')).toMatch(/filter that does not end/);
  expect(jsonPathProblem('a.b')).toMatch(/does not start with \$/);
  expect(jsonPathProblem('$.a[?(@.b =~ /(/)]')).toMatch(/regular expression \/\(\/, which JavaScript does not read/);
  expect(jsonPathProblem("$.a[?(@.b == 'x' && @.c)]")).toBeUndefined();
});

test('a reference path as Step Functions’ Paths page limits it; its @ matches objects alone', () => {
  const jar = { jar: [{ a: 1 }, { a: 5 }, { a: 2 }, { a: 7 }, { a: 3 }] };
  expect(selectJsonPath(jar, '$.jar[?(@.a >= 5)]', { objectsOnly: true })).toEqual([{ a: 5 }, { a: 7 }]);
  expect(referencePathProblem('$.jar[?(@.a >= 5)]')).toBeUndefined();
  expect(referencePathProblem('$.jar.length()')).toMatch(/length\(\)/);
  expect(referencePathProblem('$.jar[?(@.a in [1])]')).toMatch(/operator in/);
  expect(referencePathProblem('$.jar[?(@.b =~ /x/)]')).toMatch(/regular expression/);
  expect(referencePathProblem('$.jar[?(@.a == $.limit)]')).toMatch(/another value of the document/);
  expect(referencePathProblem('$.jar[?(@.a >= 5)]', true)).toMatch(/does not name one place/);
  expect(referencePathProblem("$.result['x'][0]", true)).toBeUndefined();
  expect(selectJsonPath({ bar: ['a', 'b'] }, "$.bar[?(@ == 'a')]", { objectsOnly: true })).toEqual([]);
  expect(selectJsonPath({ bar: ['a', 'b'] }, "$.bar[?(@ == 'a')]")).toEqual(['a']);
});
