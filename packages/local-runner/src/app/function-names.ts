// How a user names a function on the command line (`invoke`, `--inspect`, `--env-vars`): by its logical id (hashed
// by the CDK, `CreatePlantFunction1A2B3C4D`), by `Stack/id`, by its construct path as `cdk` prints it (the template's
// `aws:cdk:path` metadata, `PlantStore/CreatePlantFunction/Resource`, with or without the `/Resource`), by its name as
// Lambda knows it (aws-function-names.ts: its FunctionName, else the generated one), or by its construct id
// (`CreatePlantFunction`) when one function alone has it. One resolver for them all.
import leven from 'leven';
import { RunnerError } from '../errors.ts';
import { type CfnResource, ofType } from './cfn.ts';

/** A function of the assembly, served or not: its stack, its logical id and its construct path (when it has one). */
export interface FunctionRef {
  stackName: string;
  id: string;
  /** The construct path without its `/Resource` (`PlantStore/CreatePlantFunction`); undefined without metadata. */
  path: string | undefined;
  /** Its name as Lambda knows it (aws-function-names.ts); undefined when the runner cannot know it. */
  functionName?: string | undefined;
}

/** How a name matched: the more specific kinds win when several keys name one function (`--env-vars`). */
export type NameKind = 'construct id' | 'function name' | 'logical id' | 'construct path' | 'stack and logical id';

/**
 * Each Lambda function of a stack's resources, with the construct path its metadata names and, when `nameOf` knows it,
 * its name as Lambda knows it.
 */
export const functionRefsOf = (
  stackName: string,
  resources: Record<string, CfnResource>,
  nameOf: (id: string) => string | undefined = () => undefined,
): FunctionRef[] =>
  ofType(resources, 'AWS::Lambda::Function').map(([id, resource]) => {
    const path = resource.Metadata?.['aws:cdk:path'];
    const functionName = nameOf(id);
    return {
      stackName,
      id,
      path: typeof path === 'string' ? path.replace(/\/Resource$/, '') : undefined,
      ...(functionName !== undefined && functionName !== id && { functionName }),
    };
  });

/** The construct id: the path's last segment (the function's own construct, whose `Resource` is its CfnFunction). */
const constructIdOf = ({ path }: FunctionRef) => path?.split('/').at(-1);

/** How `ref` is shown in a message: its construct path and logical id, or `Stack/id`. */
export const shownRef = (ref: FunctionRef) =>
  ref.path === undefined ? `${ref.stackName}/${ref.id}` : `${ref.path} (${ref.id})`;

/** Each kind of name, most specific first: the refs `given` names that way. */
const matchers: [NameKind, (ref: FunctionRef, given: string) => boolean][] = [
  ['stack and logical id', (ref, given) => given === `${ref.stackName}/${ref.id}`],
  [
    'construct path',
    (ref, given) => ref.path !== undefined && (given === ref.path || given === `${ref.path}/Resource`),
  ],
  ['logical id', (ref, given) => given === ref.id],
  ['function name', (ref, given) => given === ref.functionName],
  ['construct id', (ref, given) => given === constructIdOf(ref)],
];

/** The names a user may give `ref`, as the closest ones are looked for. */
const namesOf = (ref: FunctionRef) =>
  [ref.id, `${ref.stackName}/${ref.id}`, ref.path, ref.functionName, constructIdOf(ref)].filter(
    (name): name is string => name !== undefined,
  );

/** How many of the closest names an unknown one is answered with. */
const suggested = 3;

/** The functions whose names are closest to `given` (edit distance, ignoring case), closest first. */
const closestRefs = (refs: FunctionRef[], given: string) =>
  refs
    .map((ref) => ({
      ref,
      distance: Math.min(...namesOf(ref).map((name) => leven(given.toLowerCase(), name.toLowerCase()))),
    }))
    .sort((a, b) => a.distance - b.distance || shownRef(a.ref).localeCompare(shownRef(b.ref)))
    .slice(0, suggested)
    .map(({ ref }) => ref);

const prefix = (as: string | undefined) => (as === undefined ? '' : `${as}: `);

/**
 * The function `given` names among `refs`, and how it named it; undefined when none has that name. `as` starts the
 * message, when given (`--inspect=X`): a name several functions have is refused, listing them.
 */
export const matchFunction = (
  refs: FunctionRef[],
  given: string,
  as?: string,
): { ref: FunctionRef; kind: NameKind } | undefined => {
  for (const [kind, matches] of matchers) {
    const found = refs.filter((ref) => matches(ref, given));
    const [ref] = found;
    if (ref !== undefined && found.length === 1) return { ref, kind };
    if (found.length > 1)
      throw new RunnerError(
        `${prefix(as)}${given} is the ${kind} of ${found.length} functions, ${found.map(shownRef).join(', ')}: name one by its construct path or Stack/id`,
      );
  }
  return undefined;
};

/** matchFunction, an unknown name refused with the closest names. */
export const resolveFunction = (refs: FunctionRef[], given: string, as?: string) => {
  const matched = matchFunction(refs, given, as);
  if (matched) return matched;
  const said = prefix(as);
  const closest = closestRefs(refs, given);
  throw new RunnerError(
    closest.length === 0
      ? `${said}no function ${given}: the app has no Lambda function`
      : `${said}no function ${given} in the app; did you mean ${closest.map(shownRef).join(', or ')}?`,
  );
};
