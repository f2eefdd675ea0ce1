// The functions the runner serves of an assembly (assembly.ts): each once, however many APIs reach it, by the name the
// runner's messages and options use (`--inspect`, `--env-vars`, `invoke`); the one a user names; those not served.
import { RunnerError } from '../errors.ts';
import type { Api } from './api.ts';
import type { Assembly } from './assembly.ts';
import { type FunctionRef, matchFunction, resolveFunction, shownRef } from './function-names.ts';
import type { FunctionDefinition } from './functions.ts';
import type { ValueContext } from './intrinsics.ts';

/**
 * A function served, once however many APIs of its stack reach it: its name in the runner's messages and options
 * (`--inspect`, `--env-vars`, `invoke`), and where its values are resolved (its own stack's). The name is its
 * logical id, or `Stack/id` when several stacks are served: two may have a function of the same id, as the CDK gives
 * one construct the same id in each stack it is in.
 */
export interface ServedFunction {
  name: string;
  fn: FunctionDefinition;
  /** Where its values are resolved: its own stack (the API's, or the one it is imported from). */
  context: ValueContext;
  /** An API's route or authorizer reaches it: what would keep it from running stops the start. */
  reached: boolean;
}

/** The stack a function `app` reaches is of: `app`'s, or the one it imports it from. */
export const functionContext = (app: Api, id: string): ValueContext => app.functionStacks.get(id) ?? app;

/** Each function the APIs reach, with its stack, then those no API reaches (assembly.ts: otherFunctions). */
const everyFunction = ({ apis, otherFunctions }: Assembly) => [
  ...apis.flatMap((app) =>
    [...app.functions.values()].map((fn) => ({ fn, context: functionContext(app, fn.id), reached: true })),
  ),
  ...otherFunctions.map(({ fn, context }) => ({ fn, context, reached: false })),
];

/**
 * How the functions served are named (ServedFunction): by id, or `Stack/id` when they are of several stacks.
 * `nameOf(app, id)`: the name of the function `app` reaches by `id`.
 */
export const functionNames = (assembly: Assembly) => {
  const stacks = new Set(everyFunction(assembly).map(({ context }) => context.stackName));
  const named = (stackName: string, id: string) => (stacks.size > 1 ? `${stackName}/${id}` : id);
  return (app: Api, id: string) => named(functionContext(app, id).stackName, id);
};

export const servedFunctions = (assembly: Assembly): ServedFunction[] => {
  const stacks = new Set(everyFunction(assembly).map(({ context }) => context.stackName));
  const served = new Map<string, ServedFunction>();
  for (const { fn, context, reached } of everyFunction(assembly)) {
    const name = stacks.size > 1 ? `${context.stackName}/${fn.id}` : fn.id;
    if (!served.has(name)) served.set(name, { name, fn, context, reached });
  }
  return [...served.values()];
};

/**
 * The function a user names (function-names.ts: by logical id, `Stack/id`, construct path or construct id), `as`
 * starting the messages (`--inspect=X`): among the functions served first (so a name another stack's function shares
 * is the served one's), then among every function of the assembly; with the served function it is, if it is one.
 */
export const namedRef = (assembly: Assembly, name: string, as?: string) => {
  const served = servedFunctions(assembly);
  const servedOf = (ref: FunctionRef) =>
    served.find(({ fn, context }) => fn.id === ref.id && context.stackName === ref.stackName);
  const named =
    matchFunction(
      assembly.functions.filter((ref) => servedOf(ref) !== undefined),
      name,
      as,
    ) ?? resolveFunction(assembly.functions, name, as);
  return { ...named, served: servedOf(named.ref) };
};

/** The served function a user names (namedRef); refused when it names a function that cannot run locally. */
export const namedFunction = (assembly: Assembly, name: string, as?: string): ServedFunction => {
  const { ref, served } = namedRef(assembly, name, as);
  if (served) return served;
  const why = [...assembly.unservable, ...assembly.reproducedHandlers].find(
    ({ stackName, id }) => stackName === ref.stackName && id === ref.id,
  );
  throw new RunnerError(
    `${as === undefined ? '' : `${as}: `}${shownRef(ref)} is not served: ${why?.reason ?? 'its stack is not served (--stack, --api)'}`,
  );
};
