// A text delimited file's records as a Distributed Map's ItemReader parses them, by the rules "ItemReader (Map)" lists
// (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itemreader.html): a quoted field holds the
// delimiter and newlines, `""` in it is a quote; a backslash escapes a backslash, a quote or the delimiter and is
// dropped before any other character; newlines separate records.
import { expect, test } from '@jest/globals';
import { csvRecords } from '../../../src/services/states/item-reader.ts';

test('quoted fields hold the delimiter, newlines and doubled quotes', () => {
  expect(csvRecords('a,"b, c","say ""hi""\nthen"\r\nd,e\n', ',')).toEqual([
    ['a', 'b, c', 'say "hi"\nthen'],
    ['d', 'e'],
  ]);
});

test('a backslash escapes a backslash, a quote or the delimiter, and is dropped before another character', () => {
  expect(csvRecords('C:\\\\Program Files\\\\app.exe|6\\|5|\\"q\\" \\x\n\n', '|')).toEqual([
    ['C:\\Program Files\\app.exe', '6|5', '"q" x'],
  ]);
});
