// The one evaluator of the template's values: every intrinsic function CloudFormation resolves at deployment ("Intrinsic
// function reference" in the CloudFormation template reference), the pseudo parameters, the template's Parameters
// (their defaults), Conditions and Mappings, and each resource's `Ref` and `Fn::GetAtt` values (return-values.ts).
// A value may be a list. A value the runner cannot know throws UnresolvableValueError naming the reference; each
// reader says which resource and property it read, and refuses the app: never "none".
import { RunnerError } from '../errors.ts';
import { type CfnResource, isScalar, UnsupportedTemplateError } from './cfn.ts';
import { localAws } from './local-aws.ts';
import { type Known, returnValues, type Subject } from './return-values.ts';

export class UnresolvableValueError extends RunnerError {
  override name = 'UnresolvableValueError';
}

/** The sections of a template that values are evaluated with, besides its resources. */
export interface TemplateSections {
  Parameters?: Record<string, { Type?: unknown; Default?: unknown }>;
  Conditions?: Record<string, unknown>;
  Mappings?: Record<string, unknown>;
  /**
   * A nested stack's: its parameters' values as its parent's AWS::CloudFormation::Stack gives them (its Parameters
   * property, how the CDK passes the parent's values, `referenceto...`), each evaluated in the parent.
   */
  given?: Map<string, ExportedValue>;
  /** Its nested stacks, by logical id: their Outputs, which `Fn::GetAtt [id, Outputs.<name>]` reads in them. */
  nested?: Map<string, NestedOutputs>;
}

/** A nested stack's Outputs, with the stack they are evaluated in. */
export interface NestedOutputs {
  outputs: Record<string, { Value?: unknown }>;
  stack: ValueContext;
}

/** What a value of a stack's template is resolved in: that stack, and what the assembly's stacks export. */
export interface ValueContext {
  stackName: string;
  /** Its tables (a table's values come from its resource; kept for the readers that list them). */
  tables: { id: string; tableName: string }[];
  resources: Record<string, CfnResource>;
  /** Each export of the assembly's stacks (Outputs' Export.Name), by name, with the stack its value is resolved in. */
  exports: Map<string, ExportedValue>;
  /** Its parameters, conditions and mappings; none when absent. */
  template?: TemplateSections;
  /** The local SQS's address once it listens (a queue's URL names it); absent while the template is read. */
  sqsEndpoint?: string;
}

export interface ExportedValue {
  value: unknown;
  stack: ValueContext;
}

/** `{"Ref": "AWS::NoValue"}`: the property, or the list item, is not there. */
export const noValue = Symbol('AWS::NoValue');

/** A value evaluated: JSON, or noValue. */
export type Evaluated = string | number | boolean | null | typeof noValue | Evaluated[] | { [key: string]: Evaluated };

const unresolvable = (value: unknown, why?: string) =>
  new UnresolvableValueError(why === undefined ? JSON.stringify(value) : `${JSON.stringify(value)} (${why})`);

/** `value` evaluated to text: a string, or a number's or boolean's text (CloudFormation's coercion). */
export const resolveValue = (value: unknown, app: ValueContext): string => {
  const evaluated = evaluate(value, app);
  if (isScalar(evaluated)) return String(evaluated);
  throw unresolvable(value, 'not a string');
};

/** `value` evaluated to a list of text (AWS::NoValue items left out). */
export const resolveList = (value: unknown, app: ValueContext): string[] => {
  const evaluated = evaluate(value, app);
  if (!Array.isArray(evaluated)) throw unresolvable(value, 'not a list');
  return evaluated.filter((item) => item !== noValue).map((item) => textOf(item, value));
};

const textOf = (item: Evaluated, whole: unknown) => {
  if (isScalar(item)) return String(item);
  throw unresolvable(whole, 'a list item that is not a string');
};

/** The one intrinsic `value` calls (an object of one key, that key an intrinsic's name), if it is one. */
const intrinsicOf = (value: object): [string, unknown] | undefined => {
  const keys = Object.keys(value);
  const [key] = keys;
  if (keys.length !== 1 || key === undefined || !(key === 'Ref' || key.startsWith('Fn::'))) return undefined;
  return [key, (value as Record<string, unknown>)[key]];
};

