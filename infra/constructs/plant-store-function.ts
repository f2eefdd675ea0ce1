import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, type CfnFunction, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { inspectContextKey } from '../local-runner-metadata.ts';
import { projectRoot } from '../project-root.ts';
import { Monitoring } from './monitoring.ts';

/** node:http as the bundles get it (see the file: the cost of importing it as an ES module). */
const nodeHttpForBundles = fileURLToPath(new URL('./bundling/node-http.ts', import.meta.url));

export interface PlantStoreFunctionProps {
  /** The handler file, relative to the project root, e.g. `functions/create-plant/handler.ts`. */
  entry: string;
  description: string;
  /** The function's CloudFormation logical id: readable and stable, as `sam local invoke` takes it. */
  logicalId: string;
  /** Its environment variables, merged over the defaults below. */
  variables?: Record<string, string>;
  timeout: Duration;
  /** How long its logs are kept. */
  logRetention: RetentionDays;
  /** Concurrent executions reserved for (and capping) this function; unset: the account's unreserved pool. */
  reservedConcurrency?: number;
  /**
   * What counts as this function failing when Lambda's Errors metric does not say it, made from its log group (see
   * WatchedFunction in monitoring.ts). Default: Lambda's Errors.
   */
  failures?: (scope: Construct, logGroup: ILogGroup) => { metric: IMetric; description: string };
}

/**
 * A Lambda function with this project's defaults: Node 24 on arm64, one minified ESM bundle with source maps and every
 * dependency inside (so the bundle runs as is, on AWS and in the local runner), an explicit log group with retention,
 * its own role that may write only to that log group (instead of the managed basic role's `Resource: *`), and what
 * the stack's Monitoring gives every function: alarms, a dashboard row, and a deployment that rolls back on them.
 */
export class PlantStoreFunction extends Construct {
  readonly function: NodejsFunction;
  /** `live`: the published version API Gateway calls, which a deployment shifts to the next one. */
  readonly alias: Alias;
  readonly logGroup: LogGroup;
  readonly timeout: Duration;
  /** How new code reaches `alias`: CodeDeploy, rolling back on the function's alarms. */
  readonly deployment: LambdaDeploymentGroup;

  constructor(scope: Construct, id: string, props: PlantStoreFunctionProps) {
    super(scope, id);
    this.timeout = props.timeout;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (execution role)`,
    });
    this.function = new NodejsFunction(this, 'Function', {
      entry: `${projectRoot}${props.entry}`,
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: props.timeout,
      ...(props.reservedConcurrency !== undefined && { reservedConcurrentExecutions: props.reservedConcurrency }),
      // X-Ray active tracing: Lambda records each invocation's segments itself, no SDK on the cold path.
      tracing: Tracing.ACTIVE,
      role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: {
        POWERTOOLS_SERVICE_NAME: Stack.of(this).stackName,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.variables,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        // Synthesized for the local runner's debugger, the bundle keeps the source's names: a paused frame reads as the
        // TypeScript does (`input`, not a mangled one).
        minify: this.node.tryGetContext(inspectContextKey) !== 'true',
        // The map ships beside the bundle; Node reads it only with NODE_OPTIONS=--enable-source-maps, which costs
        // every cold start, so it is not set: docs/deploy.md says how to decode a stack trace.
        sourceMap: true,
        sourcesContent: false,
        mainFields: ['module', 'main'],
        externalModules: [],
        // CommonJS dependencies inside an ESM bundle still call require().
        banner: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
        esbuildArgs: { '--alias:node:http': nodeHttpForBundles },
      },
    });
    this.alias = new Alias(this, 'Live', { aliasName: 'live', version: this.function.currentVersion });
    this.logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "Active tracing's xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions " +
        '(Service Authorization Reference, AWS X-Ray): they take Resource "*" and nothing else does.',
    });
    (this.function.node.defaultChild as CfnFunction).overrideLogicalId(props.logicalId);
    this.deployment = Monitoring.of(this).watchFunction(this, {
      name: props.logicalId.replace(/Function$/, ''),
      alias: this.alias,
      timeout: props.timeout,
      ...(props.failures && { failures: props.failures(this, this.logGroup) }),
    });
  }
}
