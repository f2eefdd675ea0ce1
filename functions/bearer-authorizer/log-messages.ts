// The message the authorizer logs at ERROR for each of its failures (anything but a refused token): the stack's
// authorizer-failure metric filter counts exactly these lines (infra/constructs/monitoring.ts).
export const authorizerFailedMessage = 'Authorizer failed';
