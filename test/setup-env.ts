// Every test runs offline against loopback services: fixed region and dummy credentials for the AWS SDK, and quiet logs.
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'test';
process.env.AWS_SECRET_ACCESS_KEY = 'test';
process.env.AWS_EC2_METADATA_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
// No built-in CloudFormation validation on the tests' synths (aws-cdk-lib's README, "CDK_VALIDATION=false"): about ten
// seconds of CPU per synth of the product's app, paid by every fixture app and every in-process stack. An app's own
// plugins (cdk-nag) still run; the run's one `cdk synth` of the product (global-setup.ts, before this) validates.
process.env.CDK_VALIDATION = 'false';
