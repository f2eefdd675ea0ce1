// The tests run offline against loopback services: a fixed region and dummy credentials for the AWS SDK.
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'test';
process.env.AWS_SECRET_ACCESS_KEY = 'test';
process.env.AWS_EC2_METADATA_DISABLED = 'true';
