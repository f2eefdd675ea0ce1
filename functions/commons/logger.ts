import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per function (service name and level from POWERTOOLS_* environment variables). */
export const logger = new Logger({ serviceName: 'plant-store' });
