import { Aws, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  type Authorizer,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { addGatewayResponses, bearerChallenges } from './gateway-responses.ts';

export interface PlantStoreApiProps {
  /** The product's name: the realm of the API's bearer challenges, and the start of the API's name. */
  name: string;
  /** The TOKEN authorizer every operation is behind. */
  authorizer: Authorizer;
  stageName: string;
  /** How long the access logs are kept. */
  logRetention: RetentionDays;
  /** Steady-state requests per second for the stage. */
  throttlingRateLimit: number;
  /** Burst capacity for the stage. */
  throttlingBurstLimit: number;
  /** The scope the 403's challenge names ('' for none): challengeScopeOf the authorizer's routes. */
  challengeScope: string;
}

/**
 * One JSON line per request: who, what, the answer, and why when it failed — the gateway's own error type, the
 * integration's and the authorizer's errors — with the latencies. Fields: "Variables for access logging",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-variables-for-access-logging.html
 */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    ip: AccessLogField.contextIdentitySourceIp(),
    caller: AccessLogField.contextIdentityCaller(),
    user: AccessLogField.contextIdentityUser(),
    principalId: AccessLogField.contextAuthorizerPrincipalId(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    protocol: AccessLogField.contextProtocol(),
    status: AccessLogField.contextStatus(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    // The integration's own fields (CDK's helpers name the older $context.integrationLatency / ErrorMessage).
    integrationLatency: '$context.integration.latency',
    authorizerLatency: AccessLogField.contextAuthorizerLatency(),
    errorResponseType: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
    integrationError: '$context.integration.error',
    authorizerError: AccessLogField.contextAuthorizerError(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
  }),
);

/**
 * The REST API: one stage, the operations added with `addOperation` (each proxied to its function, behind the
 * authorizer) and nothing else, JSON answers for everything the gateway says itself, JSON access logs, execution logs
 * at ERROR without data tracing (tokens and bodies stay out of logs), metrics on.
 */
export class PlantStoreApi extends Construct {
  readonly api: RestApi;
  readonly #authorizer: Authorizer;
  /** The API's base address including the stage, without a trailing slash: the contract's `{base_url}`. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: PlantStoreApiProps) {
    super(scope, id);
    this.#authorizer = props.authorizer;
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      // API Gateway's metrics are keyed by the API's name (the ApiName dimension): a name of its own per stack keeps
      // two stacks in one account and region (dev and prod) from sharing their alarms, and rolling back each other.
      restApiName: `${props.name} (${Stack.of(this).stackName})`,
      description: `${props.name} API (openapi.yaml)`,
      endpointTypes: [EndpointType.REGIONAL],
      // Every request body reaches createPlant as its bytes (base64, isBase64Encoded), not as text API Gateway has
      // decoded: so invalid UTF-8 is refused (400) instead of silently repaired. Answers are text either way, since
      // API Gateway decodes a proxy result only when it says isBase64Encoded. See "Binary media types for REST APIs",
      // https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html
      binaryMediaTypes: ['*/*'],
      // Execution logging needs API Gateway's account-level CloudWatch role. It is the account's and region's, for
      // every REST API there: `cdk destroy` leaves it (RETAIN, CDK's own default), so other APIs keep logging.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat,
        // X-Ray: the stage traces each request, the functions (active tracing) their part; no SDK in the functions.
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
      },
    });
    addGatewayResponses(this.api, bearerChallenges(props.name, props.challengeScope));
    // API Gateway writes execution logs to a group it creates itself on the first log line, named after the API and
    // the stage, kept forever and left behind by `cdk destroy` ("Set up CloudWatch logging for REST APIs in API
    // Gateway", https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html). The stack creates
    // that group first, with the profile's retention, and removes it with the stack.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);
    // RestApi adds an output of its URL with a trailing slash; the stack outputs `baseUrl` as ApiUrl instead.
    this.api.node.tryRemoveChild('Endpoint');
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          "Each operation's function validates its event against openapi.yaml (generated per operationId) and names the failing field in the API Error shape.",
      },
      { id: 'AwsSolutions-APIG3', reason: 'WAF is a per-deployment choice with its own cost; stage throttling is on.' },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'The TOKEN authorizer verifies JWTs of the Cognito pool (with its scope) or of any configured OIDC issuer.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: "API Gateway's account-level logging role uses the managed policy AWS made for exactly it.",
      },
    );
    this.baseUrl = Fn.join('', [
      'https://',
      this.api.restApiId,
      '.execute-api.',
      Aws.REGION,
      '.',
      Aws.URL_SUFFIX,
      '/',
      this.api.deploymentStage.stageName,
    ]);
  }

  /**
   * An operation of the contract: `method` on `path` (as openapi.yaml writes it, `{name}` and `{name+}` for path
   * parameters) proxied to `fn`, behind the authorizer, within API Gateway's 29 s.
   */
  addOperation(method: string, path: string, fn: IFunction) {
    const resource = path
      .split('/')
      .filter(Boolean)
      .reduce((parent, part) => parent.getResource(part) ?? parent.addResource(part), this.api.root);
    return resource.addMethod(method, new LambdaIntegration(fn, { timeout: Duration.seconds(29) }), {
      authorizer: this.#authorizer,
    });
  }
}
