// CloudWatch Logs filter patterns, evaluated on log lines as CloudWatch would: the JSON subset this project's stack
// uses, from "Filter pattern syntax for metric filters" and "Using filter patterns to match terms in JSON log events"
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html). No package on the npm
// registry evaluates them, so this does, for exactly that subset: `{ ... }` over a JSON event, selectors `$.a.b`, the
// operator `=` against a quoted string, `&&`, `||` and parentheses. Anything else is refused (an error, never a guess):
// `!=` above all, whose meaning for a property the event lacks the pages do not settle.

type Node = { kind: 'and' | 'or'; left: Node; right: Node } | { kind: 'equals'; selector: string[]; value: string };

const tokenize = (text: string) => {
  const tokens: string[] = [];
  const pattern = /\s*(\$(?:\.[A-Za-z_][\w-]*)+|"(?:[^"\\]|\\.)*"|&&|\|\||!=|=|\(|\))/y;
  let index = 0;
  while (index < text.length) {
    if (/^\s*$/.test(text.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (!match?.[1]) throw new Error(`unsupported filter pattern syntax at "${text.slice(index)}"`);
    tokens.push(match[1]);
    index = pattern.lastIndex;
  }
  return tokens;
};

const parse = (pattern: string): Node => {
  const inner = /^\s*\{(.*)\}\s*$/s.exec(pattern)?.[1];
  if (inner === undefined) throw new Error(`only JSON filter patterns ({ ... }) are supported, not ${pattern}`);
  const tokens = tokenize(inner);
  let position = 0;
  const next = () => tokens[position++];
  const peek = () => tokens[position];
  const primary = (): Node => {
    const token = next();
    if (token === '(') {
      const node = or();
      if (next() !== ')') throw new Error(`a ")" is missing in ${pattern}`);
      return node;
    }
    if (!token?.startsWith('$.')) throw new Error(`a selector was expected in ${pattern}, not ${token}`);
    const operator = next();
    if (operator !== '=') throw new Error(`only "=" is supported, not ${operator} (in ${pattern})`);
    const value = next();
    if (!value?.startsWith('"') || value.includes('*')) {
      throw new Error(`only quoted strings without wildcards are supported as values, not ${value}`);
    }
    return { kind: 'equals', selector: token.slice(2).split('.'), value: JSON.parse(value) as string };
  };
  /** Operands joined by `operator`, left to right. */
  const joined = (operator: '&&' | '||', operand: () => Node) => (): Node => {
    let node = operand();
    while (peek() === operator) {
      next();
      node = { kind: operator === '&&' ? 'and' : 'or', left: node, right: operand() };
    }
    return node;
  };
  const and = joined('&&', primary);
  const or: () => Node = joined('||', and);
  const tree = or();
  if (position !== tokens.length) throw new Error(`unexpected ${peek()} in ${pattern}`);
  return tree;
};

const evaluate = (node: Node, event: unknown): boolean => {
  if (node.kind !== 'equals') {
    return node.kind === 'and'
      ? evaluate(node.left, event) && evaluate(node.right, event)
      : evaluate(node.left, event) || evaluate(node.right, event);
  }
  let value: unknown = event;
  for (const key of node.selector) {
    if (typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[key];
  }
  // A string comparison matches a string property of exactly that value (no wildcard is used by the stack).
  return typeof value === 'string' && value === node.value;
};

/** Whether the log line `line` matches the filter `pattern`: a JSON pattern never matches a line that is not JSON. */
export const matchesFilterPattern = (pattern: string, line: string): boolean => {
  const tree = parse(pattern);
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return false;
  }
  return typeof event === 'object' && event !== null && evaluate(tree, event);
};
