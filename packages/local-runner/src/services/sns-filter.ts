// A subscription's filter policy ("Amazon SNS message filtering",
// https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html), matched by the shared event-pattern matcher
// (event-pattern.ts). What is matched depends on FilterPolicyScope ("Amazon SNS subscription filter policy scope"):
// - MessageAttributes (the default): the message's attributes as one flat object, each attribute's name to its value,
//   a String as text, a Number as a number, a String.Array as the array it holds ("Amazon SNS message attributes":
//   "String.Array: an array, formatted as a string, that can contain multiple values ... strings, numbers, true, false
//   and null"); a Binary attribute is not matched ("Amazon SNS ignores message attributes with the Binary data type"
//   in "Filter policy constraints"). The policy is flat: a nested object is refused.
// - MessageBody: the message itself, parsed as JSON; a message that is not a JSON object matches no policy.
import { type CompiledPattern, compilePattern, matchesPattern, PatternError } from './event-pattern.ts';
import { ServiceError } from './json-protocol.ts';

export interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

type FilterScope = 'MessageAttributes' | 'MessageBody';

export interface CompiledFilter {
  scope: FilterScope;
  pattern: CompiledPattern;
}

const invalidPolicy = (reason: string) =>
  new ServiceError('InvalidParameter', `Invalid parameter: FilterPolicy: ${reason}`);

/** A subscription's FilterPolicy (JSON text) compiled for its scope, or InvalidParameter naming what is wrong. */
export const compileFilter = (policy: string, scope: string | undefined): CompiledFilter => {
  const chosen = scope ?? 'MessageAttributes';
  if (chosen !== 'MessageAttributes' && chosen !== 'MessageBody')
    throw new ServiceError(
      'InvalidParameter',
      `Invalid parameter: FilterPolicyScope: Invalid value [${chosen}]. Please use either MessageBody or MessageAttributes`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(policy);
  } catch {
    throw invalidPolicy('it is not JSON');
  }
  if (chosen === 'MessageAttributes' && typeof parsed === 'object' && parsed !== null)
    for (const [key, value] of Object.entries(parsed))
      if (key !== '$or' && typeof value === 'object' && value !== null && !Array.isArray(value))
        throw invalidPolicy(`"${key}": a policy of scope MessageAttributes is flat (no nested object)`);
  try {
    return { scope: chosen, pattern: compilePattern(parsed) };
  } catch (error) {
    if (error instanceof PatternError) throw invalidPolicy(error.message);
    throw error;
  }
};

/** An attribute's value as a policy matches it: text, a number, the array a String.Array holds; Binary none. */
const attributeValue = ({ DataType, StringValue }: MessageAttribute): unknown => {
  if (StringValue === undefined) return undefined;
  if (DataType === 'Number' || DataType.startsWith('Number.')) return Number(StringValue);
  if (DataType === 'String.Array') {
    try {
      const parsed: unknown = JSON.parse(StringValue);
      return Array.isArray(parsed) ? parsed : StringValue;
    } catch {
      return StringValue;
    }
  }
  return DataType.startsWith('Binary') ? undefined : StringValue;
};

/** The object a MessageAttributes-scope policy is matched against: each attribute's name to its value. */
const attributesObject = (attributes: Record<string, MessageAttribute>) =>
  Object.fromEntries(
    Object.entries(attributes)
      .map(([name, attribute]) => [name, attributeValue(attribute)] as const)
      .filter(([, value]) => value !== undefined),
  );

/** Whether the message (`message` with `attributes`) passes the subscription's filter. */
export const passesFilter = (
  filter: CompiledFilter,
  message: string,
  attributes: Record<string, MessageAttribute>,
): boolean => {
  if (filter.scope === 'MessageAttributes') return matchesPattern(filter.pattern, attributesObject(attributes));
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    return false;
  }
  return typeof body === 'object' && body !== null && !Array.isArray(body) && matchesPattern(filter.pattern, body);
};
