// The functions the runner serves of an assembly (assembly.ts): each once, however many APIs reach it, by the name the
// runner's messages and options use (`--inspect`, `--env-vars`, `invoke`); the one a user names; those not served.
import { RunnerError } from '../errors.ts';
import type { Api } from './api.ts';
import type { Assembly } from './assembly.ts';
import type { FunctionDefinition } from './functions.ts';
import type { ValueContext } from './intrinsics.ts';

/**
 * A function served, once however many APIs of its stack reach it: its name in the runner's messages and options
 * (`--inspect`, `--env-vars`, `invoke`), and the app its values are resolved in (its stack's). The name is its
 * logical id, or `Stack/id` when several stacks are served: two may have a function of the same id, as the CDK gives
 * one construct the same id in each stack it is in.
 */
export interface ServedFunction {
  name: string;
  fn: FunctionDefinition;
  /** The first API that reaches it. */
  app: Api;
  /** Where its values are resolved: its own stack (the API's, or the one it is imported from). */
  context: ValueContext;
}

/** The stack a function `app` reaches is of: `app`'s, or the one it imports it from. */
export const functionContext = (app: Api, id: string): ValueContext => app.functionStacks.get(id) ?? app;

/**
 * How the functions the APIs reach are named (ServedFunction): by id, or `Stack/id` when they are of several stacks.
 * `nameOf(app, id)`: the name of the function `app` reaches by `id`.
 */
export const functionNames = ({ apis }: Assembly) => {
  const stacks = new Set(
    apis.flatMap((app) => [...app.functions.keys()].map((id) => functionContext(app, id).stackName)),
  );
  return (app: Api, id: string) => (stacks.size > 1 ? `${functionContext(app, id).stackName}/${id}` : id);
};

export const servedFunctions = (assembly: Assembly): ServedFunction[] => {
  const nameOf = functionNames(assembly);
  const served = new Map<string, ServedFunction>();
  for (const app of assembly.apis)
    for (const fn of app.functions.values()) {
      const name = nameOf(app, fn.id);
      if (!served.has(name)) served.set(name, { name, fn, app, context: functionContext(app, fn.id) });
    }
  return [...served.values()];
};

/**
 * The served function a user names: by its name, or by its logical id when one function alone has it; undefined when
 * none has, and refused, naming them, when several have.
 */
export const namedFunction = (served: ServedFunction[], name: string): ServedFunction | undefined => {
  const exact = served.find((candidate) => candidate.name === name);
  if (exact) return exact;
  const byId = served.filter(({ fn }) => fn.id === name);
  if (byId.length > 1)
    throw new RunnerError(`${name} is the id of ${byId.map((candidate) => candidate.name).join(' and ')}: name one`);
  return byId[0];
};

/** The functions of the served stacks that no route or authorizer reaches, by name (ServedFunction): not served. */
export const unreachedFunctions = (assembly: Assembly) => {
  const nameOf = functionNames(assembly);
  const served = new Set(servedFunctions(assembly).map(({ name }) => name));
  const unreached = assembly.apis.flatMap((app) => app.unreachedFunctions.map((id) => nameOf(app, id)));
  return [...new Set(unreached)].filter((name) => !served.has(name));
};
