import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger per function; its service name and level come from POWERTOOLS_SERVICE_NAME and
 * POWERTOOLS_LOG_LEVEL, which the CDK construct sets (infra/constructs/plant-store-function.ts).
 */
export const logger = new Logger();
