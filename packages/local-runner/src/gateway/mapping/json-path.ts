// The JSONPath expressions a mapping template's `$input.json(x)` and `$input.path(x)` take, and a request parameter's
// `method.request.body.x` / an integration response's `integration.response.body.x` ("Variables for data
// transformations for API Gateway", https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html):
// `$`, then members by `.name` or `['name']`, items by `[n]` (negative from the end), and `[*]` / `.*` for all of them.
// Anything else (filters, recursive descent, slices) is refused where the template is read (template.ts).

type Step = { member: string } | { index: number } | { all: true };

const stepPattern = /^(?:\.([A-Za-z_$][\w$-]*)|\.\*|\[\*\]|\[(-?\d+)\]|\['([^']*)'\]|\["([^"]*)"\])/;

/** The steps of `path` (`$.a[0]`), or undefined when it is not of the supported forms. */
export const jsonPathSteps = (path: string): Step[] | undefined => {
  const trimmed = path.trim();
  if (!trimmed.startsWith('$')) return undefined;
  const steps: Step[] = [];
  let rest = trimmed.slice(1);
  while (rest !== '') {
    const found = stepPattern.exec(rest);
    if (!found) return undefined;
    const [whole, name, index, quoted, doubleQuoted] = found;
    if (name !== undefined) steps.push({ member: name });
    else if (index !== undefined) steps.push({ index: Number(index) });
    else if (quoted !== undefined || doubleQuoted !== undefined) steps.push({ member: quoted ?? doubleQuoted ?? '' });
    else steps.push({ all: true });
    rest = rest.slice(whole.length);
  }
  return steps;
};

const membersOf = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : typeof value === 'object' && value !== null ? Object.values(value) : [];

/** One step applied to each of `values` (a wildcard turns one value into its members). */
const applyStep = (values: unknown[], step: Step): unknown[] =>
  values.flatMap((value) => {
    if ('all' in step) return membersOf(value);
    if ('index' in step) {
      if (!Array.isArray(value)) return [];
      const item: unknown = value.at(step.index);
      return item === undefined ? [] : [item];
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step.member))
      return [];
    return [(value as Record<string, unknown>)[step.member]];
  });

/**
 * What `path` selects in `document`: the one value a definite path names (undefined when absent), or the list a
 * wildcard selects.
 */
export const selectJsonPath = (document: unknown, path: string): unknown => {
  const steps = jsonPathSteps(path);
  if (!steps) throw new Error(`JSONPath ${path} is not supported`);
  const selected = steps.reduce<unknown[]>(applyStep, [document]);
  return steps.some((step) => 'all' in step) ? selected : selected[0];
};
