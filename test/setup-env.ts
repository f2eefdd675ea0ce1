// Every test runs offline against loopback services: fixed region and dummy credentials for the AWS SDK, and quiet logs.
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'test';
process.env.AWS_SECRET_ACCESS_KEY = 'test';
process.env.AWS_EC2_METADATA_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