/** `value` evaluated in `app`: every intrinsic resolved, AWS::NoValue removing a property or a list item. */
export const evaluate = (value: unknown, app: ValueContext): Evaluated => {
  if (value === null || isScalar(value)) return value;
  if (Array.isArray(value)) return value.map((item) => evaluate(item, app)).filter((item) => item !== noValue);
  if (typeof value !== 'object') throw unresolvable(value);
  const intrinsic = intrinsicOf(value);
  if (intrinsic) {
    const [name, argument] = intrinsic;
    if (!Object.hasOwn(functions, name)) throw unresolvable(value, `${name}, which the runner does not evaluate`);
    return (functions[name] as Intrinsic)(argument, app, value);
  }
  const entries = Object.entries(value).map(([key, item]) => [key, evaluate(item, app)] as const);
  return Object.fromEntries(entries.filter(([, item]) => item !== noValue));
};

type Intrinsic = (argument: unknown, app: ValueContext, whole: unknown) => Evaluated;

/** The arguments of a function that takes a list of `count` (or from `min` to `count`). */
const argumentsOf = (argument: unknown, whole: unknown, count: number, min = count): unknown[] => {
  if (!Array.isArray(argument) || argument.length < min || argument.length > count)
    throw unresolvable(whole, `not a list of ${min === count ? count : `${min} to ${count}`} arguments`);
  return argument;
};

const text = (value: unknown, app: ValueContext, whole: unknown) => textOf(evaluate(value, app), whole);

const list = (value: unknown, app: ValueContext, whole: unknown): Evaluated[] => {
  const evaluated = evaluate(value, app);
  if (!Array.isArray(evaluated)) throw unresolvable(whole, 'not a list');
  return evaluated;
};

const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;

/** The Availability Zones Fn::GetAZs gives locally: the local region's first three. */
const localZones = () => ['a', 'b', 'c'].map((zone) => `${localAws.region}${zone}`);

const functions: Record<string, Intrinsic> = {
  Ref: (name, app, whole) => {
    if (typeof name !== 'string') throw unresolvable(whole, 'not a name');
    return refOf(name, app, whole);
  },
  'Fn::GetAtt': (argument, app, whole) => {
    const parts = typeof argument === 'string' ? argument.split(/\.(.*)/s).slice(0, 2) : argument;
    const [id, attribute] = argumentsOf(parts, whole, 2).map((part) => text(part, app, whole));
    return attributeOf(id as string, attribute as string, app, whole);
  },
  'Fn::Join': (argument, app, whole) => {
    const [delimiter, items] = argumentsOf(argument, whole, 2);
    return list(items, app, whole)
      .map((item) => textOf(item, whole))
      .join(text(delimiter, app, whole));
  },
  'Fn::Sub': (argument, app, whole) => substitute(argument, app, whole),
  'Fn::Select': (argument, app, whole) => {
    const [index, items] = argumentsOf(argument, whole, 2);
    const chosen = list(items, app, whole)[Number(text(index, app, whole))];
    if (chosen === undefined) throw unresolvable(whole, 'an index outside the list');
    return chosen;
  },
  'Fn::Split': (argument, app, whole) => {
    const [delimiter, source] = argumentsOf(argument, whole, 2).map((part) => text(part, app, whole));
    return (source as string).split(delimiter as string);
  },
  'Fn::If': (argument, app, whole) => {
    const [name, whenTrue, whenFalse] = argumentsOf(argument, whole, 3);
    if (typeof name !== 'string') throw unresolvable(whole, 'a condition that is not a name');
    return evaluate(conditionOf(name, app) ? whenTrue : whenFalse, app);
  },
  'Fn::FindInMap': (argument, app, whole) => {
    const [map, top, second] = argumentsOf(argument, whole, 3).map((part) => text(part, app, whole));
    const entry = own(own(app.template?.Mappings, map as string) as Record<string, unknown>, top as string);
    const found = own(entry as Record<string, unknown>, second as string);
    if (found === undefined) throw unresolvable(whole, 'no such entry in the Mappings');
    return evaluate(found, app);
  },
  'Fn::Base64': (argument, app, whole) => Buffer.from(text(argument, app, whole)).toString('base64'),
  'Fn::GetAZs': (argument, app, whole) => {
    const region = text(argument, app, whole);
    if (region !== '' && region !== localAws.region) throw unresolvable(whole, `a region other than the local one`);
    return localZones();
  },
  'Fn::ImportValue': (argument, app, whole) => {
    const name = text(argument, app, whole);
    const exported = app.exports.get(name);
    if (!exported) throw unresolvable(whole, `no stack of the assembly exports ${name}`);
    return evaluate(exported.value, exported.stack);
  },
};

/**
 * Fn::Sub ("Fn::Sub", CloudFormation template reference): its string, each `${Name}` replaced by the variable of that
 * name (the list form's map) or by `{"Ref": Name}`, each `${Id.Attribute}` by `{"Fn::GetAtt": [Id, Attribute]}`,
 * each `${!Literal}` by `${Literal}`.
 */
