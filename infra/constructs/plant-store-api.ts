import { Aws, Duration, Fn, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  type Authorizer,
  type CfnMethod,
  Cors,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { Alias, type IFunction, Function as LambdaFunction, Version } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { corsAllowedHeaders } from '../../functions/commons/cors.ts';
import { loopbackHosts } from '../../functions/commons/loopback.ts';
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
  /** The one origin whose pages may call the API (or `*`: any); unset, no CORS at all. corsOriginProblem holds. */
  corsOrigin?: string | undefined;
}

/**
 * A host a page is served from, as the URL parser serializes it: a DNS name of labels of 1-63 letters, digits and
 * hyphens, neither first nor last (RFC 1123 section 2.1), 253 characters at most (RFC 1035 section 2.3.4), an IDN in
 * its punycode A-labels (`xn--`, what browsers serialize); an IPv4 address; a bracketed IPv6 address (RFC 3986 section
 * 3.2.2). The URL parser has already checked the addresses and put all of it in lower case.
 */
const hostName = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const ipAddress = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/;

/**
 * Why `origin` cannot be the API's CORS origin, or undefined when it can: `*`, or one origin exactly as a browser
 * sends it in `Origin` (RFC 6454 section 6.2: scheme, host and port, lower case, no path), and nothing else:
 * - the scheme `https`, or `http` only on loopback;
 * - the host a DNS name, an IPv4 address or a bracketed IPv6 address (`hostName`, `ipAddress`);
 * - a port, if any, 1-65535 and not the scheme's default (which a browser leaves out).
 * What the URL parser lets through besides (`'`, `"`, `$`, `{}`, `_`) is no host name, and a quote would end the
 * single-quoted static value API Gateway writes the origin in
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/rest-api-parameter-mapping-sources.html); a trailing
 * dot is an origin apart from the site's usual one, which its pages send only when visited by that name: a typo.
 */
export const corsOriginProblem = (origin: string): string | undefined => {
  if (origin === '*') return undefined;
  if (/[,\s]/.test(origin)) {
    return (
      'one origin, or *: every answer the gateway makes itself has static headers, so it cannot answer each of ' +
      'several origins with its own (`*` serves them all: a bearer token is never sent by the browser on its own)'
    );
  }
  if (origin === 'null') return 'null is the origin every sandboxed frame and file: page shares, not a site';
  if (origin.includes('*')) return 'a wildcard is not an origin: browsers match Access-Control-Allow-Origin exactly';
  const url = URL.parse(origin);
  if (!url || url.origin !== origin) {
    return `an origin is scheme://host[:port] as a browser sends it (lower case, no path, no default port)${
      url && url.origin !== 'null' ? `: ${url.origin}` : ''
    }`;
  }
  if (url.protocol === 'http:' && !loopbackHosts.has(url.hostname)) {
    return 'plain http only on loopback: anything on the way could read a page served over http, and its tokens';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'an origin is https (or http on loopback)';
  if (!hostName.test(url.hostname) && !ipAddress.test(url.hostname)) {
    return (
      `the host ${url.hostname} is none of: a DNS name (labels of 1-63 lower-case letters, digits and hyphens, no ` +
      'hyphen first or last, 253 characters in all; an IDN in its xn-- form), an IPv4 address, an [IPv6] address'
    );
  }
  if (url.port === '0') return 'port 0 is no port a page is served from (1-65535)';
  return undefined;
};

/** The Lambda function behind `fn` (an alias, a version or the function itself), if it is one of this app's. */
const lambdaOf = (fn: IFunction): LambdaFunction | undefined => {
  if (fn instanceof Alias) return lambdaOf(fn.version.lambda);
  if (fn instanceof Version) return lambdaOf(fn.lambda);
  return fn instanceof LambdaFunction ? fn : undefined;
};

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
  readonly #corsOrigin: string | undefined;
  /** The methods of each resource an operation is on, which its preflight names. */
  readonly #methods = new Map<IResource, Set<string>>();
  /** The API's base address including the stage, without a trailing slash: the contract's `{base_url}`. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: PlantStoreApiProps) {
    super(scope, id);
    this.#authorizer = props.authorizer;
    const problem = props.corsOrigin === undefined ? undefined : corsOriginProblem(props.corsOrigin);
    if (problem !== undefined) throw new Error(`CORS origin ${props.corsOrigin}: ${problem}`);
    this.#corsOrigin = props.corsOrigin;
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
    addGatewayResponses(this.api, bearerChallenges(props.name, props.challengeScope), props.corsOrigin);
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
   * parameters) proxied to `fn`, behind the authorizer, within API Gateway's 29 s. With a CORS origin, `fn` gets it
   * (CORS_ORIGIN, which every answer it makes carries) and the resource a preflight that names its methods.
   */
  addOperation(method: string, path: string, fn: IFunction) {
    const resource = path
      .split('/')
      .filter(Boolean)
      .reduce((parent, part) => parent.getResource(part) ?? parent.addResource(part), this.api.root);
    if (this.#corsOrigin !== undefined) this.#allowCors(resource, method, fn, this.#corsOrigin);
    return resource.addMethod(method, new LambdaIntegration(fn, { timeout: Duration.seconds(29) }), {
      authorizer: this.#authorizer,
    });
  }

  #allowCors(resource: IResource, method: string, fn: IFunction, origin: string) {
    const lambda = lambdaOf(fn);
    if (!lambda) throw new Error(`${method} ${resource.path}: CORS needs a function of this app (its CORS_ORIGIN)`);
    lambda.addEnvironment('CORS_ORIGIN', origin);
    const methods = this.#methods.get(resource);
    if (methods) {
      methods.add(method);
      return;
    }
    this.#methods.set(resource, new Set([method]));
    // API Gateway's mock integration answers the preflight (204), without the authorizer: a browser sends it without
    // the Authorization header ("CORS-preflight request", the Fetch standard). It names the resource's methods as
    // they stand at synth, however many operations are added after this one.
    const allowed = () => {
      const names = [...(this.#methods.get(resource) ?? [])];
      return (names.includes('ANY') ? Cors.ALL_METHODS : names).join(',');
    };
    const preflight = resource.addCorsPreflight({
      allowOrigins: [origin],
      allowMethods: [Lazy.string({ produce: allowed })],
      allowHeaders: corsAllowedHeaders,
      // Chromium holds a preflight's answer 2 hours at most (Firefox a day).
      maxAge: Duration.hours(2),
    });
    // Under binary media types that match the preflight (the API's `*/*` matches every request, one without a
    // Content-Type too), API Gateway takes its body as binary, cannot apply the mock's request template and answers
    // 500 ("Unable to transform request"): aws/serverless-application-model issue 553, serverless/serverless issues
    // 7505 and 10254, aws/chalice issue 1310, aws-samples/aws-cdk-examples pull request 770. Converting to text, both
    // ways, is what they fixed it with; for a text request and answer it changes nothing ("Content type conversions
    // in API Gateway"). CDK's CorsOptions has no setting for it.
    const cfnPreflight = preflight.node.defaultChild as CfnMethod;
    cfnPreflight.addPropertyOverride('Integration.ContentHandling', 'CONVERT_TO_TEXT');
    cfnPreflight.addPropertyOverride('Integration.IntegrationResponses.0.ContentHandling', 'CONVERT_TO_TEXT');
  }
}
