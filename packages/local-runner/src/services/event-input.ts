// What a rule's target receives of an event ("Amazon EventBridge input transformation",
// https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html, and the API Reference's
// "Target" and "InputTransformer"): the whole event, the constant `Input`, the part `InputPath` selects, or the text
// an `InputTransformer` makes of its InputTemplate, each placeholder replaced by the value its InputPathsMap path
// selects or by a predefined `aws.events.*` variable.
//
// The paths are the JSONPath subset EventBridge documents: `$`, dot notation (names with letters, digits, `-`, `_`,
// `/`), array indices `[n]` and the wildcard `*`. A template that is JSON (an object, a list, a string) gets, for a
// placeholder inside one of its strings, the value's text escaped for that string; outside one, the value as JSON (a string with its quotes); `<aws.events.event>` and
// `<aws.events.event.json>` are put in as JSON, unescaped, wherever they stand (the page: "its contents are not
// escaped"). A template that is not JSON is text: each value put in as its text. A path that selects nothing gives
// null (an empty text inside a string or a text template): AWS does not document that case.

/** An event as EventBridge hands it to rules: its envelope (version, id, detail-type, source, ...) and its detail. */
export type EventEnvelope = Record<string, unknown>;

/** What the predefined variables name: the rule, and when the bus took the event (ISO 8601). */
export interface InputContext {
  ruleArn: string;
  ruleName: string;
  ingestionTime: string;
}

const segmentPattern = /\.([^.[\]]+)|\[(\d+|\*)\]/y;

/** The value `path` selects in `value`; undefined when it selects nothing; a wildcard gives the list of matches. */
export const selectPath = (value: unknown, path: string): unknown => {
  if (!path.startsWith('$')) return undefined;
  let selected: unknown[] = [value];
  let wildcard = false;
  segmentPattern.lastIndex = 1;
  while (segmentPattern.lastIndex < path.length) {
    const at = segmentPattern.lastIndex;
    const match = segmentPattern.exec(path);
    if (!match || match.index !== at) return undefined;
    const key = match[1] ?? match[2] ?? '';
    if (key === '*') wildcard = true;
    selected = selected.flatMap((item) => childrenOf(item, key));
  }
  return wildcard ? selected : selected[0];
};

const childrenOf = (item: unknown, key: string): unknown[] => {
  if (typeof item !== 'object' || item === null) return [];
  if (key === '*') return Object.values(item);
  const child = (item as Record<string, unknown>)[key];
  return Object.hasOwn(item, key) && child !== undefined ? [child] : [];
};

/** A valid path: `$` then dot names, indices and wildcards (the subset EventBridge documents). */
export const isInputPath = (path: string) => /^\$(\.[^.[\]]+|\[(\d+|\*)\])*$/.test(path);

/** The event without its detail: `<aws.events.event>`. */
const withoutDetail = (event: EventEnvelope) =>
  Object.fromEntries(Object.entries(event).filter(([k]) => k !== 'detail'));

/** Each placeholder's value: the InputPathsMap's paths, then the predefined variables, by name. */
const valuesOf = (event: EventEnvelope, paths: Record<string, string>, context: InputContext) => {
  const values = new Map<string, { value: unknown; raw?: boolean }>();
  for (const [name, path] of Object.entries(paths)) values.set(name, { value: selectPath(event, path) });
  values.set('aws.events.rule-arn', { value: context.ruleArn });
  values.set('aws.events.rule-name', { value: context.ruleName });
  values.set('aws.events.event.ingestion-time', { value: context.ingestionTime });
  values.set('aws.events.event', { value: withoutDetail(event), raw: true });
  values.set('aws.events.event.json', { value: event, raw: true });
  return values;
};

/** A value put inside a JSON string of the template: a string's characters, anything else's JSON, escaped. */
const inString = (value: unknown) => {
  if (value === undefined || value === null) return value === null ? 'null' : '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return JSON.stringify(text).slice(1, -1);
};

/** A value put in a text template: a string's characters, anything else's JSON. */
const asText = (value: unknown) =>
  value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** The InputTemplate with each `<name>` replaced (placeholders no variable names are left as they are). */
export const transformInput = (
  event: EventEnvelope,
  transformer: { inputPathsMap: Record<string, string>; inputTemplate: string },
  context: InputContext,
) => {
  const values = valuesOf(event, transformer.inputPathsMap, context);
  const template = transformer.inputTemplate;
  // A template that is no JSON (not an object, a list or a string) is text: values are put in as text.
  const text = !/^\s*[{["]/.test(template);
  let output = '';
  let quoted = text;
  for (let at = 0; at < template.length; ) {
    const char = template[at] as string;
    const placeholder = char === '<' ? /^<([^<>\s]+)>/.exec(template.slice(at)) : null;
    const found = placeholder ? values.get(placeholder[1] as string) : undefined;
    if (placeholder && found) {
      const { value, raw } = found;
      output += raw
        ? JSON.stringify(value)
        : text
          ? asText(value)
          : quoted
            ? inString(value)
            : JSON.stringify(value ?? null);
      at += placeholder[0].length;
      continue;
    }
    if (char === '\\') {
      output += template.slice(at, at + 2);
      at += 2;
      continue;
    }
    if (char === '"' && !text) quoted = !quoted;
    output += char;
    at += 1;
  }
  return output;
};

/** What the target gets of `event`: the target's Input, its InputPath's selection, its transformer's text, or all. */
export const targetInput = (
  event: EventEnvelope,
  target: {
    input?: string;
    inputPath?: string;
    inputTransformer?: { inputPathsMap: Record<string, string>; inputTemplate: string };
  },
  context: InputContext,
): string => {
  if (target.input !== undefined) return target.input;
  if (target.inputPath !== undefined) return JSON.stringify(selectPath(event, target.inputPath) ?? null);
  if (target.inputTransformer) return transformInput(event, target.inputTransformer, context);
  return JSON.stringify(event);
};