const substitute = (argument: unknown, app: ValueContext, whole: unknown): string => {
  const [template, variables = {}] = Array.isArray(argument) ? argumentsOf(argument, whole, 2, 1) : [argument];
  if (typeof template !== 'string' || typeof variables !== 'object' || variables === null || Array.isArray(variables))
    throw unresolvable(whole, 'not a string, or a string and a map of variables');
  return template.replace(/\$\{([^}]*)\}/g, (_, name: string) => {
    if (name.startsWith('!')) return `\${${name.slice(1)}}`;
    const variable = own(variables as Record<string, unknown>, name);
    if (variable !== undefined) return text(variable, app, whole);
    const dot = name.indexOf('.');
    const reference = dot < 0 ? { Ref: name } : { 'Fn::GetAtt': [name.slice(0, dot), name.slice(dot + 1)] };
    return text(reference, app, whole);
  });
};

/** The pseudo parameters, as the local runner answers them. */
const pseudoOf = (name: string, app: ValueContext): Evaluated | undefined => {
  const pseudo: Record<string, Evaluated> = {
    'AWS::Region': localAws.region,
    'AWS::AccountId': localAws.accountId,
    'AWS::Partition': localAws.partition,
    'AWS::URLSuffix': localAws.urlSuffix,
    'AWS::StackName': app.stackName,
    'AWS::StackId': `arn:${localAws.partition}:cloudformation:${localAws.region}:${localAws.accountId}:stack/${app.stackName}/00000000-0000-0000-0000-000000000000`,
    'AWS::NotificationARNs': [],
    'AWS::NoValue': noValue,
  };
  return own(pseudo, name);
};

/**
 * A parameter's value: its default ("when you use the parameter elsewhere in your template, the parameter value
 * becomes a string"; a list type's, its items); unknown without one, or for a type read from Parameter Store.
 */
const parameterOf = (name: string, app: ValueContext, whole: unknown): Evaluated | undefined => {
  const parameter = own(app.template?.Parameters, name);
  if (parameter === undefined) return undefined;
  const type = String(parameter.Type ?? 'String');
  const given = app.template?.given?.get(name);
  if (given !== undefined) return givenOf({ ...given, stack: seenFrom(given.stack, app) }, type);
  if (type.startsWith('AWS::SSM::Parameter::'))
    throw unresolvable(whole, `parameter ${name} is read from Parameter Store at deployment`);
  if (parameter.Default === undefined)
    throw unresolvable(whole, `parameter ${name} has no default: its value is given at deployment`);
  const value = String(parameter.Default);
  return isListType(type) ? value.split(',') : value;
};

const isListType = (type: string) => type === 'CommaDelimitedList' || type.startsWith('List<');

/** `stack`, in which a value of another stack is evaluated, with what `app` knows once the services listen. */
const seenFrom = (stack: ValueContext, app: ValueContext): ValueContext =>
  app.sqsEndpoint === undefined ? stack : { ...stack, sqsEndpoint: app.sqsEndpoint };

/** A nested stack's parameter its parent gives (`given`): that value, evaluated in the parent. */
const givenOf = (given: ExportedValue, type: string): Evaluated => {
  const value = evaluate(given.value, given.stack);
  return isListType(type) && typeof value === 'string' ? value.split(',') : value;
};

/**
 * A nested stack's output (`Fn::GetAtt [<its logical id>, Outputs.<name>]` in its parent, "AWS::CloudFormation::Stack"
 * return values): its Value, evaluated in the nested stack.
 */
const outputOf = ({ outputs, stack }: NestedOutputs, name: string, app: ValueContext, whole: unknown): Evaluated => {
  const output = own(outputs, name);
  if (output?.Value === undefined)
    throw unresolvable(whole, `the nested stack ${stack.stackName} has no output ${name}`);
  return evaluate(output.Value, seenFrom(stack, app));
};

const refOf = (name: string, app: ValueContext, whole: unknown): Evaluated => {
  const value = pseudoOf(name, app) ?? parameterOf(name, app, whole);
  if (value !== undefined) return value;
  return known(subjectOf(name, app, whole), (types) => types.ref, whole);
};

const attributeOf = (id: string, attribute: string, app: ValueContext, whole: unknown): Evaluated => {
  const nested = app.template?.nested?.get(id);
  if (nested !== undefined && attribute.startsWith('Outputs.'))
    return outputOf(nested, attribute.slice('Outputs.'.length), app, whole);
  return known(subjectOf(id, app, whole), (types) => own(types.attributes, attribute) ?? types.others, whole);
};

