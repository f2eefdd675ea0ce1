// A function's name as Lambda knows it: the template's FunctionName (evaluated), else the name CloudFormation generates
// (return-values.ts, generatedFunctionName). One source for every place that shows or compares it: the function's Ref
// and ARN, its AWS_LAMBDA_FUNCTION_NAME (the runtime's `context.functionName`), its log group, Lambda's Invoke, and a
// URI, alias or permission naming it. The logical id stays the runner's own name for it (function-names.ts).
import { ofType } from './cfn.ts';
import { resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';

/**
 * The name Lambda gives the function `id` of `context`'s stack: its Ref, evaluated by the one evaluator. A function the
 * stack does not declare (a hand-written definition) is named by its id. Refused, naming the function, when its
 * FunctionName has no local value.
 */
export const functionNameOf = (context: ValueContext, id: string): string => {
  if (context.resources[id]?.Type !== 'AWS::Lambda::Function') return id;
  try {
    return resolveValue({ Ref: id }, context);
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw new UnresolvableValueError(`${id}: its FunctionName, ${error.message}, has no local value`);
  }
};

/** functionNameOf, or undefined when the runner cannot know it. */
export const knownFunctionName = (context: ValueContext, id: string): string | undefined => {
  try {
    return functionNameOf(context, id);
  } catch (error) {
    if (error instanceof UnresolvableValueError) return undefined;
    throw error;
  }
};

/**
 * The logical id of the function of `context`'s stack that `name` names: by its name as Lambda knows it, else (a
 * template written by hand, or before names were Lambda's) by its logical id; undefined when none.
 */
export const functionIdNamed = (context: ValueContext, name: string): string | undefined => {
  const functions = ofType(context.resources, 'AWS::Lambda::Function').map(([id]) => id);
  const named = functions.find((id) => knownFunctionName(context, id) === name);
  return named ?? (functions.includes(name) ? name : undefined);
};
