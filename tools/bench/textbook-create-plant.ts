// The textbook createPlant the benchmark compares with, as the usual samples write it: Middy's JSON body parser and
// validator, the schema compiled at cold start (transpileSchema), the AWS SDK's DynamoDB client, one PutItem.
// (It loses int64 precision, as those samples do: it is a reference for speed, not a second implementation.)
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** The event schema around openapi.yaml's NewPlant, put in by the benchmark's build (esbuild `define`). */
declare const TEXTBOOK_EVENT_SCHEMA: object;

const client = new DynamoDBClient({});

type NewPlantEvent = Omit<APIGatewayProxyEvent, 'body'> & { body: { id: number; name: string; tag?: string } };

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(httpJsonBodyParser())
  .use(validator({ eventSchema: transpileSchema(TEXTBOOK_EVENT_SCHEMA) }))
  .handler(async (event) => {
    const { id, name, tag } = (event as unknown as NewPlantEvent).body;
    await client.send(
      new PutItemCommand({
        TableName: process.env.TABLE_NAME,
        Item: { id: { N: String(id) }, name: { S: name }, ...(tag === undefined ? {} : { tag: { S: tag } }) },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
    return { statusCode: 200, body: JSON.stringify({ name, tag }) };
  });
