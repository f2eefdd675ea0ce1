// The AWS services the runner serves locally (DynamoDB, and services/'s), each by the prefix IAM actions name it with
// (`sqs:SendMessage`), which is also the service SigV4 signs its calls for, and by its name as the runner says it.
// Read where the runner tells a served service from one it does not serve: the notice of a function whose role may
// call others (app/functions.ts), and the error of a call to one (aws/unserved-services.ts). A service served is
// added here, once.

export const servedServices: readonly { prefix: string; name: string }[] = [
  { prefix: 'dynamodb', name: 'DynamoDB' },
  { prefix: 'dynamodb', name: 'DynamoDB Streams' },
  { prefix: 'ssm', name: 'SSM Parameter Store' },
  { prefix: 'secretsmanager', name: 'Secrets Manager' },
  { prefix: 'sqs', name: 'SQS' },
  { prefix: 'sns', name: 'SNS' },
  { prefix: 'events', name: 'EventBridge' },
  { prefix: 'kinesis', name: 'Kinesis Data Streams' },
  { prefix: 'states', name: 'Step Functions' },
  { prefix: 'lambda', name: "Lambda's Invoke API" },
  { prefix: 's3', name: 'S3' },
];

/** The served services' names, as a sentence says them ("A, B and C"). */
export const servedServiceNames = () => {
  const names = servedServices.map(({ name }) => name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
};
