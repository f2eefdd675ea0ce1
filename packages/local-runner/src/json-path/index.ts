// The runner's one JSONPath reader, for Step Functions' paths (services/states/) and API Gateway's `$input.path`,
// `$input.json` and body mapping expressions (gateway/mapping/, gateway/http/). Both follow Jayway JsonPath ("Paths",
// Step Functions Developer Guide, https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html;
// "Variables for data transformations for API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html, whose
// "JSONPath expression" links Jayway's syntax). The syntax read is parse.ts's, the selection evaluate.ts's.
// Written here rather than taken from npm: jsonpath and jsonpath-plus evaluate filters as JavaScript (loose `==`, no
// `=~`, `in` or `nin`), jsonpath-rfc9535 follows RFC 9535 (`length(@.a)`, `match()`, no `=~`, `in` or `nin`), and none
// answers Jayway's definite / indefinite result shapes (packages/local-runner/docs/step-functions.md).
import { type Evaluation, isDefinite, selection } from './evaluate.ts';
import { type Expression, JsonPathError, type Operand, type Path, parsePath, type Step } from './parse.ts';

export { JsonPathError } from './parse.ts';

/** What `path` selects in `document` (see evaluate.ts's `selection`); a JsonPathError when it is not read. */
export const selectJsonPath = (document: unknown, path: string, options: Evaluation = {}): unknown =>
  selection(parsePath(path), document, options);

/** Why `path` is not a JSONPath the runner reads, or undefined. */
export const jsonPathProblem = (path: string): string | undefined => {
  try {
    parsePath(path);
    return undefined;
  } catch (error) {
    if (error instanceof JsonPathError) return error.message;
    throw error;
  }
};

const filterSteps = (steps: Step[]): Step[] =>
  steps.flatMap((step) => (step.kind === 'scan' ? [step, step.each] : [step]));

/** What a filter's operand or a path uses that a reference path may not (Step Functions' "Reference Paths"). */
const operandProblem = (operand: Operand): string | undefined => {
  if ('pattern' in operand) return 'a regular expression (=~)';
  if (!('path' in operand)) return undefined;
  if (operand.path.root === '$') return 'a filter reading another value of the document ($)';
  return pathUseProblem(operand.path);
};

const testProblem = (test: Expression): string | undefined => {
  switch (test.kind) {
    case 'and':
    case 'or':
      return testProblem(test.left) ?? testProblem(test.right);
    case 'not':
      return testProblem(test.operand);
    case 'exists':
      return pathUseProblem(test.path);
    case 'compare':
      if (test.comparator === 'in' || test.comparator === 'nin') return `the operator ${test.comparator}`;
      return operandProblem(test.left) ?? operandProblem(test.right);
  }
};

function pathUseProblem(path: Path): string | undefined {
  for (const step of filterSteps(path.steps)) {
    if (step.kind === 'length') return 'the function length()';
    const problem = step.kind === 'filter' ? testProblem(step.test) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Why `path` is not a reference path as Step Functions reads one, or undefined: no functions, no lexical operators
 * (`in`, `nin`), no regular expression, no filter reading another value of the document; `single`: it names one place
 * (members and items alone), as ResultPath must.
 */
export const referencePathProblem = (path: string, single = false): string | undefined => {
  const problem = jsonPathProblem(path);
  if (problem) return problem;
  const parsed = parsePath(path);
  if (single && (!isDefinite(parsed) || parsed.steps.some((step) => step.kind === 'length')))
    return `the reference path ${path} does not name one place (members and items alone)`;
  const use = pathUseProblem(parsed);
  return use && `the reference path ${path} uses ${use}, which a reference path may not`;
};

/** The members and items a single-place reference path names, in order (for ResultPath). */
export const placeSteps = (path: string): (string | number)[] =>
  parsePath(path).steps.map((step) => {
    if (step.kind === 'member') return step.name;
    if (step.kind === 'index' && step.indexes.length === 1) return step.indexes[0] as number;
    throw new JsonPathError(`the reference path ${path} does not name one place (members and items alone)`);
  });
