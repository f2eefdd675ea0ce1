// createPlant's configuration, read once at cold start; a missing value fails the cold start with a clear message.
import { getNumberFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { defaultMaxBodyBytes } from './defaults.ts';

export const config = {
  tableName: getStringFromEnv({ key: 'TABLE_NAME', errorMessage: 'TABLE_NAME must name the plants table' }),
  maxBodyBytes: getNumberFromEnv({ key: 'MAX_BODY_BYTES', defaultValue: defaultMaxBodyBytes }),
};
