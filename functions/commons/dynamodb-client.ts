// A lean DynamoDB client: JSON requests signed with aws4 (Signature Version 4) over node:https with a keep-alive agent.
//
// Why not the AWS SDK: it was most of createPlant's bundle and cold start (docs/benchmarks.md compares the textbook build,
// which has it). Why by hand:
// the lean libraries sign (aws4) or send requests without an abort signal per call and retries bounded by it
// (@aws-lite/client), and this function needs both: every call stops at the invocation's deadline. What the SDK did
// and this keeps, each tested against dynalite or a loopback server in test/functions/commons/:
// - the regional endpoint, or AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL (the SDKs' documented override);
// - credentials with the session token from the environment, where Lambda puts them;
// - up to 3 attempts for throttling, 5xx and unanswered requests, with "full jitter" exponential backoff, as the AWS
//   SDKs' standard retry mode (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html);
// - a time limit per attempt, and the caller's abort signal ending the current attempt and any wait.
// What it leaves out, which a Lambda function in its own region does not use: credential sources other than the
// environment (profiles, SSO, the instance and container metadata endpoints), FIPS and dual-stack endpoints, the
// adaptive retry mode (client-side rate limiting), and request compression and checksums.
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import aws4 from 'aws4';

/** An error DynamoDB answered (`name` is its type, e.g. ConditionalCheckFailedException), or no answer at all. */
export class DynamoDbError extends Error {
  override readonly name: string;
  /** Whether another attempt may succeed: throttling, a server fault, no answer. */
  readonly retryable: boolean;
  /** DynamoDB's HTTP status; undefined when it never answered. */
  readonly statusCode: number | undefined;

  constructor(name: string, message: string, retryable: boolean, statusCode?: number, options?: ErrorOptions) {
    super(message, options);
    this.name = name;
    this.retryable = retryable;
    this.statusCode = statusCode;
  }
}

/**
 * Throttling error types that answer 400, which the AWS SDKs retry (the 5xx are retried by status); the list is the
 * SDKs' own (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html, "throttling errors").
 */
const throttlingTypes = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'LimitExceededException',
  'TransactionInProgressException',
]);

export interface DynamoDbClientOptions {
  /** Default: AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, or the regional endpoint of AWS_REGION. */
  endpoint?: string;
  maxAttempts?: number;
  /** Each attempt's limit, from sending to the whole answer (a socket idle that long ends it). */
  attemptTimeoutMs?: number;
  /** The first retry waits up to this, each next one up to twice as long. */
  backoffBaseMs?: number;
}

export interface DynamoDbClient {
  /** Calls a DynamoDB action (PutItem, GetItem, ...) with its JSON input; rejects with DynamoDbError. */
  call<Output>(action: string, input: object, signal?: AbortSignal): Promise<Output>;
  /** Closes the kept-alive connections. */
  destroy(): void;
}

const environmentValue = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: Lambda sets it, and so does the local runner`);
  return value;
};

const responseBody = (response: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });

/** DynamoDB's error body: `{"__type":"com.amazonaws.dynamodb.v20120810#Type","message":"..."}` (or `Message`). */
const responseError = (statusCode: number, body: string): DynamoDbError => {
  let parsed: { __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const type = typeof parsed.__type === 'string' ? (parsed.__type.split('#').pop() ?? '') : '';
  const message = String(parsed.message ?? parsed.Message ?? `DynamoDB answered HTTP ${statusCode}`);
  const retryable = statusCode >= 500 || throttlingTypes.has(type);
  return new DynamoDbError(type || `Http${statusCode}Error`, message, retryable, statusCode);
};

/** Waits `ms`, or less if `signal` aborts (then the caller sees the abort). */
const pause = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/**
 * The SDKs' endpoint resolution for DynamoDB: the service-specific variable, the general one, else the regional
 * endpoint (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html,
 * https://docs.aws.amazon.com/general/latest/gr/ddb.html).
 */
export const dynamoDbEndpoint = (region: string, environment = process.env): string =>
  // An empty value is no value (as `sam local --env-vars` writes one to clear a variable).
  environment.AWS_ENDPOINT_URL_DYNAMODB ||
  environment.AWS_ENDPOINT_URL ||
  `https://dynamodb.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;

/** One client per cold start: its agent keeps connections to DynamoDB open across warm invocations. */
export const createDynamoDbClient = (options: DynamoDbClientOptions = {}): DynamoDbClient => {
  const { maxAttempts = 3, attemptTimeoutMs = 2_000, backoffBaseMs = 50 } = options;
  const region = environmentValue('AWS_REGION');
  const endpoint = new URL(options.endpoint ?? dynamoDbEndpoint(region));
  // Loaded as CommonJS (process.getBuiltinModule): importing node:http(s) as an ES module evaluates its lazy
  // exports, which loads undici and web streams, tens of milliseconds of every cold start.
  const transport = process.getBuiltinModule(endpoint.protocol === 'http:' ? 'node:http' : 'node:https');
  const agent: Agent = new transport.Agent({ keepAlive: true });

  const attempt = (action: string, body: string, signal: AbortSignal | undefined) => {
    const signed = aws4.sign(
      {
        host: endpoint.host,
        path: '/',
        method: 'POST',
        service: 'dynamodb',
        region,
        body,
        headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDB_20120810.${action}` },
      },
      {
        accessKeyId: environmentValue('AWS_ACCESS_KEY_ID'),
        secretAccessKey: environmentValue('AWS_SECRET_ACCESS_KEY'),
        sessionToken: process.env.AWS_SESSION_TOKEN,
      },
    );
    return new Promise<string>((resolve, reject) => {
      const request: ClientRequest = transport.request(
        {
          protocol: endpoint.protocol,
          hostname: endpoint.hostname.replace(/^\[|\]$/g, ''),
          port: endpoint.port,
          path: '/',
          method: 'POST',
          headers: signed.headers as Record<string, string>,
          agent,
          signal,
          timeout: attemptTimeoutMs,
        },
        (response) => {
          responseBody(response).then((text) => {
            const statusCode = response.statusCode ?? 0;
            if (statusCode === 200) resolve(text);
            else reject(responseError(statusCode, text));
          }, fail);
        },
      );
      function fail(error: Error) {
        reject(
          new DynamoDbError('NetworkError', `DynamoDB did not answer: ${error.message}`, true, undefined, {
            cause: error,
          }),
        );
      }
      request.on('timeout', () => request.destroy(new Error(`no answer within ${attemptTimeoutMs} ms`)));
      request.on('error', fail);
      request.end(body);
    });
  };

  return {
    async call<Output>(action: string, input: object, signal?: AbortSignal): Promise<Output> {
      const body = JSON.stringify(input);
      for (let attempts = 1; ; attempts += 1) {
        try {
          return JSON.parse(await attempt(action, body, signal)) as Output;
        } catch (error) {
          const retry = error instanceof DynamoDbError && error.retryable && attempts < maxAttempts;
          if (!retry || signal?.aborted) throw error;
          await pause(Math.random() * backoffBaseMs * 2 ** (attempts - 1), signal);
          if (signal?.aborted) throw error;
        }
      }
    },
    destroy: () => agent.destroy(),
  };
};
