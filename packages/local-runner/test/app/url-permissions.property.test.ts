// Random templates of a function URL with AuthType NONE (on the function, or on its alias) and AWS::Lambda::Permission
// resources written in every form CloudFormation gives them: FunctionName as a name, a name with a qualifier, an ARN,
// a partial ARN (the forms "AddPermission" in the Lambda API reference names), a Ref to the function, its alias or its
// version, Fn::GetAtt [fn, Arn], an Fn::Join or Fn::Sub ARN, an Fn::If on a condition true or false; Action, Principal
// and the condition keys (FunctionUrlAuthType, InvokedViaFunctionUrl, a source or an organization) as they come; and
// values the runner cannot read. The oracle, written from the generated intent alone, says what "Control access to
// Lambda function URLs" (https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html) makes of it: public when some
// permission grants lambda:InvokeFunctionUrl and some lambda:InvokeFunction to `*`, for what the URL invokes (the
// function, or its alias: a policy is a version's or an alias's own), with no condition that the URL's anonymous call
// fails; refused when a permission that could grant one is unreadable. A failure prints fast-check's seed: replay it
// with FC_SEED=<seed>.
import { afterAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { UrlApi } from '../../src/app/api.ts';
import { readAssembly } from '../../src/app/assembly.ts';
import { UnsupportedTemplateError } from '../../src/app/cfn.ts';
import { functionReferenceOf } from '../../src/app/url-permissions.ts';
import { handWrittenAssemblies } from '../helpers/hand-written-assembly.ts';

type Target = 'function' | 'alias' | 'version' | 'other';
type NameForm = 'name' | 'arn' | 'partial' | 'ref' | 'getAtt' | 'join' | 'sub' | 'subList' | 'ifTrue' | 'ifFalse';

interface PermissionIntent {
  target: Target;
  /** Written by the function's FunctionName rather than its logical id, where a name is written. */
  byFunctionName: boolean;
  form: NameForm;
  action: 'lambda:InvokeFunctionUrl' | 'lambda:InvokeFunction' | 'lambda:*' | 'lambda:GetFunction';
  actionCase: 'as is' | 'lower';
  principal: '*' | 'apigateway.amazonaws.com' | '123456789012';
  authType: 'NONE' | 'AWS_IAM' | undefined;
  viaUrl: true | false | 'true' | undefined;
  restriction: 'SourceAccount' | 'PrincipalOrgID' | undefined;
  unreadable: 'FunctionName' | 'Principal' | undefined;
}

interface Case {
  onAlias: boolean;
  permissions: PermissionIntent[];
  pick: number;
}

/** `value` `weight` times: fc.constantFrom's odds. */
const weighted = <T>(...choices: [T, number][]) =>
  fc.constantFrom(...choices.flatMap(([value, weight]) => Array.from({ length: weight }, () => value)));

const permissionIntent: fc.Arbitrary<PermissionIntent> = fc.record({
  target: weighted<Target>(['function', 2], ['alias', 2], ['version', 1], ['other', 1]),
  byFunctionName: fc.boolean(),
  form: fc.constantFrom<NameForm>(
    'name',
    'arn',
    'partial',
    'ref',
    'getAtt',
    'join',
    'sub',
    'subList',
    'ifTrue',
    'ifFalse',
  ),
  action: weighted<PermissionIntent['action']>(
    ['lambda:InvokeFunctionUrl', 2],
    ['lambda:InvokeFunction', 2],
    ['lambda:*', 1],
    ['lambda:GetFunction', 1],
  ),
  actionCase: fc.constantFrom('as is' as const, 'lower' as const),
  principal: weighted<PermissionIntent['principal']>(['*', 4], ['apigateway.amazonaws.com', 1], ['123456789012', 1]),
  authType: weighted<PermissionIntent['authType']>(['NONE', 2], [undefined, 2], ['AWS_IAM', 1]),
  viaUrl: weighted<PermissionIntent['viaUrl']>([true, 2], ['true', 1], [undefined, 2], [false, 1]),
  restriction: weighted<PermissionIntent['restriction']>([undefined, 6], ['SourceAccount', 1], ['PrincipalOrgID', 1]),
  unreadable: weighted<PermissionIntent['unreadable']>([undefined, 12], ['FunctionName', 1], ['Principal', 1]),
});

/** A permission as a grant is written (to `*`, no source, readable), in any form, of `action`: the public cases. */
const grantOf = (action: PermissionIntent['action']) =>
  permissionIntent.map(
    (intent): PermissionIntent => ({
      ...intent,
      action,
      principal: '*',
      restriction: undefined,
      unreadable: undefined,
    }),
  );

const cases: fc.Arbitrary<Case> = fc
  .record({
    onAlias: fc.boolean(),
    grants: fc.tuple(fc.option(grantOf('lambda:InvokeFunctionUrl')), fc.option(grantOf('lambda:InvokeFunction'))),
    others: fc.array(permissionIntent, { maxLength: 4 }),
    pick: fc.nat(5),
  })
  .map(({ onAlias, grants, others, pick }) => ({
    onAlias,
    permissions: [...grants.filter((grant) => grant !== null), ...others],
    pick,
  }));

/** The function each target is (its logical id, its FunctionName) and the qualifier it names. */
const targets: Record<Target, { id: string; name: string; qualifier?: string; ref: string }> = {
  function: { id: 'Fn', name: 'plant-fn', ref: 'Fn' },
  alias: { id: 'Fn', name: 'plant-fn', qualifier: 'live', ref: 'Live' },
  version: { id: 'Fn', name: 'plant-fn', qualifier: '1', ref: 'Version' },
  other: { id: 'Other', name: 'Other', ref: 'Other' },
};

// A parameter without a default, an Fn::Sub of it, an Fn::Select outside its list (which no deployment resolves).
// biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own `${...}` form, literally
const unreadableValues = [{ Ref: 'Unset' }, { 'Fn::Sub': '${Unset}' }, { 'Fn::Select': [1, ['Fn']] }];

/** FunctionName written in `form` for `intent.target`. */
const functionNameOf = (intent: PermissionIntent): unknown => {
  const { id, name: ownName, qualifier, ref } = targets[intent.target];
  const name = intent.byFunctionName ? ownName : id;
  const suffix = qualifier === undefined ? '' : `:${qualifier}`;
  const arnParts = ['arn:', { Ref: 'AWS::Partition' }, ':lambda:', { Ref: 'AWS::Region' }, ':'];
  switch (intent.form) {
    case 'name':
      return `${name}${suffix}`;
    case 'arn':
      return `arn:aws:lambda:us-east-1:123456789012:function:${name}${suffix}`;
    case 'partial':
      return `000000000000:function:${name}${suffix}`;
    case 'ref':
      return { Ref: ref };
    case 'getAtt':
      return qualifier === undefined ? { 'Fn::GetAtt': [id, 'Arn'] } : { Ref: ref };
    case 'join':
      return { 'Fn::Join': ['', [...arnParts, { Ref: 'AWS::AccountId' }, ':function:', { Ref: id }, suffix]] };
    case 'sub':
      return {
        'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:\${${id}}${suffix}`,
      };
    case 'subList':
      return { 'Fn::Sub': [`\${Arn}${suffix}`, { Arn: { 'Fn::GetAtt': [id, 'Arn'] } }] };
    case 'ifTrue':
      return { 'Fn::If': ['FlagOn', `${name}${suffix}`, 'Other'] };
    default:
      return { 'Fn::If': ['FlagOff', 'Other', { Ref: ref }] };
  }
};

const inline = (properties: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Properties: {
    Runtime: 'nodejs24.x',
    Handler: 'index.handler',
    Code: { ZipFile: 'exports.handler = async () => "ok";' },
    ...properties,
  },
});

