// What Lambda's Invoke takes as FunctionName ("Invoke", AWS Lambda API Reference,
// https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html): the function's name, its ARN or a partial ARN
// (`123456789012:function:my-function`), each with a version's or an alias's qualifier after a colon or not. Read
// by the pattern that page gives, then checked against the local account and region: an ARN of another names no
// local function.
import { localAws } from '../app/local-aws.ts';

/** The function a FunctionName names, and the qualifier it gives. */
export interface InvokeTarget {
  name: string;
  qualifier?: string;
}

/** FunctionName's pattern, from the API reference, anchored. */
const functionNamePattern =
  /^(?:arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(?:-gov)?-[a-z]+-\d{1}:)?(\d{12}:)?(?:function:)?([a-zA-Z0-9\-_.]+)(?::(\$LATEST|[a-zA-Z0-9\-_]+))?$/;

/** The name and qualifier `given` names, if it is a FunctionName of a local function (this account and region). */
export const invokeTarget = (given: string): InvokeTarget | undefined => {
  const match = functionNamePattern.exec(given);
  if (!match) return undefined;
  const [, partition, region, account, name = '', qualifier] = match;
  if (partition !== undefined && partition !== localAws.partition) return undefined;
  if (region !== undefined && region !== `${localAws.region}:`) return undefined;
  if (account !== undefined && account !== `${localAws.accountId}:`) return undefined;
  return { name, ...(qualifier !== undefined && { qualifier }) };
};
