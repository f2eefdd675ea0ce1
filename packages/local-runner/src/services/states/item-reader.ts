// A Distributed Map's ItemReader ("ItemReader (Map)", Step Functions Developer Guide,
// https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itemreader.html): its items read from the local S3,
// through the AWS SDK integration's calls (Run.runTask, `aws-sdk:s3:...`, over S3's own endpoint):
// - `arn:aws:states:::s3:listObjectsV2` (Bucket, Prefix): each object's metadata, `{Etag, Key, LastModified, Size,
//   StorageClass}`, LastModified in seconds since the epoch, as the guide's example shows it;
// - `arn:aws:states:::s3:getObject` (Bucket, Key, VersionId) with ReaderConfig.InputType JSON (an array, or the one
//   ItemsPointer names), JSONL (a JSON text a line) or CSV (CSVHeaderLocation FIRST_ROW, or GIVEN with CSVHeaders;
//   CSVDelimiter COMMA, PIPE, SEMICOLON, SPACE or TAB), each field a string, parsed by the guide's rules;
// - ReaderConfig.MaxItems (or MaxItemsPath): at most that many items.
// - `s3:listObjectsV2` with ReaderConfig.Transformation LOAD_AND_FLATTEN: the items of each object under the prefix,
//   read as its InputType says.
// Parameters (JSONPath, filled from the state's input) or Arguments (JSONata) name the object. A reading that fails is
// `States.ItemReaderFailed`. What the runner does not read (PARQUET, MANIFEST, a ManifestType) refuses the start
// (readerRefusal).
import { evaluatedFields, filled, filtered, pathValue } from './data-flow.ts';
import { StatesError } from './errors.ts';
import type { StateRun } from './run.ts';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const delimiters: Record<string, string> = { COMMA: ',', PIPE: '|', SEMICOLON: ';', SPACE: ' ', TAB: '\t' };
const resources = ['s3:listObjectsV2', 's3:getObject'];

/** Why the runner does not read `reader` (a Map's ItemReader), or undefined when it does. */
export const readerRefusal = (reader: unknown): string | undefined => {
  if (!isObject(reader)) return 'ItemReader is not an object';
  const resource = /^arn:[^:]+:states:::(s3:[A-Za-z0-9]+)$/.exec(String(reader.Resource))?.[1];
  if (resource === undefined || !resources.includes(resource))
    return `ItemReader.Resource ${String(reader.Resource)} is not served (s3:listObjectsV2 and s3:getObject are)`;
  const config = isObject(reader.ReaderConfig) ? reader.ReaderConfig : {};
  if (config.ManifestType !== undefined) return 'ItemReader.ReaderConfig.ManifestType is not reproduced';
  if (!['NONE', 'LOAD_AND_FLATTEN'].includes(String(config.Transformation ?? 'NONE')))
    return `ItemReader.ReaderConfig.Transformation ${String(config.Transformation)} is not one of NONE, LOAD_AND_FLATTEN`;
  if (resource === 's3:listObjectsV2' && config.Transformation !== 'LOAD_AND_FLATTEN') return undefined;
  if (!['JSON', 'JSONL', 'CSV'].includes(String(config.InputType)))
    return `ItemReader.ReaderConfig.InputType ${String(config.InputType)} is not reproduced (JSON, JSONL and CSV are)`;
  if (config.CSVDelimiter !== undefined && delimiters[String(config.CSVDelimiter)] === undefined)
    return `ItemReader.ReaderConfig.CSVDelimiter ${String(config.CSVDelimiter)} is not one of ${Object.keys(delimiters).join(', ')}`;
  return undefined;
};

/** A field of the Map (ItemReader's Parameters or Arguments, ItemBatcher's BatchInput, ResultWriter's) in its language. */
export const mapField = async (sr: StateRun, template: unknown, field: string) => {
  if (sr.language === 'JSONata')
    return evaluatedFields(template, { input: sr.input, context: sr.context }, sr.scope.variables, field);
  const input = filtered(sr.input, sr.state.InputPath, 'InputPath');
  return filled(template, { value: input, context: sr.context, variables: sr.scope.variables });
};

/** A number given as a value, a JSONata expression, or a path (`<field>Path`) of the state's input. */
export const mapNumber = async (sr: StateRun, fields: Fields, field: string) => {
  const path = fields[`${field}Path`];
  if (typeof path === 'string') {
    const input = filtered(sr.input, sr.state.InputPath, 'InputPath');
    return Number(pathValue(path, { value: input, context: sr.context, variables: sr.scope.variables }, field));
  }
  const value = await mapField(sr, fields[field], field);
  return typeof value === 'number' ? value : undefined;
};

/** The call `action` of the AWS SDK integration for S3, its failure States.ItemReaderFailed. */
const s3 = async (sr: StateRun, action: string, args: Fields) => {
  try {
    return (await sr.run.runTask({
      resource: `arn:aws:states:::aws-sdk:s3:${action}`,
      args,
      state: sr.name,
      signal: sr.run.signal,
      submitted: () => undefined,
    })) as Fields;
  } catch (error) {
    if (error instanceof StatesError)
      throw new StatesError('States.ItemReaderFailed', `${error.error}: ${error.cause}`);
    throw error;
  }
};

