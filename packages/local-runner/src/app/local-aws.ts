/** Pseudo parameters as the local runner answers them: the region and account every local resource is in. */
export const localAws = {
  region: 'us-east-1',
  accountId: '000000000000',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
};
