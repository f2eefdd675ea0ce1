// Which function an integration's or authorizer's URI, or a function URL's or permission's target, names: the value
// evaluated by the one evaluator (intrinsics.ts), then read. A REST API's URI is API Gateway's path to the function
// (`arn:<partition>:apigateway:<region>:lambda:path/2015-03-31/functions/<function ARN>/invocations`, or 2021-11-15's
// `.../response-streaming-invocations`); an HTTP or WebSocket API's may also be the function's ARN; a target may be
// its name. The ARN is the one return-values.ts gives
// each AWS::Lambda::Function (its name as Lambda knows it: aws-function-names.ts), with an alias's name (or the local
// version, 1) as its qualifier.
import { functionIdNamed } from './aws-function-names.ts';
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { type ExportedValue, evaluate, resolveValue, UnresolvableValueError, type ValueContext } from './intrinsics.ts';
import { functionArnPrefix, localVersion } from './return-values.ts';

/** What a URI names: a function (of this stack, or of another when imported) and, for an alias, its name. */
export interface UriTarget {
  functionId: string;
  qualifier?: string;
}

/** API Gateway's path to a function: Invoke's, or InvokeWithResponseStream's (a streamed REST integration). */
const invocationPath =
  /^arn:[^:]+:apigateway:[^:]+:lambda:path\/(?:2015-03-31\/functions\/(.+)\/invocations|2021-11-15\/functions\/(.+)\/response-streaming-invocations)$/;

/** The function name and qualifier of `value` (a URI, an ARN or a name), if it names a local function. */
const nameOf = (value: string): [string, string | undefined] | undefined => {
  const path = invocationPath.exec(value);
  const arn = path?.[1] ?? path?.[2] ?? value;
  const local = arn.startsWith(functionArnPrefix()) ? arn.slice(functionArnPrefix().length) : undefined;
  if (local === undefined && arn.startsWith('arn:')) return undefined;
  const [name = '', qualifier, ...rest] = (local ?? arn).split(':');
  return name === '' || rest.length > 0 ? undefined : [name, qualifier];
};

/** `app` whose exports, when Fn::ImportValue reads one, record the stack it comes from in `into`. */
const recordingImports = (app: ValueContext, into: ValueContext[]): ValueContext => {
  const exports = new (class extends Map<string, ExportedValue> {
    override get(name: string) {
      const found = app.exports.get(name);
      if (found) into.push(found.stack);
      return found;
    }
  })();
  return { ...app, exports };
};

/** The function name an alias's FunctionName evaluates to; undefined when the evaluator cannot know it. */
const aliasedName = (alias: CfnResource, stack: ValueContext) => {
  try {
    return nameOf(resolveValue(props(alias).FunctionName, stack))?.[0];
  } catch (error) {
    if (error instanceof UnresolvableValueError) return undefined;
    throw error;
  }
};

/** The qualifier locally: an alias of the function, by name; the local version or $LATEST, none; undefined: not one of the function's. */
export const qualifierOf = (stack: ValueContext, functionId: string, qualifier: string | undefined) => {
  if (qualifier === undefined || qualifier === '$LATEST' || qualifier === localVersion) return {};
  const alias = ofType(stack.resources, 'AWS::Lambda::Alias').some(([, resource]) => {
    const name = props(resource).Name === qualifier ? aliasedName(resource, stack) : undefined;
    return name !== undefined && functionIdNamed(stack, name) === functionId;
  });
  return alias ? { qualifier } : undefined;
};

/**
 * Finds the function a URI of `stack` names, and keeps, by id, those that are another stack's: a cross-stack
 * reference (the CDK's Fn::ImportValue of the function's Arn, which the other stack exports), or a function of a stack
 * it is nested with (`nested`: its parent's or a nested stack's, the ARN read through a parameter or an output).
 */
export const functionTargets = (stack: ValueContext, nested: ValueContext[] = []) => {
  const imported = new Map<string, ValueContext>();
  const own = new Set<string>();
  const functionOf = (uri: unknown, where: string): UriTarget => {
    const from: ValueContext[] = [];
    const value = evaluateUri(uri, recordingImports(stack, from), where);
    const [functionName, qualifier] = nameOf(value) ?? [];
    const home = [...from, stack, ...nested].find(
      (context) => functionIdNamed(context, functionName ?? '') !== undefined,
    );
    const name = home && functionIdNamed(home, functionName ?? '');
    const qualified = home && name ? qualifierOf(home, name, qualifier) : undefined;
    if (!home || !name || !qualified)
      throw new UnsupportedTemplateError(
        `${where}: its value ${value} (from ${JSON.stringify(uri)}) names no Lambda function of the assembly (locally ${functionArnPrefix()}<its FunctionName, else <stack>-<logical id>-<suffix>>[:<alias>])`,
      );
    const other = home === stack ? undefined : home;
    // The API's functions are served by id: two of different stacks with the same id cannot be.
    const earlier = imported.get(name);
    if (other ? own.has(name) || (earlier !== undefined && earlier !== other) : earlier !== undefined)
      throw new UnsupportedTemplateError(
        `${where}: its function ${name} has the id of another stack's function this API reaches, which locally is one`,
      );
    if (other) imported.set(name, other);
    else own.add(name);
    return { functionId: name, ...qualified };
  };
  return { functionOf, imported };
};

/** `uri` evaluated to text; refused, naming the reference, when the evaluator cannot know it. */
const evaluateUri = (uri: unknown, app: ValueContext, where: string): string => {
  try {
    const value = evaluate(uri, app);
    if (typeof value === 'string') return value;
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw new UnsupportedTemplateError(`${where}: the runner cannot know its value: ${error.message}`);
  }
  throw new UnsupportedTemplateError(`${where}: ${JSON.stringify(uri)} is not a string`);
};
