// API Gateway's TOKEN authorizer semantics: the header check before any invocation, the result cache per token, the
// policy evaluated against each method ARN, and which failure becomes which gateway response.

import type { LocalAuthorizer } from '../app/template.ts';
import type { FunctionPool, InvocationReport } from '../lambda/pool.ts';
import { isScalar } from '../scalar.ts';
import { compiledPattern } from './compiled-pattern.ts';
import { withinTime } from './time-limit.ts';

/** What API Gateway decides for one request. */
type AuthorizerDecision =
  | { allowed: true; principalId: string; context: Record<string, string | number | boolean> }
  | { allowed: false; responseType: string; message: string; context?: AuthorizerResult['context'] };

interface AuthorizerResult {
  principalId: string;
  statements: { effect: string; actions: string[]; resources: string[] }[];
  context: Record<string, string | number | boolean>;
}

/** API Gateway's limit on an authorizer's run. */
const authorizerTimeoutMs = 10_000;
/** The quota "Lambda authorizer response size": 8 KB, of the result's JSON in UTF-8 bytes. */
const maxResultBytes = 8 * 1024;

const refuse = (responseType: string, message: string): AuthorizerDecision => ({
  allowed: false,
  responseType,
  message,
});
const configurationError = () => refuse('AUTHORIZER_CONFIGURATION_ERROR', 'Internal server error');

/** IAM's wildcards: `*` any run of characters, `?` any one. */
const matchesPattern = (pattern: string, value: string) =>
  compiledPattern(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  ).test(value);

const asList = (value: unknown): string[] | undefined =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? value
      : undefined;

/** The authorizer's answer, or undefined when API Gateway would reject it as malformed. */
const parseResult = (value: unknown): AuthorizerResult | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { principalId, policyDocument, context = {} } = value as Record<string, unknown>;
  if (typeof principalId !== 'string' || typeof policyDocument !== 'object' || policyDocument === null)
    return undefined;
  if (Buffer.byteLength(JSON.stringify(value)) > maxResultBytes) return undefined;
  const statement = (policyDocument as { Statement?: unknown }).Statement;
  const list: unknown[] = Array.isArray(statement) ? statement : [statement];
  const statements = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { Effect, Action, Resource } = item as Record<string, unknown>;
    const actions = asList(Action);
    const resources = asList(Resource);
    if ((Effect !== 'Allow' && Effect !== 'Deny') || !actions || !resources) return undefined;
    statements.push({ effect: Effect, actions, resources });
  }
  // Context values must be flat: nested objects or arrays make API Gateway answer 500.
  if (typeof context !== 'object' || context === null) return undefined;
  const flat = Object.values(context).every(isScalar);
  if (!flat) return undefined;
  return { principalId, statements, context: context as AuthorizerResult['context'] };
};

const decide = (result: AuthorizerResult, methodArn: string): AuthorizerDecision => {
  const applies = (statement: AuthorizerResult['statements'][number]) =>
    statement.actions.some((action) => matchesPattern(action, 'execute-api:Invoke')) &&
    statement.resources.some((resource) => matchesPattern(resource, methodArn));
  const matching = result.statements.filter(applies);
  // A 403's gateway response may read the authorizer's context ($context.authorizer.<key>).
  const { context } = result;
  if (matching.some((statement) => statement.effect === 'Deny')) {
    return {
      ...refuse('ACCESS_DENIED', 'User is not authorized to access this resource with an explicit deny'),
      context,
    };
  }
  if (!matching.some((statement) => statement.effect === 'Allow')) {
    return { ...refuse('ACCESS_DENIED', 'User is not authorized to access this resource'), context };
  }
  return { allowed: true, principalId: result.principalId, context: result.context };
};

export class LocalTokenAuthorizer {
  readonly #definition: LocalAuthorizer;
  readonly #pool: FunctionPool;
  readonly #cache = new Map<string, { result: AuthorizerResult; expires: number }>();

  constructor(definition: LocalAuthorizer, pool: FunctionPool) {
    this.#definition = definition;
    this.#pool = pool;
  }

  get functionId() {
    return this.#definition.functionId;
  }

  /**
   * `headers` as the client sent them (any case, every value); `methodArn` of the route being called. The report is
   * there when the authorizer function was invoked.
   */
  async authorize(
    headers: Record<string, string[]>,
    methodArn: string,
  ): Promise<{ decision: AuthorizerDecision; report?: InvocationReport }> {
    const wanted = this.#definition.headerName.toLowerCase();
    const values = Object.entries(headers).flatMap(([name, sent]) => (name.toLowerCase() === wanted ? sent : []));
    const [token = ''] = values;
    // A missing or malformed header never reaches the authorizer function; nor do two of them (Authorization is a
    // singleton field, RFC 9110: which one would count is ambiguous, so neither does).
    if (
      values.length !== 1 ||
      token === '' ||
      (this.#definition.validation && !this.#definition.validation.test(token))
    ) {
      return { decision: refuse('UNAUTHORIZED', 'Unauthorized') };
    }
    const cached = this.#cache.get(token);
    if (cached && cached.expires > Date.now()) return { decision: decide(cached.result, methodArn) };
    const report = await this.#invoke(token, methodArn);
    return { decision: this.#decideOn(report, token, methodArn), ...(report && { report }) };
  }

  #invoke(token: string, methodArn: string) {
    const { qualifier } = this.#definition;
    const invoked = this.#pool.invoke(
      { type: 'TOKEN', authorizationToken: token, methodArn },
      qualifier ? { qualifier } : {},
    );
    // A debugged function may be paused at a breakpoint: the gateway waits (pool.ts, `debugged`).
    return this.#pool.debugged ? invoked : withinTime(invoked, authorizerTimeoutMs);
  }

  #decideOn(report: InvocationReport | undefined, token: string, methodArn: string): AuthorizerDecision {
    const invocation = report?.invocation;
    if (invocation?.outcome === 'error' && invocation.message === 'Unauthorized')
      return refuse('UNAUTHORIZED', 'Unauthorized');
    if (invocation?.outcome !== 'result') return refuse('AUTHORIZER_FAILURE', 'Internal server error');
    const result = parseResult(invocation.result);
    if (!result) return configurationError();
    if (this.#definition.ttlSeconds > 0) {
      this.#cache.set(token, { result, expires: Date.now() + this.#definition.ttlSeconds * 1000 });
    }
    return decide(result, methodArn);
  }
}
