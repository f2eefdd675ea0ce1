// The template's buckets, read into what the local S3 (services/s3/) is seeded with at start ("AWS::S3::Bucket",
// CloudFormation template reference, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-s3-bucket.html):
// BucketName (else the name CloudFormation generates, stable here: generatedBucketName), VersioningConfiguration's
// Status, and CorsConfiguration's CorsRules. A value the evaluator cannot know refuses the app, naming the bucket.

import type { CorsRule } from '../services/s3/cors.ts';
import type { BucketSeed } from '../services/s3/index.ts';
import { type CfnResource, ofType, props, UnsupportedTemplateError } from './cfn.ts';
import { evaluatedProperty, type ValueContext } from './intrinsics.ts';
import { generatedBucketName } from './return-values.ts';

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const texts = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

/** "AWS::S3::Bucket CorsRule": AllowedHeaders, AllowedMethods, AllowedOrigins, ExposedHeaders, Id, MaxAge. */
const corsRuleOf = (given: unknown): CorsRule => {
  const rule = record(given);
  return {
    ...(rule.Id !== undefined && { id: String(rule.Id) }),
    allowedOrigins: texts(rule.AllowedOrigins),
    allowedMethods: texts(rule.AllowedMethods),
    allowedHeaders: texts(rule.AllowedHeaders),
    exposeHeaders: texts(rule.ExposedHeaders),
    ...(rule.MaxAge !== undefined && { maxAgeSeconds: Number(rule.MaxAge) }),
  };
};

const bucketOf = (id: string, resource: CfnResource, context: ValueContext): BucketSeed => {
  const source = `${context.stackName}/${id}`;
  const properties = props(resource);
  const value = (name: string) => evaluatedProperty(properties[name], context, source, name);
  const name = value('BucketName');
  const status = record(value('VersioningConfiguration')).Status;
  if (status !== undefined && status !== 'Enabled' && status !== 'Suspended')
    throw new UnsupportedTemplateError(
      `${source}: its VersioningConfiguration Status ${String(status)} is neither Enabled nor Suspended`,
    );
  const rules = record(value('CorsConfiguration')).CorsRules;
  return {
    source,
    name: name === undefined ? generatedBucketName(context.stackName, id) : String(name),
    ...(status !== undefined && { versioning: status }),
    ...(Array.isArray(rules) && { cors: rules.map(corsRuleOf) }),
  };
};

/** Each bucket of every stack. */
export const bucketsOf = (stacks: ValueContext[]): BucketSeed[] =>
  stacks.flatMap((context) =>
    ofType(context.resources, 'AWS::S3::Bucket').map(([id, resource]) => bucketOf(id, resource, context)),
  );
