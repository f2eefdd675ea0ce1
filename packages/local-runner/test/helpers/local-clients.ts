// Clients of the SDK v3 pointed at one of the runner's local services, with its region and credentials.
import { localAws } from '../../src/app/local-aws.ts';

/** What every such client is given, and the options a test adds. */
interface LocalClientConfig {
  region: string;
  credentials: typeof localAws.credentials;
  endpoint: string;
  forcePathStyle?: boolean;
  disableHostPrefix?: boolean;
}

/** A `Client` (SFNClient, SQSClient...) for the local service at `endpoint`; `options` are added to its config. */
export const localClient = <C>(
  Client: new (config: LocalClientConfig) => C,
  endpoint: string,
  options: Pick<LocalClientConfig, 'forcePathStyle' | 'disableHostPrefix'> = {},
): C => new Client({ region: localAws.region, credentials: localAws.credentials, endpoint, ...options });
