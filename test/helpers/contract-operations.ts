// The operations of a contract (openapi.yaml by default), read from the document itself: the tests that count what
// the stack makes per operation (methods, functions, alarms, deployments) count from here, so that they hold, unchanged,
// when an operation is added (docs/extending.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../infra/project-root.ts';

export interface ContractOperation {
  /** Upper case, as API Gateway and the template write it. */
  method: string;
  path: string;
  operationId: string;
  /** The scopes its security requirement lists (its own, else the document's): OpenAPI 3.1, Security Requirement. */
  scopes: string[];
}

type Security = Record<string, string[]>[];

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const contractOperations = (contract = join(projectRoot, 'openapi.yaml')): ContractOperation[] => {
  const { paths = {}, security = [] } = parse(readFileSync(contract, 'utf8')) as {
    paths?: Record<string, Record<string, { operationId?: string; security?: Security }>>;
    security?: Security;
  };
  return Object.entries(paths).flatMap(([path, item]) =>
    methods
      .filter((method) => item[method] !== undefined)
      .map((method) => {
        const operationId = item[method]?.operationId;
        if (!operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
        const [requirement = {}] = item[method]?.security ?? security;
        return { method: method.toUpperCase(), path, operationId, scopes: Object.values(requirement).flat() };
      }),
  );
};

/** The logical id of an operation's function, as the stacks name it: createPlant -> CreatePlantFunction. */
export const functionIdOf = ({ operationId }: ContractOperation) =>
  `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}Function`;

/** The API Gateway resources the operations' paths need: one per path segment prefix ('/a/{b}' needs 'a' and 'a/{b}'). */
export const resourcePathsOf = (operations: readonly ContractOperation[]) =>
  new Set(
    operations.flatMap(({ path }) => {
      const segments = path.split('/').filter(Boolean);
      return segments.map((_, index) => segments.slice(0, index + 1).join('/'));
    }),
  );