const templateOf = ({ onAlias, permissions, pick }: Case) => {
  const resources: Record<string, unknown> = {
    Fn: inline({ FunctionName: 'plant-fn' }),
    Other: inline(),
    Version: { Type: 'AWS::Lambda::Version', Properties: { FunctionName: { Ref: 'Fn' } } },
    Live: {
      Type: 'AWS::Lambda::Alias',
      Properties: {
        FunctionName: { Ref: 'Fn' },
        FunctionVersion: { 'Fn::GetAtt': ['Version', 'Version'] },
        Name: 'live',
      },
    },
    Url: {
      Type: 'AWS::Lambda::Url',
      Properties: {
        AuthType: 'NONE',
        TargetFunctionArn: { 'Fn::GetAtt': ['Fn', 'Arn'] },
        ...(onAlias && { Qualifier: 'live' }),
      },
    },
  };
  permissions.forEach((intent, index) => {
    const unreadable = unreadableValues[(pick + index) % unreadableValues.length];
    resources[`P${index}`] = {
      Type: 'AWS::Lambda::Permission',
      Properties: {
        Action: intent.actionCase === 'lower' ? intent.action.toLowerCase() : intent.action,
        Principal: intent.unreadable === 'Principal' ? unreadable : intent.principal,
        FunctionName: intent.unreadable === 'FunctionName' ? unreadable : functionNameOf(intent),
        ...(intent.authType !== undefined && { FunctionUrlAuthType: intent.authType }),
        ...(intent.viaUrl !== undefined && { InvokedViaFunctionUrl: intent.viaUrl }),
        ...(intent.restriction === 'SourceAccount' && { SourceAccount: '123456789012' }),
        ...(intent.restriction === 'PrincipalOrgID' && { PrincipalOrgID: 'o-plants' }),
      },
    };
  });
  return {
    Parameters: { Flag: { Type: 'String', Default: 'on' }, Unset: { Type: 'String' } },
    Conditions: {
      FlagOn: { 'Fn::Equals': [{ Ref: 'Flag' }, 'on'] },
      FlagOff: { 'Fn::Not': [{ Condition: 'FlagOn' }] },
    },
    Resources: resources,
  };
};

