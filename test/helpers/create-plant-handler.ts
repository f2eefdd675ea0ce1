import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

export type CreatePlantHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * createPlant's handler, loaded as Lambda loads it: its environment first (config is read at load), then the module,
 * once per test file (each jest test file has its own module registry, as each Lambda cold start has).
 */
export const loadCreatePlantHandler = async (
  tableName: string,
  databaseEndpoint: string,
): Promise<CreatePlantHandler> => {
  process.env.TABLE_NAME = tableName;
  process.env.AWS_ENDPOINT_URL_DYNAMODB = databaseEndpoint;
  return (await import('../../functions/create-plant/handler.ts')).handler as CreatePlantHandler;
};
