// The functions served, found as Lambda's Invoke finds them (invoke-target.ts: a name, an ARN or a partial ARN, with a
// qualifier or not), for what runs a function by name: Lambda's Invoke API (invoke-api.ts), asynchronous invocations
// (async-invocations.ts: the `lambda` receiver of services/targets.ts), an event source mapping's poller (the Invoker).
// The pools change with a reload.
import { functionNameOf } from '../app/aws-function-names.ts';
import type { FunctionDefinition } from '../app/functions.ts';
import type { ValueContext } from '../app/intrinsics.ts';
import { qualifierOf } from '../app/uri-target.ts';
import { type Invoker, TargetError } from '../services/targets.ts';
import { invokeTarget } from './invoke-target.ts';
import type { FunctionPool } from './pool.ts';

/** A function served: its pool, its definition, and the stack its aliases are read in. */
export interface Invocable {
  pool: FunctionPool;
  fn: FunctionDefinition;
  context: ValueContext;
}

export class InvocableFunctions {
  #byName = new Map<string, Invocable>();

  /** The functions served from now on (a reload's), by the name Lambda knows each by (aws-function-names.ts). */
  replace(functions: Invocable[]) {
    this.#byName = new Map(functions.map((entry) => [functionNameOf(entry.context, entry.fn.id), entry]));
  }

  /** The function `target` names and the qualifier it is invoked by; TargetError when none served has that name. */
  find(target: string): Invocable & { qualifier?: string } {
    const named = invokeTarget(target);
    const found = named && this.#byName.get(named.name);
    const qualified = found && named && qualifierOf(found.context, found.fn.id, named.qualifier);
    if (!found || !qualified) throw new TargetError(`${target}: no function of that name (and qualifier) is served`);
    return { ...found, ...qualified };
  }

  /** Invoke with RequestResponse (the Invoker of services/targets.ts). */
  invoke: Invoker = async (target, event) => {
    const { pool, qualifier } = this.find(target);
    return pool.invoke(event, qualifier === undefined ? {} : { qualifier });
  };
}
