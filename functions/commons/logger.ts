import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger per function; its service name and level come from POWERTOOLS_SERVICE_NAME and
 * POWERTOOLS_LOG_LEVEL, which the CDK construct sets (infra/constructs/plant-store-function.ts).
 */
export const logger = new Logger();

/**
 * `logger.debug`, for what the API Gateway access log records already (every status, every principal). The level is
 * checked first: Powertools reads the environment for every log call, even one below the level, a cost on the 400
 * path (`npm run bench` profiles it when the path misses its target).
 */
export const logDebug = (message: string, attributes: Record<string, unknown>) => {
  if (logger.level <= LogLevelThreshold.DEBUG) logger.debug(message, attributes);
};