/** The oracle: refused, or the actions no permission grants the URL's anonymous caller. */
const oracle = ({ onAlias, permissions }: Case) => {
  const mayGrant = ({ action, principal, unreadable }: PermissionIntent) =>
    action !== 'lambda:GetFunction' && (unreadable === 'Principal' || principal === '*');
  if (permissions.some((intent) => intent.unreadable !== undefined && mayGrant(intent))) return 'refused';
  const grants = (wanted: string) =>
    permissions.some(
      (intent) =>
        intent.unreadable === undefined &&
        intent.principal === '*' &&
        (intent.action === wanted || intent.action === 'lambda:*') &&
        intent.target === (onAlias ? 'alias' : 'function') &&
        intent.authType !== 'AWS_IAM' &&
        intent.viaUrl !== false &&
        intent.restriction === undefined,
    );
  return ['lambda:InvokeFunctionUrl', 'lambda:InvokeFunction'].filter((action) => !grants(action));
};

const { assemblyOf, removeAll } = handWrittenAssemblies('url-permissions');
afterAll(removeAll);

test('read: public exactly as the oracle says, the start line naming the function; unreadable permissions refused', () => {
  fc.assert(
    fc.property(cases, (generated) => {
      const expected = oracle(generated);
      const dir = assemblyOf(templateOf(generated));
      if (expected === 'refused') {
        expect(() => readAssembly(dir)).toThrow(UnsupportedTemplateError);
        expect(() => readAssembly(dir)).toThrow(/^P\d+: (FunctionName|Principal) /);
        return;
      }
      const { apis, notices } = readAssembly(dir);
      const url = apis.find(({ apiId }) => apiId === 'Url') as UrlApi;
      expect(url.ungranted).toEqual(expected);
      const said = notices.filter((line) => line.startsWith('Case/Url: the function URL of Fn'));
      expect(said).toHaveLength(expected.length > 0 ? 1 : 0);
      if (expected.length > 0) expect(said[0]).toContain(generated.onAlias ? 'Fn (alias live)' : 'Fn has');
    }),
    { numRuns: process.env.PLANT_STORE_THOROUGH ? 5_000 : 500 },
  );
});

describe('a FunctionName read ("AddPermission", Lambda API reference: "Name formats")', () => {
  test.each([
    ['my-function', { name: 'my-function' }],
    ['my-function:v1', { name: 'my-function', qualifier: 'v1' }],
    ['my_function:7', { name: 'my_function', qualifier: '7' }],
    ['arn:aws:lambda:us-west-2:123456789012:function:my-function', { name: 'my-function' }],
    ['arn:aws-cn:lambda:cn-north-1:123456789012:function:my-function:live', { name: 'my-function', qualifier: 'live' }],
    ['123456789012:function:my-function', { name: 'my-function' }],
    ['123456789012:function:my-function:$LATEST', { name: 'my-function', qualifier: '$LATEST' }],
  ])('%s', (text, expected) => {
    expect(functionReferenceOf(text)).toEqual(expected);
  });

  test.each([
    '',
    '*',
    'arn:aws:lambda:us-west-2:123456789012:layer:my-layer',
    'arn:aws:s3:::bucket',
    'my function',
    'a:b:c',
  ])('none: %j', (text) => {
    expect(functionReferenceOf(text)).toBeUndefined();
  });
});
