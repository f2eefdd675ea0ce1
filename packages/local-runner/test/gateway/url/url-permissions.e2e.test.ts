// A function URL with AuthType NONE answers only when its function's resource-based policy grants public access:
// "Control access to Lambda function URLs" (https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html): with NONE,
// "your function's resource-based policy is always in effect and must grant public access before your function URL
// can receive requests", and "starting in October 2025, new function URLs will require both lambda:InvokeFunctionUrl
// and lambda:InvokeFunction permissions". Without them, 403 {"Message":"Forbidden"} (AccessDeniedException), the
// function not invoked, and one line at start naming the URL's function.
import { expect, test } from '@jest/globals';
import { synthesizeUrlPolicyApp } from '../../fixtures/url-policy-app.ts';
import { servedBeforeAll } from '../../helpers/served-app.ts';

const served = servedBeforeAll(synthesizeUrlPolicyApp);
const get = async (id: string, path: string) => {
  const response = await fetch(`${served.urlOf(id)}${path}`);
  return { status: response.status, headers: response.headers, text: await response.text() };
};

test.each([
  ['ClosedUrl', 'no permission at all (a CfnUrl written alone)', '/closed'],
  ['OlderUrl', 'lambda:InvokeFunctionUrl alone (aws-cdk-lib before October 2025)', '/older'],
])('%s, %s: 403 Forbidden, the function not invoked', async (id, _case, path) => {
  const { status, headers, text } = await get(id, path);
  expect({ status, text, type: headers.get('x-amzn-errortype') }).toEqual({
    status: 403,
    text: '{"Message":"Forbidden"}',
    type: 'AccessDeniedException',
  });
  const logged = new RegExp(`^\\[${id}\\] GET ${path} `);
  await served.log.seen(logged);
  expect(served.log.lines.filter((line) => logged.test(line))).toEqual([
    expect.stringMatching(/ 403 .*\(NONE: the function's resource-based policy grants no one lambda:Invoke/),
  ]);
});

test('both permissions, written by hand (FunctionName as a name and as an Fn::Sub ARN): the function answers', async () => {
  const { status, text } = await get('WrittenUrl', '/written');
  expect(status).toBe(200);
  expect(JSON.parse(text)).toMatchObject({ event: { rawPath: '/written' } });
});

test('said once at start, naming the function of each URL that answers 403 and what its policy lacks', () => {
  const said = served.log.lines.filter((line) => line.includes('has AuthType NONE and no AWS::Lambda::Permission'));
  expect(said).toEqual([
    expect.stringMatching(
      /^Policies\/ClosedUrl: the function URL of ClosedFunction .* grants lambda:InvokeFunctionUrl nor lambda:InvokeFunction to Principal \*: it answers every request 403/,
    ),
    expect.stringMatching(
      /^Policies\/OlderUrl: the function URL of OlderFunction .* grants lambda:InvokeFunction to Principal \*: it answers every request 403/,
    ),
  ]);
});
