// createPlant's configuration, read once at cold start; a missing value fails the cold start with a clear message.
import { getNumberFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { defaultMaxBodyBytes } from './defaults.ts';
import { createPlantVariableNames as names } from './variable-names.ts';

export const config = {
  tableName: getStringFromEnv({ key: names.tableName, errorMessage: `${names.tableName} must name the plants table` }),
  maxBodyBytes: getNumberFromEnv({ key: names.maxBodyBytes, defaultValue: defaultMaxBodyBytes }),
};