/** Each object under the prefix, as ListObjectsV2 pages them, until `max`. */
const listedObjects = async (sr: StateRun, args: Fields, max: number) => {
  const items: Fields[] = [];
  let token: string | undefined;
  do {
    const page = await s3(sr, 'listObjectsV2', { ...args, ...(token !== undefined && { ContinuationToken: token }) });
    for (const object of (page.Contents ?? []) as Fields[])
      items.push({
        Etag: object.ETag,
        Key: object.Key,
        LastModified: Math.floor(Date.parse(String(object.LastModified)) / 1000),
        Size: object.Size,
        StorageClass: object.StorageClass,
      });
    token = page.IsTruncated === true ? String(page.NextContinuationToken) : undefined;
  } while (token !== undefined && items.length < max);
  return items.slice(0, max);
};

/** The value a JSON Pointer (RFC 6901) names in `document`. */
const pointed = (document: unknown, pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (value, token) => (isObject(value) || Array.isArray(value) ? (value as Fields)[token] : undefined),
      document,
    );

/**
 * A text delimited file's records, each a list of fields, by the guide's rules: `"` encloses a field that may hold the
 * delimiter and newlines, `""` in it is a quote; a backslash escapes a backslash, a quote or the delimiter, and is
 * dropped before any other character; a blank line is no record.
 */
export const csvRecords = (text: string, delimiter: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let started = false;
  const endField = () => {
    record.push(field);
    field = '';
    started = false;
  };
  const endRecord = () => {
    endField();
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quoted && c === '"' && text[i + 1] !== '"') quoted = false;
    else if (c === '"' && !started) quoted = true;
    else if ((c === '\\' || (quoted && c === '"')) && i + 1 < text.length) {
      i += 1;
      field += text[i];
    } else if (quoted) field += c;
    else if (c === delimiter) {
      endField();
      continue;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      continue;
    } else field += c;
    started = true;
  }
  if (started || record.length > 0) {
    endField();
    records.push(record);
  }
  return records;
};

/** A CSV file's items: each record an object of the header's names, a missing field empty, an extra one skipped. */
const csvItems = (text: string, config: Fields) => {
  const records = csvRecords(text, delimiters[String(config.CSVDelimiter ?? 'COMMA')] ?? ',');
  const headers =
    config.CSVHeaderLocation === 'GIVEN' && Array.isArray(config.CSVHeaders)
      ? config.CSVHeaders.map(String)
      : (records.shift() ?? []);
  return records.map((record) => Object.fromEntries(headers.map((name, index) => [name, record[index] ?? ''])));
};

const parsedItems = (body: string, config: Fields): unknown[] => {
  if (config.InputType === 'CSV') return csvItems(body, config);
  if (config.InputType === 'JSONL')
    return body
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as unknown);
  const document = JSON.parse(body) as unknown;
  const items = typeof config.ItemsPointer === 'string' ? pointed(document, config.ItemsPointer) : document;
  if (!Array.isArray(items)) throw new SyntaxError('the JSON file holds no array of items');
  return items;
};

/** A compressed object, by its name or its `Content-Encoding`: AWS reads some; the runner does not decompress. */
const compressed = (key: string, encoding: unknown) =>
  /\.(gz|gzip|zst|zstd)$/i.test(key) || /gzip|zstd/i.test(String(encoding ?? ''));

/** One object's items, as `config` reads its contents. */
const objectItems = async (sr: StateRun, args: Fields, config: Fields) => {
  const object = await s3(sr, 'getObject', args);
  if (compressed(String(args.Key), object.ContentEncoding))
    throw new StatesError(
      'States.ItemReaderFailed',
      `${String(args.Key)} is compressed: the runner's ItemReader does not decompress objects`,
    );
  try {
    return parsedItems(String(object.Body ?? ''), config);
  } catch (error) {
    // JSON.parse's refusal, or parsedItems' own (a SyntaxError too).
    if (!(error instanceof SyntaxError)) throw error;
    throw new StatesError(
      'States.ItemReaderFailed',
      `${String(args.Key)} is not ${String(config.InputType)} as ItemReader reads it: ${error.message}`,
    );
  }
};

/** LOAD_AND_FLATTEN: the items of each object under the prefix, one object after another, until `max`. */
const flattenedObjects = async (sr: StateRun, args: Fields, config: Fields, max: number) => {
  const items: unknown[] = [];
  for (const object of await listedObjects(sr, args, Number.POSITIVE_INFINITY)) {
    if (items.length >= max) break;
    items.push(...(await objectItems(sr, { Bucket: args.Bucket, Key: object.Key }, config)));
  }
  return items.slice(0, max);
};

/** The items the Map's ItemReader reads. */
export const readItems = async (sr: StateRun, reader: Fields): Promise<unknown[]> => {
  const config = isObject(reader.ReaderConfig) ? reader.ReaderConfig : {};
  const template = sr.language === 'JSONata' ? reader.Arguments : reader.Parameters;
  const args = (await mapField(sr, template ?? {}, sr.language === 'JSONata' ? 'Arguments' : 'Parameters')) as Fields;
  const max = (await mapNumber(sr, config, 'MaxItems')) || Number.POSITIVE_INFINITY;
  if (!String(reader.Resource).endsWith(':listObjectsV2')) return (await objectItems(sr, args, config)).slice(0, max);
  return config.Transformation === 'LOAD_AND_FLATTEN'
    ? flattenedObjects(sr, args, config, max)
    : listedObjects(sr, args, max);
};