/** The resources being evaluated: a resource whose value depends on itself is refused, not looped on. */
const evaluating = new Set<string>();

/** The resource `id` of `app`, with a way to read its properties. */
const subjectOf = (id: string, app: ValueContext, whole: unknown): Subject => {
  const resource = own(app.resources, id);
  if (resource === undefined) throw unresolvable(whole, `${id} is no parameter or resource of ${app.stackName}`);
  const key = `${app.stackName}/${id}`;
  const textOfProperty = (property: string) => {
    const value = own(resource.Properties, property);
    if (value === undefined) return undefined;
    if (evaluating.has(key)) throw unresolvable(whole, `${id}'s value depends on itself`);
    evaluating.add(key);
    try {
      const evaluated = evaluate(value, app);
      return evaluated === noValue ? undefined : textOf(evaluated, whole);
    } finally {
      evaluating.delete(key);
    }
  };
  return {
    id,
    stackName: app.stackName,
    resource,
    text: textOfProperty,
    ...(app.sqsEndpoint !== undefined && { sqsEndpoint: app.sqsEndpoint }),
  };
};

/** The value the return-value table gives `subject`, by `pick`: refused, naming why, when it has none. */
const known = (
  subject: Subject,
  pick: (types: NonNullable<(typeof returnValues)[string]>) => ((subject: Subject) => Known) | undefined,
  whole: unknown,
): string => {
  const { id, resource } = subject;
  const types = own(returnValues, resource.Type);
  const getter = types === undefined ? undefined : pick(types);
  if (getter === undefined)
    throw unresolvable(whole, `${id}, an ${resource.Type}: a value the runner's return-value table does not have`);
  const result = getter(subject);
  if ('unknown' in result) throw unresolvable(whole, `${id}, an ${resource.Type}: ${result.unknown}`);
  return result.value;
};

/** Conditions evaluated, by template: each once. */
const evaluatedConditions = new WeakMap<TemplateSections, Map<string, boolean>>();

/**
 * Whether the condition `name` of `app`'s template holds ("Condition functions": Fn::Equals, Fn::And, Fn::Or,
 * Fn::Not, Condition, over values the evaluator resolves); UnresolvableValueError when the runner cannot tell.
 */
export const conditionOf = (name: string, app: ValueContext, seen: string[] = []): boolean => {
  const template = app.template ?? {};
  const cache = evaluatedConditions.get(template) ?? new Map<string, boolean>();
  evaluatedConditions.set(template, cache);
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  const body = own(template.Conditions, name);
  if (body === undefined || seen.includes(name)) throw unresolvable({ Condition: name }, 'no such condition');
  const holds = conditionValue(body, app, [...seen, name]);
  cache.set(name, holds);
  return holds;
};

/** Compared as CloudFormation compares them: scalars as text. */
const comparable = (value: Evaluated) => JSON.stringify(isScalar(value) ? String(value) : value);

const conditionValue = (body: unknown, app: ValueContext, seen: string[]): boolean => {
  const [fn, argument] = (typeof body === 'object' && body !== null && Object.entries(body).length === 1
    ? Object.entries(body)[0]
    : []) ?? [undefined, undefined];
  const operands = () => (Array.isArray(argument) ? argument : []).map((item) => conditionValue(item, app, seen));
  if (fn === 'Condition' && typeof argument === 'string') return conditionOf(argument, app, seen);
  if (fn === 'Fn::Equals') {
    const [a, b] = argumentsOf(argument, body, 2).map((item) => comparable(evaluate(item, app)));
    return a === b;
  }
  if (fn === 'Fn::Not' && Array.isArray(argument) && argument.length === 1) return !operands()[0];
  if (fn === 'Fn::And') return operands().every(Boolean);
  if (fn === 'Fn::Or') return operands().some(Boolean);
  throw unresolvable(body, 'not a condition function');
};

/**
 * `value`, the property `property` of the resource `source` (`Stack/LogicalId`), evaluated in `app`; undefined when
 * absent or AWS::NoValue. A value the evaluator cannot know refuses the app, naming the resource and the property.
 */
export const evaluatedProperty = (value: unknown, app: ValueContext, source: string, property: string) => {
  if (value === undefined) return undefined;
  try {
    const result = evaluate(value, app);
    return result === noValue ? undefined : result;
  } catch (error) {
    if (!(error instanceof UnresolvableValueError)) throw error;
    throw new UnsupportedTemplateError(`${source}: its ${property} ${error.message} has no local value`);
  }
};
