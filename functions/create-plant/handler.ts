// POST /plants: the Middy chain around createPlant, in the documented order for REST APIs.

import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { CreatePlantEvent } from '../commons/contract/openapi-types.ts';
import validateCreatePlantEvent from '../commons/contract/validate-create-plant-event.js';
import { deadline } from '../commons/deadline.ts';
import { createDynamoDbClient } from '../commons/dynamodb-client.ts';
import { dynamoDbPlantRepository } from '../commons/dynamodb-plant-repository.ts';
import { eventValidator } from '../commons/event-validator.ts';
import { httpErrors } from '../commons/http-errors.ts';
import { jsonBody } from '../commons/json-body.ts';
import { jsonResponse } from '../commons/json-response.ts';
import { logger } from '../commons/logger.ts';
import { config } from './config.ts';
import { createPlant } from './create-plant.ts';

const plants = dynamoDbPlantRepository(createDynamoDbClient(), config.tableName);

/** The proxy event once the validator has passed it: the parts the contract defines (CreatePlantEvent) typed by it. */
type ValidatedEvent = Omit<APIGatewayProxyEvent, keyof CreatePlantEvent> & CreatePlantEvent;

const createPlantHandler = async (
  event: ValidatedEvent,
  { signal }: { signal: AbortSignal },
): Promise<APIGatewayProxyResult> => {
  const principal = event.requestContext.authorizer?.principalId;
  if (typeof principal !== 'string') throw new Error('No authorizer principal: is the route behind the authorizer?');
  const plant = await createPlant(event.body, principal, { plants, now: () => new Date(), signal });
  return jsonResponse(200, plant);
};

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(deadline)
  .use(injectLambdaContext(logger))
  .use(httpHeaderNormalizer())
  .use(jsonBody(config.maxBodyBytes))
  .use(eventValidator(validateCreatePlantEvent))
  .use(httpErrors())
  // The validator has checked the parsed body against NewPlant.
  .handler((event, _context, options) => createPlantHandler(event as unknown as ValidatedEvent, options));
