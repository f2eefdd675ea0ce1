// The Java methods a mapping template calls on a string: API Gateway runs Velocity on Java, so `$s.length()`,
// `$s.equals("x")`, `$s.replaceAll(regex, replacement)`, `$s.matches(regex)` are java.lang.String's. velocityjs calls
// JavaScript's methods of the same name where they exist (`substring`, `trim`, `indexOf`, ...); these are the ones
// JavaScript lacks or gives another meaning (a regular expression where JavaScript takes text). CDK's
// StepFunctionsRestApi templates use `length()`, `replaceAll()`, `toString().equals()`.

type Handler = (text: string, ...params: unknown[]) => unknown;

/** A Java replacement (`$1` a group, `\x` the character x) as JavaScript's (`$1`, `$$` a dollar). */
const replacementOf = (replacement: unknown) =>
  String(replacement).replace(/\\(.)|\$(\d)|\$/g, (_whole, escaped: string | undefined, group: string | undefined) =>
    escaped !== undefined ? (escaped === '$' ? '$$' : escaped) : group !== undefined ? `$${group}` : '$$',
  );

const regex = (pattern: unknown, flags = '') => new RegExp(String(pattern), flags);

const methods: Record<string, Handler> = {
  length: (text) => text.length,
  isEmpty: (text) => text.length === 0,
  equals: (text, other) => other === text,
  equalsIgnoreCase: (text, other) => typeof other === 'string' && other.toLowerCase() === text.toLowerCase(),
  contains: (text, part) => text.includes(String(part)),
  matches: (text, pattern) => regex(`^(?:${String(pattern)})$`).test(text),
  replaceAll: (text, pattern, replacement) => text.replace(regex(pattern, 'g'), replacementOf(replacement)),
  replaceFirst: (text, pattern, replacement) => text.replace(regex(pattern), replacementOf(replacement)),
  replace: (text, target, replacement) => text.split(String(target)).join(String(replacement)),
  // Java's split drops the empty strings at the end.
  split: (text, pattern) => {
    const parts = text.split(regex(pattern));
    while (parts.length > 0 && parts.at(-1) === '') parts.pop();
    return parts;
  },
};

/** velocityjs's custom method handlers: these methods, on a string. */
export const javaStringMethods = Object.entries(methods).map(([name, method]) => ({
  uid: `java.lang.String.${name}`,
  match: ({ property, context }: { property: string; context: unknown }) =>
    property === name && typeof context === 'string',
  resolve: ({ context, params }: { context: unknown; params: unknown[] }) => method(String(context), ...params),
}));
