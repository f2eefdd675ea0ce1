// Serves a synthesized app on loopback: its tables in a local DynamoDB, its functions in worker threads, its REST
// API behind a gateway that behaves as API Gateway does, and a development issuer its TOKEN authorizers trust.
import { TokenAuthorizer } from './authorizer.ts';
import { type LocalDatabase, startDatabase } from './database.ts';
import { devIssuerEnvironment, loadSigningKey, type SigningKey, serveJwks } from './dev-issuer.ts';
import { functionEnvironment } from './environment.ts';
import { FunctionPool } from './function-pool.ts';
import { createGateway, type LocalRoutes } from './gateway.ts';
import { listenOnLoopback } from './loopback.ts';
import { type LocalApp, readLocalApp } from './template.ts';

export interface LocalApiOptions {
  cloudAssemblyDir: string;
  stackName?: string;
  port: number;
  /** Where the database and the issuer's key live; undefined keeps both in memory. */
  dataDir: string | undefined;
  /** Execution environments per function at most. */
  maxWorkers: number;
  /**
   * Per function id, values that replace the template's and the runner's own local ones, such as
   * AWS_ENDPOINT_URL_DYNAMODB (the format of `sam local --env-vars`).
   */
  envVars?: Record<string, Record<string, string>>;
  log: (line: string) => void;
  /** Routes served besides the app's API, before the gateway sees a request (the API reference of `npm start`). */
  localRoutes?: LocalRoutes;
}

export interface LocalApi {
  url: string;
  app: LocalApp;
  signingKey: SigningKey;
  /** The local DynamoDB's endpoint (any credentials). */
  databaseEndpoint: string;
  /** How often each function was invoked. */
  invocations(functionId: string): number;
  /**
   * Stops accepting, finishes what is in flight, then stops the functions and closes the database. Requests still in
   * flight after `graceMs` are cut off (their connections closed), and the runner says so.
   */
  close(graceMs?: number): Promise<void>;
}

/** Starts pools, database and issuer for `app`, and the functions' environments; used by `npm start` and `npm run invoke`. */
export const startFunctions = async (app: LocalApp, options: Omit<LocalApiOptions, 'port' | 'cloudAssemblyDir'>) => {
  const signingKey = await loadSigningKey(options.dataDir);
  const jwks = await serveJwks(() => [signingKey.publicJwk]);
  let database: LocalDatabase | undefined;
  const pools = new Map<string, FunctionPool>();
  try {
    database = await startDatabase(app.tables, options.dataDir, options.log);
    for (const fn of app.functions.values()) {
      const overrides = {
        ...devIssuerEnvironment(fn, jwks.jwksUri),
        AWS_ENDPOINT_URL_DYNAMODB: database.endpoint,
        ...options.envVars?.[fn.id],
      };
      const environment = functionEnvironment(fn, app, overrides);
      pools.set(fn.id, new FunctionPool(fn, environment, options.maxWorkers));
    }
  } catch (error) {
    await database?.close();
    await jwks.close();
    throw error;
  }
  const openDatabase = database;
  return {
    signingKey,
    databaseEndpoint: openDatabase.endpoint,
    pools,
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      await openDatabase.close();
      await jwks.close();
    },
  };
};

export const startLocalApi = async (options: LocalApiOptions): Promise<LocalApi> => {
  const app = readLocalApp(options.cloudAssemblyDir, options.stackName);
  const functions = await startFunctions(app, options);
  const authorizers = new Map<string, TokenAuthorizer>();
  for (const authorizer of app.authorizers.values()) {
    const pool = functions.pools.get(authorizer.functionId);
    if (!pool) throw new Error(`${authorizer.id}: its function ${authorizer.functionId} is not in the template`);
    authorizers.set(authorizer.id, new TokenAuthorizer(authorizer, pool));
  }
  const server = createGateway({
    app,
    pools: functions.pools,
    authorizers,
    log: options.log,
    ...(options.localRoutes && { localRoutes: options.localRoutes }),
  });
  let url: string;
  try {
    url = await listenOnLoopback(server, options.port);
  } catch (error) {
    await functions.close();
    throw error;
  }
  return {
    url,
    app,
    signingKey: functions.signingKey,
    databaseEndpoint: functions.databaseEndpoint,
    invocations: (functionId) => {
      const pool = functions.pools.get(functionId);
      if (!pool) throw new Error(`no function ${functionId} in ${app.stackName}`);
      return pool.invocations;
    },
    close: async (graceMs = Number.POSITIVE_INFINITY) => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      const cutOff = Number.isFinite(graceMs)
        ? setTimeout(() => {
            options.log(`requests still in flight after ${graceMs / 1000} s: stopping anyway`);
            server.closeAllConnections();
          }, graceMs)
        : undefined;
      await drained;
      clearTimeout(cutOff);
      await functions.close();
    },
  };
};
